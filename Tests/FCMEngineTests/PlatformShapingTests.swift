import FCMEngine
import Testing

/// A v1 message keeps its `android` and `apns` blocks; the engine applies the block
/// of each phone's platform when a copy reaches it.
@Suite("Messages shaped per phone")
struct PlatformShapingTests {
    /// An Android phone first, then an iPhone: the order that once shaped every copy
    /// for Android.
    static let mixed = SeveralDevicesTests.pair

    static func blocks(expiresAt: Int64? = nil) -> PlatformOverrides {
        PlatformOverrides(
            android: MessageOverride(collapseKey: "android-key", notification: [KeyValue("title", "Android")]),
            apns: MessageOverride(
                collapseKey: "apns-key", priority: "high", expiresAtUnixSeconds: expiresAt,
                notification: [KeyValue("title", "Apple")]))
    }

    /// A v1 send as the HTTP API hands it to the device: the request and its blocks.
    static func order(to: String?, overrides: PlatformOverrides) -> SendOrder {
        let request = DownstreamRequest(
            sender: Harness.sender, to: to, data: [KeyValue("k", "v")],
            notification: [KeyValue("body", "Both"), KeyValue("title", "Base")])
        return SendOrder(request, overrides: overrides)
    }

    /// The message a phone got: delivered to the app, or posted to its tray.
    static func received(_ fleet: Fleet, _ phone: String) -> (collapseKey: String?, title: String?) {
        let installation = fleet.engine.phone(named: phone)
        if let message = installation?.inbox.last {
            return (message.collapseKey, message.notification?.first { $0.key == "title" }?.value)
        }
        return (nil, installation?.tray.last?.title)
    }

    @Test func aTopicSendAcrossAMixedFleetIsShapedForEachPhone() {
        var fleet = Fleet(Self.mixed)
        for phone in ["pixel", "iphone"] { fleet.run(.subscribe(topic: "news", sender: nil), on: phone) }
        fleet.send(Self.order(to: "/topics/news", overrides: Self.blocks()))
        #expect(Self.received(fleet, "pixel") == ("android-key", "Android"))
        #expect(Self.received(fleet, "iphone") == ("apns-key", "Apple"))
    }

    @Test func aMessageToAnIPhonesTokenTakesTheAPNsBlockWhenTheFirstPhoneIsAndroid() {
        var fleet = Fleet(Self.mixed)
        fleet.send(Self.order(to: fleet.token(of: "iphone"), overrides: Self.blocks()))
        #expect(Self.received(fleet, "iphone") == ("apns-key", "Apple"))
        fleet.send(Self.order(to: fleet.token(of: "pixel"), overrides: Self.blocks()))
        #expect(Self.received(fleet, "pixel") == ("android-key", "Android"))
    }

    @Test func aBlockForAnotherPlatformLeavesTheMessageAsItIs() {
        var fleet = Fleet(Self.mixed)
        let onlyAndroid = PlatformOverrides(android: MessageOverride(notification: [KeyValue("title", "Android")]))
        fleet.send(Self.order(to: fleet.token(of: "iphone"), overrides: onlyAndroid))
        #expect(Self.received(fleet, "iphone") == (nil, "Base"))
    }

    @Test func apnsExpirationIsATimeToLiveOnTheEnginesWallClock() {
        var fleet = Fleet(Self.mixed)
        fleet.run(.setNetwork(.offline), on: "iphone")
        // The replay's fixed reading of the UNIX time: an hour from it is an hour to live.
        let replayNow = WallClock.replayDefault.unixMillis / 1_000
        fleet.send(Self.order(to: fleet.token(of: "iphone"), overrides: Self.blocks(expiresAt: replayNow + 3_600)))
        let index = fleet.engine.deviceNumber(named: "iphone")!
        #expect(fleet.engine.heldMessages(ofPhoneAt: index).last?.expiresAt == 3_600_000)
        // A shell on the real clock says what time it is; the expiry is read against that.
        fleet.run(.setWallClock(unixMillis: 2_000_000_000_000), after: 10_000)
        fleet.send(Self.order(to: fleet.token(of: "iphone"), overrides: Self.blocks(expiresAt: 2_000_000_060)))
        // Ten seconds into the engine's time, a minute to live: it expires at 70 s.
        #expect(fleet.engine.heldMessages(ofPhoneAt: index).last?.expiresAt == Millis(70_000))
        // Zero is now or never: the phone is offline, so never.
        let events = fleet.send(Self.order(to: fleet.token(of: "iphone"), overrides: Self.blocks(expiresAt: 0)))
        #expect(events.named("discarded").first?.string("reason") == "ttl-zero")
    }

    @Test func theWallClockOutlivesAReset() {
        var fleet = Fleet(Self.mixed)
        fleet.run(.setWallClock(unixMillis: 2_000_000_000_000))
        fleet.run(.reset, after: 5_000)
        #expect(fleet.engine.wallClock.unixSeconds(at: fleet.engine.now) == 2_000_000_005)
    }
}

extension Fleet {
    /// Hands the device one order, as the HTTP APIs do.
    @discardableResult
    mutating func send(_ order: SendOrder) -> [Event] {
        var new: [Event] = []
        _ = engine.handle(.input(.send([order]), at: engine.now), into: &new).sendOutcome!
        events += new
        return new
    }
}

@Suite("Messages shaped per phone: bad blocks")
struct BadPlatformBlockTests {
    @Test func aTopicSendWithABadBlockIsRefusedAsAMessageToOneTokenIs() {
        var fleet = Fleet(SeveralDevicesTests.pair)
        for phone in ["pixel", "iphone"] { fleet.run(.subscribe(topic: "news", sender: nil), on: phone) }
        let tooLong = PlatformOverrides(android: MessageOverride(timeToLive: ServiceLimits.maxTimeToLive + 1))
        let topic = fleet.send(PlatformShapingTests.order(to: "/topics/news", overrides: tooLong))
        #expect(topic.named("downstreamRejected").first?.string("error") == "InvalidTtl")
        #expect(topic.named("downstreamAccepted").isEmpty)
        let token = fleet.send(PlatformShapingTests.order(to: fleet.token(of: "pixel"), overrides: tooLong))
        #expect(token.named("downstreamRejected").first?.string("error") == "InvalidTtl")
        let badData = PlatformOverrides(android: MessageOverride(data: [KeyValue("google.x", "1")]))
        let data = fleet.send(PlatformShapingTests.order(to: "/topics/news", overrides: badData))
        #expect(data.named("downstreamRejected").first?.string("error") == "InvalidDataKey")
    }
}
