import FCMDoor
import FCMEngine
import FCMTerminalUI
import Testing

/// Every screen and overlay, whole, at 80x24 and at 200x50.
@Suite("Screens")
struct ScreenSnapshotTests {
    func check(_ model: TUIModel, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        Snapshot.checkSizes(model, name, sourceLocation: sourceLocation)
    }

    @Test func mainScreenOfAFreshDevice() {
        check(Scenes.fresh(), "main-fresh")
    }

    @Test func mainScreenWithTheListenersRunning() {
        var model = Scenes.fresh()
        model.setNetworkSummary("CCS :5235 :5236 HTTP :8085")
        check(model, "main-listening")
    }

    @Test func mainScreenOfABusyDevice() {
        check(Scenes.busy(), "main-busy")
    }

    @Test func mainScreenWithSeveralPhones() {
        var model = Scenes.fresh(Scenes.threePhones)
        Scenes.press(&model, [.character("]")])
        check(model, "devices-main")
    }

    @Test func aRealClientShownWithItsPaneAndInTheList() throws {
        let session = SessionDoor.own(starting: Scenes.android.configuration)
        // A client's registration calls, each reading what the last made from the device.
        session.submit(.receiver(.checkin(androidID: nil, securityToken: nil)))
        let checkin = try #require(session.view().server.receivers.checkins.values.first)
        let pair = "AidLogin \(checkin.androidID):\(checkin.securityToken)"
        session.submit(
            .receiver(.register3(.init(authorization: pair, app: "org.chromium.linux", subtype: "wp:x#1", sender: nil)))
        )
        let gcm = try #require(session.view().server.receivers.gcm.keys.first)
        session.submit(
            .receiver(
                .installation(.init(project: "demo", apiKey: "k", appID: "1:1:web:1", fid: "cZ3kq8dT3x2vT0aQWbT1aX"))))
        let auth = try #require(session.view().server.receivers.installations.keys.first)
        // RFC 8291's example receiver keys.
        session.submit(
            .receiver(
                .registration(
                    .init(
                        project: "demo", apiKey: "k", installationAuth: auth,
                        endpoint: "https://fcm.googleapis.com/fcm/send/" + gcm,
                        p256dh:
                            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                        auth: "BTBZMqHH6r4Tts7J_aSIgg", applicationPubKey: nil))))
        session.submit(
            .mcs(
                .login(
                    1, MCSLogin(user: String(checkin.androidID), authToken: String(checkin.securityToken), received: [])
                )))
        #expect(session.view().isRealClient(phoneAt: 1))
        var model = TUIModel(profile: Scenes.android, door: session)
        Scenes.press(&model, [.character("]")])
        check(model, "real-client-main")
        Scenes.press(&model, [.character("v")], from: 2_000)
        check(model, "real-client-list")
    }

    @Test func devicesList() {
        var model = Scenes.fresh(Scenes.threePhones)
        Scenes.press(&model, [.character("v"), .down, .down])
        check(model, "devices-list")
    }

    @Test func addDeviceForm() {
        var model = Scenes.fresh(Scenes.threePhones)
        Scenes.press(&model, [.character("v"), .character("a")])
        check(model, "add-device")
    }

    @Test func helpOverlay() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("?")])
        check(model, "help")
    }

    @Test func composeForm() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("s"), .control("n")] + Scenes.type("mood") + [.down] + Scenes.type("happy"))
        check(model, "compose")
    }

    @Test func composeFormExplainsInvalidInput() {
        var model = Scenes.fresh()
        Scenes.press(
            &model, [.character("s"), .down, .control("u"), .down, .control("u")] + Scenes.type("soon") + [.enter])
        check(model, "compose-invalid")
    }

    @Test func pushForm() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("p"), .down, .down, .down, .down, .right])
        check(model, "push")
    }

    @Test func addSenderForm() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("a")])
        check(model, "add-sender")
    }

    @Test func saveProfileForm() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("w")])
        check(model, "save-profile")
    }

    @Test func tokenDetail() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.tab, .tab, .tab, .tab, .enter])
        check(model, "token-detail")
    }

    @Test func filterPromptAndFilteredEvents() {
        var model = Scenes.busy()
        Scenes.press(&model, [.character("/")] + Scenes.type("error"), from: 30_000)
        check(model, "filter-prompt")
        Scenes.press(&model, [.enter], from: 31_000)
        check(model, "filtered")
    }

    @Test func trayFocusedWithNotifications() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("b"), .character("p"), .enter, .character("p"), .enter, .tab])
        check(model, "tray")
    }

    @Test func serverPaneAndItsRawView() {
        var model = Scenes.busy()
        Scenes.press(&model, [.tab, .tab, .tab], from: 30_000)
        check(model, "server")
        Scenes.press(&model, [.enter], from: 31_000)
        check(model, "server-raw")
    }

    @Test func iosNotificationCentre() {
        var model = Scenes.fresh(Scenes.ios)
        Scenes.press(&model, [.character("p"), .enter, .character("s"), .enter])
        check(model, "ios")
    }

    /// A browser: its notifications, the web SDK's callback names, a refused send.
    @Test func aWebAppInTheBackground() {
        var model = Scenes.fresh(Scenes.web)
        Scenes.press(&model, [.character("p"), .enter, .character("s")])
        check(model, "web")
    }

    @Test func uninstalledApp() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("u")])
        check(model, "uninstalled")
    }

    @Test func unicodeAndLongPayloadsKeepTheLayout() {
        var model = Scenes.fresh()
        let long = String(repeating: "très long ", count: 30)
        Scenes.press(
            &model,
            [.character("p"), .down, .down, .control("u")] + Scenes.type("比赛 ⚽ Portugal–Danmark 🇵🇹")
                + [.down, .control("u")] + Scenes.type(long) + Array(repeating: .down, count: 5)
                + Scenes.type("emoji") + [.down] + Scenes.type("😀😀😀 日本語テキスト") + [
                    .enter, .character("b"), .character("p"), .down, .down, .control("u"),
                ]
                + Scenes.type("通知 🎉") + [.enter])
        check(model, "unicode")
    }

    @Test func deliveredMessageDetailShowsWholePayloads() {
        var model = Scenes.fresh()
        let long = String(repeating: "a long value that must wrap, ", count: 8)
        Scenes.press(
            &model,
            [.character("p")] + Array(repeating: .down, count: 10) + Scenes.type("article") + [.down]
                + Scenes.type(long) + [.enter, .tab, .tab, .enter])
        check(model, "message-detail")
    }

    @Test func tooSmallTerminalSaysSo() {
        Snapshot.check(View.render(Scenes.fresh(), width: 40, height: 10), "too-small-40x10")
    }
}
