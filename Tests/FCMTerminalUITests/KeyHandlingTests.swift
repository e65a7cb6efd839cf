import FCMDoor
import FCMEngine
import FCMProfiles
import FCMTerminalUI
import Testing

/// The update function: keys change the model and the device as the help says.
@Suite("Key handling")
struct KeyHandlingTests {
    @Test func qQuitsAndCtrlCToo() {
        var model = Scenes.fresh()
        #expect(model.handle(.character("q"), at: 0) == [.quit])
        #expect(model.handle(.control("c"), at: 0) == [.quit])
    }

    @Test func questionMarkOpensHelpAndEscapeClosesIt() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("?")])
        #expect(model.overlay == .help)
        Scenes.press(&model, [.escape])
        #expect(model.overlay == nil)
    }

    @Test func tabCyclesThePanesBothWays() {
        var model = Scenes.fresh()
        #expect(model.focus == .events)
        Scenes.press(&model, [.tab])
        #expect(model.focus == .tray)
        Scenes.press(&model, [.backTab, .backTab])
        #expect(model.focus == .queue)
    }

    @Test func toggleKeysDriveTheDevice() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("n"), .character("o"), .character("z"), .character("b")])
        #expect(model.device.devices[0].network == .offline)
        #expect(!model.device.server.serviceUp)
        #expect(model.device.devices[0].doze)
        #expect(model.device.devices[0].appState == .background)
        Scenes.press(&model, [.character("x")], from: 5_000)
        #expect(model.device.devices[0].appState == .stopped)
        Scenes.press(&model, [.character("f"), .character("n"), .character("o"), .character("z")], from: 6_000)
        #expect(
            model.device.isConnected(phoneAt: 0) && !model.device.devices[0].doze
                && model.device.devices[0].appState == .foreground)
    }

    @Test func uKeyUninstallsThenReinstalls() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("u")])
        #expect(!model.device.devices[0].installed)
        Scenes.press(&model, [.character("u")], from: 2_000)
        #expect(model.device.devices[0].installed)
        #expect(model.log.filter { $0.name == "onNewToken" }.count == 4)
    }

    @Test func composeSendsWithASuggestedUniqueID() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("s"), .enter, .character("s"), .enter])
        let ids = model.log.filter { $0.name == "upstreamForwarded" }.compactMap { $0.string("id") }
        #expect(ids == ["m-1", "m-2"])
        #expect(model.overlay == nil)
    }

    @Test func composeExplainsABadTtlInlineAndStaysOpen() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("s"), .down, .down, .control("u")] + Scenes.type("x") + [.enter])
        guard case .form(let form)? = model.overlay else {
            Issue.record("the form closed")
            return
        }
        #expect(form.fields[2].error == "seconds, or a duration such as 90s, 2h or 3d")
        #expect(!model.log.contains { $0.name == "upstreamForwarded" })
    }

    @Test func composeDataEditorAddsPairsWithCtrlN() {
        var model = Scenes.fresh()
        Scenes.press(
            &model, [.character("s"), .control("n")] + Scenes.type("b") + [.down] + Scenes.type("2") + [.enter])
        let data = model.log.first { $0.name == "upstreamForwarded" }?["data"]
        #expect(data == .map([KeyValue("hello", "world"), KeyValue("b", "2")]))
    }

    @Test func escapeCancelsAFormWithoutSending() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("s"), .escape])
        #expect(model.overlay == nil)
        #expect(!model.log.contains { $0.name == "upstreamForwarded" })
    }

    @Test func twentyOneSendsOfflineEndInTooManyMessages() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("n")])
        for n in 0..<21 { Scenes.press(&model, [.character("s"), .enter], from: 2_000 + Millis(n) * 300) }
        #expect(model.device.devices[0].pending.count == 20)
        #expect(model.log.last?.string("error") == "TooManyMessages")
        #expect(model.status?.contains("TooManyMessages") == true)
    }

    @Test func pushInTheBackgroundGoesToTheTrayAndTapDeliversItsData() {
        var model = Scenes.fresh()
        Scenes.press(
            &model,
            [.character("b"), .character("p")] + Array(repeating: .down, count: 10) + Scenes.type("room") + [.down]
                + Scenes.type("PT-DK") + [.enter])
        #expect(model.device.devices[0].tray.count == 1)
        Scenes.press(&model, [.character("t")], from: 9_000)
        #expect(model.device.devices[0].tray.isEmpty)
        #expect(model.device.devices[0].inbox.last?.data == [KeyValue("room", "PT-DK")])
        #expect(model.device.devices[0].appState == .foreground)
    }

    @Test func everyInboxMessageCanBeSelectedAndOpened() {
        var model = Scenes.fresh()
        for n in 0..<4 { Scenes.press(&model, [.character("p"), .enter], from: 1_000 + Millis(n) * 1_000) }
        #expect(model.device.devices[0].inbox.count == 4)
        while model.focus != .inbox { Scenes.press(&model, [.tab], from: 9_000) }
        Scenes.press(&model, [.end, .enter], from: 10_000)
        #expect(model.overlay == .messageDetail(index: 3))
        Scenes.press(&model, [.escape, .up, .enter], from: 11_000)
        #expect(model.overlay == .messageDetail(index: 2))
    }

    @Test func pushChoicesCycleWithArrows() {
        var model = Scenes.fresh()
        Scenes.press(
            &model, [.character("z"), .character("p"), .down, .down, .down, .down, .down, .right, .right, .enter])
        let accepted = model.log.first { $0.name == "downstreamAccepted" }
        #expect(accepted?.string("priority") == "normal")
        #expect(model.device.devices[0].stored.count == 1)
    }

    @Test func clockKeysLetTtlsRunOut() {
        var model = Scenes.fresh()
        Scenes.press(
            &model, [.character("n"), .character("s"), .down, .down, .control("u")] + Scenes.type("60") + [.enter])
        Scenes.press(&model, [.character("1")], from: 5_000)
        #expect(model.log.contains { $0.string("error") == "SERVICE_NOT_AVAILABLE" })
        let moved = Scenes.press(&model, [.character("2"), .character("3")], from: 6_000)
        #expect(moved == [.moveClock(by: Span.hour), .moveClock(by: Span.day)])
    }

    @Test func tokenDetailCopiesWithOsc52AndWritesAFile() {
        var model = Scenes.fresh()
        let token = model.device.devices[0].tokens["123456789012"]!
        Scenes.press(&model, [.tab, .tab, .tab, .tab, .enter])
        #expect(model.overlay == .tokenDetail(sender: "123456789012"))
        #expect(model.handle(.character("c"), at: 2_000) == [.copyToClipboard(token)])
        Scenes.press(&model, [.enter])
        #expect(
            model.handle(.character("w"), at: 3_000)
                == [.writeFile(path: "token-123456789012.txt", contents: token + "\n")])
    }

    @Test func refreshAddAndRemoveSenders() {
        var model = Scenes.fresh()
        let before = model.device.devices[0].tokens["123456789012"]
        Scenes.press(&model, [.tab, .tab, .tab, .tab, .character("r")])
        #expect(model.device.devices[0].tokens["123456789012"] != before)
        Scenes.press(&model, [.character("a"), .enter], from: 3_000)
        #expect(model.device.devices[0].senders.count == 3)
        Scenes.press(&model, [.down, .character("d")], from: 4_000)
        #expect(model.device.devices[0].senders.map(\.id) == ["123456789012", "100000000001"])
    }

    @Test func addSenderRefusesNonDigits() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("a"), .control("u")] + Scenes.type("abc") + [.enter])
        guard case .form(let form)? = model.overlay else {
            Issue.record("the form closed")
            return
        }
        #expect(form.fields[0].error == "a sender id is digits only")
    }

    @Test func filterNarrowsTheEvents() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("s"), .enter, .character("/")] + Scenes.type("appServerAck") + [.enter])
        #expect(model.eventFilter == "appServerAck")
        #expect(model.visibleEvents.map(\.name) == ["appServerAck"])
    }

    @Test func scrollingTheEventsStopsFollowingAndEndReturns() {
        var model = Scenes.fresh()
        for n in 0..<5 { Scenes.press(&model, [.character("s"), .enter], from: 1_000 + Millis(n) * 300) }
        Scenes.press(&model, [.up, .up], from: 5_000)
        #expect(model.eventScroll == 2)
        Scenes.press(&model, [.end], from: 6_000)
        #expect(model.eventScroll == 0)
    }

    @Test func savedSessionReplaysToTheSameEvents() throws {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("s"), .enter, .character("n"), .character("s"), .enter])
        Scenes.press(&model, [.character("n"), .character("b"), .character("p"), .enter, .character("t")], from: 3_000)
        let effects = Scenes.press(&model, [.character("w"), .enter], from: 5_000)
        guard case .saveProfile(let path, let contents, _)? = effects.first else {
            Issue.record("no file written: \(effects)")
            return
        }
        #expect(path == "./session.yaml", "the shell names the save folder; the current one otherwise")
        let replayed = Replayer.run(try ProfileParser.parse(contents, file: path))
        let sessionEnd = model.now
        let summary = { (events: [Event]) in events.map { "\($0.at) \($0.name) \($0.string("id") ?? "")" } }
        #expect(summary(replayed.events.filter { $0.at <= sessionEnd }) == summary(model.log))
    }

    @Test func aSessionSavedAfterAResumeReplaysToWhatTheUserSaw() throws {
        // A device that ran before (its token refreshed once) and is opened again.
        var earlier = DeviceEngine(Scenes.android.configuration)
        var ignored: [Event] = []
        earlier.handle(.start(at: 0), into: &ignored)
        earlier.handle(.input(.on(.refreshToken(sender: "123456789012")), at: 60_000), into: &ignored)
        var model = TUIModel(profile: Scenes.android, door: SessionDoor.own(engine: earlier))
        Scenes.press(&model, [.character("p"), .enter], from: 90_000)
        #expect(model.log.contains { $0.name == "onMessageReceived" })
        let effects = Scenes.press(&model, [.character("w"), .enter], from: 95_000)
        guard case .saveProfile(let path, let contents, _)? = effects.first else {
            Issue.record("no file written: \(effects)")
            return
        }
        let replayed = Replayer.run(try ProfileParser.parse(contents, file: path))
        #expect(!replayed.events.contains { $0.isError }, "\(replayed.events.filter(\.isError))")
        let received = replayed.events.filter { $0.name == "onMessageReceived" }
        #expect(received.count == 1)
        #expect(received.first?.at == model.log.first { $0.name == "onMessageReceived" }?.at)
    }

    @Test("a session saved after a resume starts the phone as it stood: app state and permission too")
    func aSessionSavedAfterAResumeStartsThePhoneAsItStood() throws {
        var earlier = DeviceEngine(Scenes.android.configuration)
        var ignored: [Event] = []
        earlier.handle(.start(at: 0), into: &ignored)
        earlier.handle(.input(.on(.setAppState(.background)), at: 10_000), into: &ignored)
        earlier.handle(.input(.on(.setPermission(.denied)), at: 20_000), into: &ignored)
        var model = TUIModel(profile: Scenes.android, door: SessionDoor.own(engine: earlier))
        Scenes.press(&model, [.character("p"), .enter], from: 90_000)
        #expect(model.log.contains { $0.name == "notificationBlocked" })
        let effects = Scenes.press(&model, [.character("w"), .enter], from: 95_000)
        guard case .saveProfile(let path, let contents, _)? = effects.first else {
            Issue.record("no file written: \(effects)")
            return
        }
        #expect(contents.contains("state: background") && contents.contains("permission: denied"))
        let replayed = Replayer.run(try ProfileParser.parse(contents, file: path))
        #expect(replayed.events.filter { $0.name == "notificationBlocked" }.count == 1)

        // A device the TUI started itself is not said to be resumed.
        var fresh = Scenes.fresh()
        let saved = Scenes.press(&fresh, [.character("w"), .enter], from: 5_000)
        guard case .saveProfile(_, let written, _)? = saved.first else {
            Issue.record("no file written")
            return
        }
        #expect(!written.contains("resumed"))
    }
}
