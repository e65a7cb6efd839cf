import FCMEngine
import Testing

/// What a message says besides its payload, as each platform's phone reads it: the
/// package it is restricted to, the notification fields the tray shows, `androidV2`'s
/// data-only wake-up, analytics labels, and what a platform ignores.
@Suite("Message details on the device")
struct MessageDetailsTests {
    /// An Android phone of `com.example.app` (the default app), an iPhone, and an
    /// Android phone of another package.
    static let trio =
        SeveralDevicesTests.pair + [DeviceSpec(DeviceSettings(name: "other", app: "com.other.app", seed: 1))]

    static func message(to: String?, notification: [KeyValue]? = nil, details: MessageDetails? = nil)
        -> DownstreamRequest
    {
        var request = DownstreamRequest(
            sender: Harness.sender, to: to, data: [KeyValue("k", "v")], notification: notification)
        request.details = details
        return request
    }

    @Test func aMessageRestrictedToAnotherPackageThanTheTokensAppIsRefused() {
        var fleet = Fleet(Self.trio)
        let restricted = MessageDetails(restrictedPackageName: "com.other.app")
        let refused = fleet.run(.push(Self.message(to: fleet.token(of: "pixel"), details: restricted)))
        let rejection = refused.named("downstreamRejected").first
        #expect(rejection?.string("error") == "InvalidPackageName")
        #expect(rejection?.string("detail")?.contains("com.other.app") == true)
        #expect(fleet.engine.phone(named: "pixel")?.inbox.isEmpty == true)
        let taken = fleet.run(.push(Self.message(to: fleet.token(of: "other"), details: restricted)))
        #expect(taken.named("onMessageReceived").first?.device == "other")
    }

    @Test func aPackageMismatchHasEachInterfacesName() {
        let error = DownstreamError.invalidPackageName(restricted: "a.b", app: "c.d")
        #expect(error.legacyName == "InvalidPackageName")
        #expect(error.v1Code == "INVALID_ARGUMENT")
        #expect(error.ccsCode == "INVALID_JSON")
    }

    @Test func aTopicMessageRestrictedToAPackageReachesOnlyThatPackagesAndroidApps() {
        var fleet = Fleet(Self.trio)
        for phone in ["pixel", "iphone", "other"] { fleet.run(.subscribe(topic: "news", sender: nil), on: phone) }
        let events = fleet.run(
            .push(Self.message(to: "/topics/news", details: MessageDetails(restrictedPackageName: "com.other.app"))))
        let accepted = events.named("downstreamAccepted").first
        // The Android app of another package is left out; an iPhone ignores the restriction.
        #expect(accepted?["subscribers"] == .int(2))
        #expect(accepted?["other_package"] == .int(1))
        #expect(events.named("onMessageReceived").map(\.device) == ["other"])
        #expect(events.named("didReceiveRemoteNotification").first?["ignored"] == .list(["restricted_package_name"]))
    }

    @Test func androidsTrayShowsTheNotificationFieldsItReadsAndNamesTheOnesItIgnores() {
        var fleet = Fleet(Self.trio)
        fleet.run(.setAppState(.background), on: "pixel")
        let notification = [
            KeyValue("title", "T"), KeyValue("color", "#ff0000"), KeyValue("channel_id", "news"),
            KeyValue("visibility", "PRIVATE"), KeyValue("notification_count", "3"), KeyValue("subtitle", "iOS only"),
        ]
        let events = fleet.run(.push(Self.message(to: fleet.token(of: "pixel"), notification: notification)))
        let posted = events.named("notificationPosted").first
        #expect(posted?.string("color") == "#ff0000")
        #expect(posted?.string("channel_id") == "news")
        #expect(posted?.string("visibility") == "PRIVATE")
        #expect(posted?.string("notification_count") == "3")
        #expect(posted?["subtitle"] == nil)
        #expect(posted?["ignored"] == .list(["notification.subtitle"]))
    }

    @Test func anIPhoneShowsSubtitleAndBadgeAndIgnoresAndroidsColour() {
        var fleet = Fleet(Self.trio)
        fleet.run(.setAppState(.background), on: "iphone")
        let notification = [
            KeyValue("title", "T"), KeyValue("subtitle", "S"), KeyValue("badge", "2"), KeyValue("color", "#00ff00"),
        ]
        let events = fleet.run(.push(Self.message(to: fleet.token(of: "iphone"), notification: notification)))
        let posted = events.named("notificationPosted").first
        #expect(posted?.string("subtitle") == "S")
        #expect(posted?.string("badge") == "2")
        #expect(posted?["color"] == nil)
        #expect(posted?["ignored"] == .list(["notification.color"]))
    }

    @Test func aStickyNotificationStaysInAndroidsTrayWhenTappedAndATapNamesItsClickAction() {
        var fleet = Fleet(Self.trio)
        fleet.run(.setAppState(.background), on: "pixel")
        let notification = [KeyValue("title", "T"), KeyValue("sticky", "true"), KeyValue("click_action", "OPEN_NEWS")]
        fleet.run(.push(Self.message(to: fleet.token(of: "pixel"), notification: notification)))
        let tapped = fleet.run(.tap(.last), on: "pixel").named("notificationTapped").first
        #expect(tapped?.string("click_action") == "OPEN_NEWS")
        #expect(tapped?["sticky"] == .bool(true))
        #expect(fleet.engine.phone(named: "pixel")?.tray.count == 1)
        // Without `sticky`, a tap takes the notification away.
        fleet.run(.push(Self.message(to: fleet.token(of: "pixel"), notification: [KeyValue("title", "U")])))
        fleet.run(.tap(.last), on: "pixel")
        #expect(fleet.engine.phone(named: "pixel")?.tray.count == 1)
    }

    @Test func stickyIsAndroidsAnIPhoneTakesATappedNotificationAway() {
        var fleet = Fleet(Self.trio)
        fleet.run(.setAppState(.background), on: "iphone")
        let notification = [KeyValue("title", "T"), KeyValue("sticky", "true")]
        fleet.run(.push(Self.message(to: fleet.token(of: "iphone"), notification: notification)))
        fleet.run(.tap(.last), on: "iphone")
        #expect(fleet.engine.phone(named: "iphone")?.tray.isEmpty == true)
    }

    @Test func androidV2BackgroundSyncWakesThePhoneWithDataOnly() {
        var fleet = Fleet(Self.trio)
        fleet.run(.setAppState(.background), on: "pixel")
        var sync = MessageOverride(data: [KeyValue("sync", "1")])
        sync.dataOnly = true
        sync.blockName = "android_v2"
        let order = SendOrder(
            Self.message(to: fleet.token(of: "pixel"), notification: [KeyValue("title", "Shown elsewhere")]),
            overrides: PlatformOverrides(android: sync))
        let events = fleet.send(order)
        #expect(events.named("notificationPosted").isEmpty)
        let received = events.named("onMessageReceived").first
        #expect(received?["data"] == .map([KeyValue("sync", "1")]))
        #expect(received?["notification"] == nil)
    }

    @Test func blocksForAnotherPlatformAreShownAsIgnored() {
        var fleet = Fleet(Self.trio)
        let blocks = PlatformOverrides(
            android: MessageOverride(collapseKey: "a"), apns: MessageOverride(collapseKey: "i"),
            webpush: MessageOverride(data: [KeyValue("w", "1")]))
        let toPixel = fleet.send(SendOrder(Self.message(to: fleet.token(of: "pixel")), overrides: blocks))
        #expect(toPixel.named("onMessageReceived").first?["ignored"] == .list(["apns", "webpush"]))
        let toIPhone = fleet.send(SendOrder(Self.message(to: fleet.token(of: "iphone")), overrides: blocks))
        #expect(toIPhone.named("didReceiveRemoteNotification").first?["ignored"] == .list(["android", "webpush"]))
    }

    @Test func analyticsLabelIsShownAndDirectBootOnlyOnAndroidAndALiveActivityOnlyOnAnIPhone() {
        var fleet = Fleet(Self.trio)
        let details = MessageDetails(analyticsLabel: "spring", directBootOK: true, liveActivityToken: "activity-123")
        let pixel = fleet.run(.push(Self.message(to: fleet.token(of: "pixel"), details: details)))
        let onPixel = pixel.named("onMessageReceived").first
        #expect(onPixel?.string("analytics_label") == "spring")
        #expect(onPixel?["direct_boot_ok"] == .bool(true))
        #expect(onPixel?["live_activity_token"] == nil)
        let iphone = fleet.run(.push(Self.message(to: fleet.token(of: "iphone"), details: details)))
        let onIPhone = iphone.named("didReceiveRemoteNotification").first
        #expect(onIPhone?.string("analytics_label") == "spring")
        #expect(onIPhone?["direct_boot_ok"] == nil)
        #expect(onIPhone?.string("live_activity_token") != nil)
    }

    @Test func everyDetailFieldIsDeclaredForItsEvent() {
        var fleet = Fleet(Self.trio)
        fleet.run(.setAppState(.background), on: "pixel")
        let details = MessageDetails(analyticsLabel: "l", directBootOK: false, ignored: ["webpush"])
        let notification = [KeyValue("title", "T"), KeyValue("color", "#123456"), KeyValue("sticky", "true")]
        fleet.run(.push(Self.message(to: fleet.token(of: "pixel"), notification: notification, details: details)))
        fleet.run(.tap(.last), on: "pixel")
        Harness.checkDeclared(fleet.events)
    }
}
