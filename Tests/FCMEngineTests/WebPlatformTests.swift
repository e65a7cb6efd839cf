import FCMEngine
import Testing

/// The third kind of client app instance: a web app in a browser, with the FCM
/// JavaScript SDK and its service worker (shared/reference/web-client.md).
@Suite("A web app instance")
struct WebPlatformTests {
    static let origin = "https://app.example.com"

    static func browser(
        _ name: String = "browser", state: AppState = .foreground, permission: NotificationPermission? = nil
    )
        -> DeviceSpec
    {
        var settings = DeviceSettings(name: name, platform: .web, app: origin, state: state, seed: 1)
        settings.permission = permission
        return DeviceSpec(settings)
    }

    static func message(
        to token: String?, notification: [KeyValue]? = nil, data: [KeyValue] = [KeyValue("k", "v")], ttl: Int64? = nil
    ) -> DownstreamRequest {
        DownstreamRequest(
            sender: Harness.sender, to: token, data: data, notification: notification, timeToLive: ttl)
    }

    static let note = [KeyValue("title", "Hi"), KeyValue("body", "there")]

    @Test func aVisibleTabGetsEveryMessageInOnMessageAndNothingIsShown() {
        var fleet = Fleet([Self.browser()])
        let events = fleet.run(.push(Self.message(to: fleet.token(of: "browser"), notification: Self.note)))
        #expect(events.named("onMessage").count == 1)
        #expect(events.named("notificationPosted").isEmpty)
        #expect(events.named("onBackgroundMessage").isEmpty)
        Harness.checkDeclared(events)
    }

    @Test func inTheBackgroundTheSDKShowsTheNotificationThenCallsOnBackgroundMessage() {
        var fleet = Fleet([Self.browser(state: .background)])
        let events = fleet.run(.push(Self.message(to: fleet.token(of: "browser"), notification: Self.note)))
        let names = events.map(\.name).filter { ["notificationPosted", "onBackgroundMessage"].contains($0) }
        #expect(names == ["notificationPosted", "onBackgroundMessage"], "shown first, then the hook")
        #expect(events.named("onBackgroundMessage").first?["notification"] == .map(Self.note))
        #expect(fleet.engine.phone(named: "browser")?.tray.count == 1)
        Harness.checkDeclared(events)
    }

    @Test func aDataOnlyMessageInTheBackgroundReachesOnBackgroundMessageAndShowsNothing() {
        var fleet = Fleet([Self.browser(state: .background)])
        let events = fleet.run(.push(Self.message(to: fleet.token(of: "browser"))))
        #expect(events.named("onBackgroundMessage").first?["data"] == .map([KeyValue("k", "v")]))
        #expect(events.named("notificationPosted").isEmpty)
    }

    @Test func aStoppedBrowserIsHeldForAndGetsItsMessagesWhenItRunsAgain() {
        var fleet = Fleet([Self.browser(state: .stopped)])
        let held = fleet.run(.push(Self.message(to: fleet.token(of: "browser"))))
        #expect(held.named("stored").count == 1)
        let resumed = fleet.run(.setAppState(.foreground), on: "browser", after: 1_000)
        #expect(resumed.named("onMessage").count == 1)
    }

    @Test func ttlZeroIsNowOrNeverForABrowser() {
        var fleet = Fleet([Self.browser(state: .stopped)])
        let events = fleet.run(.push(Self.message(to: fleet.token(of: "browser"), ttl: 0)))
        #expect(events.named("discarded").first?.string("reason") == "ttl-zero")
    }

    @Test func aClickFocusesATabOfTheAppsHostWithoutNavigatingAndCallsNoAppCode() {
        var fleet = Fleet([Self.browser(state: .background)])
        let linked = Self.note + [KeyValue("click_action", Self.origin + "/news/42")]
        fleet.run(.push(Self.message(to: fleet.token(of: "browser"), notification: linked)))
        let events = fleet.run(.tap(.last), on: "browser")
        let tapped = events.named("notificationTapped").first
        #expect(tapped?.string("window") == "focused")
        #expect(tapped?.string("link") == Self.origin + "/news/42")
        #expect(events.named("onMessage").isEmpty && events.named("onBackgroundMessage").isEmpty)
        #expect(fleet.engine.phone(named: "browser")?.tray.isEmpty == true, "the SDK closes it")
        Harness.checkDeclared(events)
    }

    @Test func aLinkOnAnotherHostOrNoLinkOpensNothing() {
        var fleet = Fleet([Self.browser(state: .background)])
        let elsewhere = Self.note + [KeyValue("click_action", "https://elsewhere.example.org/")]
        fleet.run(.push(Self.message(to: fleet.token(of: "browser"), notification: elsewhere)))
        let other = fleet.run(.tap(.last), on: "browser").named("notificationTapped").first
        #expect(other?.string("window") == "none")
        #expect(other?.string("detail")?.contains("another host") == true)
        fleet.run(.push(Self.message(to: fleet.token(of: "browser"), notification: Self.note)))
        #expect(fleet.run(.tap(.last), on: "browser").named("notificationTapped").first?.string("window") == "none")
    }

    @Test func withoutNotificationPermissionGetTokenRejectsAndThereIsNoToken() {
        let fleet = Fleet([Self.browser("denied", permission: .denied), Self.browser("asked", permission: .default)])
        let refusals = fleet.events.named("getToken")
        #expect(refusals.count == 2)
        #expect(refusals.allSatisfy { $0.string("error") == "messaging/permission-blocked" })
        #expect(fleet.token(of: "denied") == nil && fleet.token(of: "asked") == nil)
        Harness.checkDeclared(fleet.events)
    }

    @Test func aGrantedBrowserGetsItsTokenFromGetToken() {
        let fleet = Fleet([Self.browser()])
        let issued = fleet.events.named("getToken").first
        #expect(issued?.string("token") == fleet.token(of: "browser"))
        #expect(issued?["error"] == nil)
    }

    @Test(arguments: [
        PhoneCommand.send(UpstreamRequest(to: "\(Harness.sender)@fcm.googleapis.com", messageID: "u-1", data: [])),
        .subscribe(topic: "news", sender: nil), .unsubscribe(topic: "news", sender: nil), .setDoze(true),
    ])
    func aWebAppHasNoUpstreamNoClientTopicsAndNoDoze(command: PhoneCommand) {
        var fleet = Fleet([Self.browser()])
        let events = fleet.run(command, on: "browser")
        #expect(events.map(\.name) == ["commandRefused"], "\(events)")
        #expect(events.first?.string("detail")?.isEmpty == false)
    }

    @Test func topicsComeFromTheServerSide() {
        var fleet = Fleet([Self.browser()])
        let token = fleet.token(of: "browser")!
        var events: [Event] = []
        _ = fleet.engine.handle(
            .input(
                .topics(
                    TopicOrder(sender: Harness.sender, topic: "news", tokens: [token], change: .add, api: .v1)),
                at: fleet.engine.now), into: &events
        ).topicOutcome!
        #expect(events.named("topicSubscribed").count == 1)
        #expect(fleet.run(.push(Self.message(to: "/topics/news"))).named("onMessage").count == 1)
    }

    @Test func aWebCopyTakesTheWebpushBlockAndIgnoresThePhonesBlocks() {
        var fleet = Fleet([Self.browser(state: .background)])
        let blocks = PlatformOverrides(
            android: MessageOverride(collapseKey: "a"), apns: MessageOverride(collapseKey: "i"),
            webpush: MessageOverride(
                collapseKey: "w", data: [KeyValue("web", "1")], notification: [KeyValue("title", "Web title")]))
        let events = fleet.send(
            SendOrder(Self.message(to: fleet.token(of: "browser"), notification: Self.note), overrides: blocks))
        let background = events.named("onBackgroundMessage").first
        #expect(background?.string("collapse_key") == "w")
        #expect(background?["data"] == .map([KeyValue("web", "1")]))
        #expect(events.named("notificationPosted").first?.string("title") == "Web title")
        #expect(background?["ignored"] == .list(["android", "apns"]))
    }

    @Test func aBrowserHasNoDeletedMessagesCallback() {
        var config = EngineConfiguration(senders: [SenderConfig(id: Harness.sender, key: "k")])
        config.store = StorePolicy(nonCollapsibleLimit: 1)
        config.devices = [Self.browser(state: .stopped)]
        config.device = config.devices[0].settings
        var engine = DeviceEngine(config)
        var events: [Event] = []
        engine.handle(.start(at: 0), into: &events)
        let token = engine.devices[0].tokens[Harness.sender]
        for n in 0..<3 {
            engine.handle(.input(.push(Self.message(to: token, data: [KeyValue("n", "\(n)")])), at: 10), into: &events)
        }
        engine.handle(.input(.on(device: "browser", .setAppState(.foreground)), at: 20), into: &events)
        #expect(events.named("onDeletedMessages").isEmpty && events.named("messagesDeleted").isEmpty)
    }

    @Test func getTokenAnswersTheCachedTokenAndRefreshesOneAWeekOld() {
        var fleet = Fleet([Self.browser()])
        let first = fleet.token(of: "browser")
        let cached = fleet.run(.getToken(sender: nil), on: "browser", after: Span.day).named("getToken").first
        #expect(cached?.string("token") == first && cached?["cached"] == .bool(true))
        let week = fleet.run(.getToken(sender: nil), on: "browser", after: 7 * Span.day).named("getToken").first
        #expect(week?.string("token") != first && week?["cached"] == nil)
        let old = fleet.run(.push(Self.message(to: first)))
        #expect(old.named("downstreamRejected").first?.string("error") == "NotRegistered")
        Harness.checkDeclared(fleet.events)
    }

    @Test func deleteTokenLeavesAppServersNotRegisteredAndGetTokenMakesANewOne() {
        var fleet = Fleet([Self.browser()])
        let token = fleet.token(of: "browser")
        #expect(
            fleet.run(.deleteToken(sender: nil), on: "browser").named("deleteToken").first?.string("token") == token)
        #expect(fleet.token(of: "browser") == nil)
        let refused = fleet.run(.push(Self.message(to: token)))
        #expect(refused.named("downstreamRejected").first?.string("error") == "NotRegistered")
        let again = fleet.run(.getToken(sender: nil), on: "browser").named("getToken").first
        #expect(again?.string("token") != nil && again?.string("token") != token)
        Harness.checkDeclared(fleet.events)
    }

    @Test func grantingPermissionLetsGetTokenWorkAndTakingItAwayDropsTheTokens() {
        var fleet = Fleet([Self.browser(permission: .default)])
        #expect(fleet.token(of: "browser") == nil)
        fleet.run(.setPermission(.granted), on: "browser")
        let granted = fleet.run(.getToken(sender: nil), on: "browser").named("getToken").first
        #expect(granted?.string("token") != nil && granted?["error"] == nil)
        fleet.run(.setPermission(.denied), on: "browser")
        #expect(fleet.token(of: "browser") == nil)
        let blocked = fleet.run(.getToken(sender: nil), on: "browser").named("getToken").first
        #expect(blocked?.string("error") == "messaging/permission-blocked")
        Harness.checkDeclared(fleet.events)
    }

    @Test(arguments: [PhoneCommand.getToken(sender: nil), .deleteToken(sender: nil)])
    func theWebSDKsTokenCallsAreRefusedOnAPhone(command: PhoneCommand) {
        var fleet = Fleet(SeveralDevicesTests.pair)
        let events = fleet.run(command, on: "pixel")
        #expect(events.map(\.name) == ["commandRefused"])
        #expect(events.first?.string("detail")?.contains("onNewToken") == true)
    }

    @Test func aPhoneThatDozedIsAwakeReinstalledAsAWebAppAndAPromptNotAnsweredIsOnlyABrowsers() {
        var fleet = Fleet([DeviceSpec(DeviceSettings(name: "pixel", doze: true, seed: 1))])
        fleet.run(.reinstallAs(platform: .web, sdk: .fcm), on: "pixel")
        #expect(fleet.engine.phone(named: "pixel")?.doze == false)
        var phone = DeviceSettings(name: "p", platform: .android, doze: true)
        phone.permission = .default
        #expect(phone.fitted.permission == nil && phone.fitted.doze)
        #expect(DeviceSettings(name: "w", platform: .web, doze: true).fitted.doze == false)
    }

    @Test func getTokenAndDeleteTokenAreRefusedWhileTheAppIsUninstalled() {
        var fleet = Fleet([Self.browser()])
        fleet.run(.uninstall, on: "browser")
        for command in [PhoneCommand.getToken(sender: nil), .deleteToken(sender: nil)] {
            #expect(fleet.run(command, on: "browser").map(\.name) == ["commandRefused"])
        }
        #expect(fleet.token(of: "browser") == nil)
    }

    @Test func aDeletedTokensTopicSubscriptionsGoWithIt() {
        var fleet = Fleet([Self.browser()])
        fleet.run(
            .topics(
                TopicOrder(sender: Harness.sender, topic: "news", tokens: [], change: .add, api: .v1),
                phones: ["browser"]))
        fleet.run(.deleteToken(sender: nil), on: "browser")
        fleet.run(.getToken(sender: nil), on: "browser")
        let events = fleet.run(.push(Self.message(to: "/topics/news")))
        #expect(events.named("onMessage").isEmpty)
        #expect(events.named("downstreamAccepted").first?["subscribers"] == .int(0))
    }

    @Test func aRelativeLinkIsTheAppsOwnAndAClickMakesTheTabVisible() {
        var fleet = Fleet([Self.browser(state: .background)])
        fleet.run(
            .push(
                Self.message(
                    to: fleet.token(of: "browser"), notification: Self.note + [KeyValue("click_action", "/inbox")])))
        let events = fleet.run(.tap(.last), on: "browser")
        #expect(events.named("notificationTapped").first?.string("window") == "focused")
        #expect(fleet.engine.phone(named: "browser")?.appState == .foreground)
        #expect(fleet.run(.push(Self.message(to: fleet.token(of: "browser")))).named("onMessage").count == 1)
        #expect(WebOrigin.host(of: "https://app.example.com:443/x") == WebOrigin.host(of: "https://app.example.com"))
        #expect(WebOrigin.host(of: "https://app.example.com:8443/x") != WebOrigin.host(of: "https://app.example.com"))
    }

    @Test func aBrowserNotificationWithTheTagOfOneShownReplacesIt() {
        var fleet = Fleet([Self.browser(state: .background)])
        for title in ["one", "two"] {
            fleet.run(
                .push(
                    Self.message(
                        to: fleet.token(of: "browser"),
                        notification: [KeyValue("title", title), KeyValue("tag", "score")])))
        }
        #expect(fleet.engine.phone(named: "browser")?.tray.map(\.title) == ["two"])
    }

    @Test func aPackageRestrictionIsAndroidsAnIPhoneAndABrowserTakeTheMessageAndSaySo() {
        var fleet = Fleet(SeveralDevicesTests.pair + [Self.browser()])
        var request = Self.message(to: fleet.token(of: "iphone"))
        request.details = MessageDetails(restrictedPackageName: "com.other.app")
        let events = fleet.run(.push(request))
        let received = events.named("didReceiveRemoteNotification").first
        #expect(received?["ignored"] == .list(["restricted_package_name"]))
        request.to = fleet.token(of: "browser")
        #expect(fleet.run(.push(request)).named("onMessage").count == 1)
        request.to = fleet.token(of: "pixel")
        #expect(fleet.run(.push(request)).named("downstreamRejected").first?.string("error") == "InvalidPackageName")
    }
}
