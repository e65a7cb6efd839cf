import FCMEngine
import Foundation
import Testing

/// An engine with several phones, each registered with the test sender.
struct Fleet {
    var engine: DeviceEngine
    var events: [Event] = []
    var time: Millis = 0

    init(_ phones: [DeviceSpec], senders: [String] = [Harness.sender]) {
        var config = EngineConfiguration(senders: senders.map { SenderConfig(id: $0, key: "key-\($0)") })
        config.devices = phones
        config.device = phones[0].settings
        engine = DeviceEngine(config)
        engine.handle(.start(at: 0), into: &events)
    }

    func token(of phone: String, sender: String = Harness.sender) -> String? {
        engine.phone(named: phone)?.tokens[sender]
    }

    @discardableResult
    mutating func run(_ command: PhoneCommand, on phone: String? = nil, after: Millis = 0) -> [Event] {
        run(.on(device: phone, command), after: after)
    }

    @discardableResult
    mutating func run(_ command: Input, after: Millis = 0) -> [Event] {
        time += after
        let new = engine.handle(.input(command, at: time))
        events += new
        return new
    }

    @discardableResult
    mutating func push(to token: String?, topic: String? = nil, condition: String? = nil, priority: String? = nil)
        -> [Event]
    {
        let request = DownstreamRequest(
            sender: Harness.sender, to: token ?? topic.map { "/topics/" + $0 }, data: [KeyValue("k", "v")],
            priority: priority, condition: condition)
        return run(.push(request))
    }
}

extension Event {
    var device: String? { string("device") }
}

@Suite("Several devices")
struct SeveralDevicesTests {
    static let pair = [
        DeviceSpec(DeviceSettings(name: "pixel", seed: 1)),
        DeviceSpec(DeviceSettings(name: "iphone", platform: .ios, seed: 1)),
    ]

    @Test func eachPhoneIsItsOwnInstallationWithTokensOfItsOwn() {
        let fleet = Fleet(Self.pair)
        let pixel = fleet.token(of: "pixel")
        let iphone = fleet.token(of: "iphone")
        #expect(pixel != nil && iphone != nil)
        #expect(pixel != iphone)
        // Different instance ids, even with the same seed.
        #expect(pixel?.split(separator: ":").first != iphone?.split(separator: ":").first)
        let tokens = fleet.events.named("onNewToken") + fleet.events.named("didReceiveRegistrationToken")
        #expect(Set(tokens.compactMap(\.device)) == ["pixel", "iphone"])
    }

    @Test func aMessageToAPhonesTokenReachesThatPhoneOnly() {
        var fleet = Fleet(Self.pair)
        let events = fleet.push(to: fleet.token(of: "iphone"))
        let received = events.named("didReceiveRemoteNotification")
        #expect(received.count == 1)
        #expect(received.first?.device == "iphone")
        #expect(events.named("onMessageReceived").isEmpty)
        #expect(fleet.engine.phone(named: "iphone")?.inbox.count == 1)
        #expect(fleet.engine.phone(named: "pixel")?.inbox.isEmpty == true)
    }

    @Test func aDeviceCommandActsOnTheNamedPhoneAndANamelessOneIsRefusedOnAFleet() {
        var fleet = Fleet(Self.pair)
        fleet.run(.setNetwork(.offline), on: "iphone")
        #expect(fleet.engine.phone(named: "iphone")?.network == .offline)
        #expect(fleet.engine.phone(named: "pixel")?.network == .online)
        // Nothing falls back to the first phone: a fleet's phones are named.
        let events = fleet.run(.setDoze(true))
        #expect(events.names == ["commandRefused"])
        #expect(events[0].string("detail") == "this device has 2 phones; name one (pixel, iphone)")
        #expect(fleet.engine.devices.allSatisfy { !$0.doze })
        let asDefault = fleet.run(.setDoze(true), on: DeviceEngine.onlyPhoneName)
        #expect(
            asDefault[0].string("detail")
                == "this device has 2 phones, so default names none of them; name one: pixel, iphone")
    }

    @Test func onAPhoneOfItsOwnANamelessCommandAndDefaultAreThatPhone() {
        var phone = Fleet([DeviceSpec(DeviceSettings(name: "solo", seed: 1))])
        phone.run(.setDoze(true))
        #expect(phone.engine.devices[0].doze)
        phone.run(.setNetwork(.offline), on: "default")
        #expect(phone.engine.devices[0].network == .offline)
    }

    @Test func aCommandForAPhoneThatDoesNotExistIsRefusedNamingThePhonesThereAre() {
        var fleet = Fleet(Self.pair)
        let events = fleet.run(.setNetwork(.offline), on: "nokia")
        #expect(events.names == ["commandRefused"])
        #expect(events[0].string("detail") == "no device is named nokia; the phones are pixel, iphone")
    }

    @Test func eachPhoneHoldsItsOwnMessagesWhileOfflineAndGetsThemBack() {
        var fleet = Fleet(Self.pair)
        fleet.run(.setNetwork(.offline), on: "pixel")
        let stored = fleet.push(to: fleet.token(of: "pixel")).named("stored")
        #expect(stored.first?.device == "pixel")
        #expect(fleet.engine.phone(named: "pixel")?.stored.count == 1)
        #expect(fleet.engine.phone(named: "iphone")?.stored.isEmpty == true)
        let back = fleet.run(.setNetwork(.online), on: "pixel", after: 1_000).named("onMessageReceived")
        #expect(back.count == 1 && back.first?.device == "pixel")
    }

    @Test func aTopicFansOutToEverySubscribedPhoneByItsOwnRules() {
        var fleet = Fleet(Self.pair + [DeviceSpec(DeviceSettings(name: "tablet", seed: 1))])
        for phone in ["pixel", "iphone"] { fleet.run(.subscribe(topic: "news", sender: nil), on: phone) }
        fleet.run(.setDoze(true), on: "pixel")
        fleet.run(.setNetwork(.offline), on: "iphone")
        let events = fleet.push(to: nil, topic: "news", priority: "normal")
        #expect(events.named("downstreamAccepted").first?["subscribers"] == .int(2))
        let stored = events.named("stored")
        #expect(stored.map(\.device) == ["pixel", "iphone"])
        #expect(stored.map { $0.string("reason") } == ["doze", "offline"])
        // The tablet never subscribed: nothing for it.
        #expect(!events.contains { $0.device == "tablet" })
        let woke = fleet.run(.setDoze(false), on: "pixel", after: 10).named("onMessageReceived")
        #expect(woke.first?.string("from") == "/topics/news")
    }

    @Test func aConditionReachesOnlyThePhonesWhoseTopicsMatch() {
        var fleet = Fleet(Self.pair)
        fleet.run(.subscribe(topic: "a", sender: nil), on: "pixel")
        fleet.run(.subscribe(topic: "a", sender: nil), on: "iphone")
        fleet.run(.subscribe(topic: "b", sender: nil), on: "iphone")
        let events = fleet.push(to: nil, condition: "'a' in topics && 'b' in topics")
        #expect(events.named("downstreamAccepted").first?["subscribers"] == .int(1))
        #expect(events.named("didReceiveRemoteNotification").map(\.device) == ["iphone"])
        #expect(events.named("onMessageReceived").isEmpty)
    }

    @Test func anAppServerSubscribesTokensOfSeveralPhonesInOneCall() {
        var fleet = Fleet(Self.pair)
        let tokens = [fleet.token(of: "pixel")!, "unknown-token", fleet.token(of: "iphone")!]
        let outcome = fleet.engine.handle(
            .input(
                .topics(
                    TopicOrder(sender: Harness.sender, topic: "news", tokens: tokens, change: .add, api: .iid)),
                at: fleet.engine.now), into: &fleet.events
        ).topicOutcome!
        #expect(outcome == .results([nil, .invalidArgument, nil]))
        #expect(fleet.engine.phone(named: "pixel")?.topics(of: Harness.sender) == ["news"])
        #expect(fleet.engine.phone(named: "iphone")?.topics(of: Harness.sender) == ["news"])
        let subscribed = fleet.events.named("topicSubscribed").filter { $0.side == .server }
        #expect(subscribed.map(\.device) == ["pixel", "iphone"])
    }

    @Test func multicastAnswersEachTokenInOrderAndAnUninstalledPhoneIsNotRegistered() {
        var fleet = Fleet(Self.pair)
        let pixel = fleet.token(of: "pixel")!
        let iphone = fleet.token(of: "iphone")!
        fleet.run(.uninstall, on: "iphone")
        let orders = [pixel, iphone, "bogus"].map {
            SendOrder(DownstreamRequest(sender: Harness.sender, to: $0, data: [KeyValue("k", "v")]))
        }
        guard
            case .results(let results, _) = fleet.engine.handle(
                .input(.send(orders), at: fleet.engine.now), into: &fleet.events
            ).sendOutcome!
        else {
            Issue.record("the service is up; the orders should have results")
            return
        }
        #expect(results.count == 3)
        #expect((try? results[0].get()) != nil)
        #expect(results[1] == .failure(.notRegistered(iphone)))
        #expect(results[2] == .failure(.invalidRegistration("bogus")))
        #expect(fleet.engine.phone(named: "pixel")?.inbox.count == 1)
    }

    @Test func aDeviceGroupSpansPhones() {
        var fleet = Fleet(Self.pair)
        let members = [fleet.token(of: "pixel")!, fleet.token(of: "iphone")!]
        let made = fleet.engine.handle(
            .input(
                .group(
                    GroupOrder(sender: Harness.sender, operation: .create, name: "family", key: nil, tokens: members)),
                at: fleet.engine.now), into: &fleet.events
        ).groupOutcome!
        guard case .key(let key) = made else {
            Issue.record("the group should be made: \(made)")
            return
        }
        fleet.run(.setNetwork(.offline), on: "iphone")
        let orders = [SendOrder(DownstreamRequest(sender: Harness.sender, to: key, data: [KeyValue("k", "v")]))]
        guard
            case .results(_, let groups) = fleet.engine.handle(
                .input(.send(orders), at: fleet.engine.now), into: &fleet.events
            )
            .sendOutcome!
        else {
            Issue.record("the service is up")
            return
        }
        #expect(groups.first??.success == 2)
        #expect(fleet.engine.phone(named: "pixel")?.inbox.count == 1)
        #expect(fleet.engine.phone(named: "iphone")?.stored.count == 1)
    }

    @Test func upstreamFromASecondPhoneCarriesThatPhonesTokenAndApp() {
        var phones = Self.pair
        phones[1].settings.app = "com.example.ios"
        var fleet = Fleet(phones)
        let to = UpstreamRequest.address(sender: Harness.sender, sdk: .fcm)
        let events = fleet.run(.send(UpstreamRequest(to: to, messageID: "up-1")), on: "iphone")
        let forwarded = events.named("upstreamForwarded").first
        #expect(forwarded?.string("from") == fleet.token(of: "iphone"))
        #expect(forwarded?.string("category") == "com.example.ios")
        #expect(forwarded?.device == "iphone")
    }

    @Test func timersRunForEveryPhone() {
        var fleet = Fleet(Self.pair)
        fleet.run(.setNetwork(.offline), on: "iphone")
        let request = DownstreamRequest(
            sender: Harness.sender, to: fleet.token(of: "iphone"), data: [KeyValue("k", "v")], timeToLive: 5)
        fleet.run(.push(request))
        fleet.time += 6_000
        fleet.engine.handle(.advance(to: fleet.time), into: &fleet.events)
        let expired = fleet.events.named("expired")
        #expect(expired.map(\.device) == ["iphone"])
    }

    @Test func theNextDeadlineIsTheEarliestTimerOfAnyPhoneAndFollowsEachChange() throws {
        var fleet = Fleet(Self.pair + [DeviceSpec(DeviceSettings(name: "tablet", seed: 1))])
        #expect(fleet.engine.nextDeadline == nil)
        for phone in ["iphone", "tablet"] { fleet.run(.setNetwork(.offline), on: phone) }
        for (phone, ttl) in [("tablet", Int64(50)), ("iphone", 20)] {
            fleet.run(
                .push(
                    DownstreamRequest(
                        sender: Harness.sender, to: fleet.token(of: phone), data: [KeyValue("k", "v")],
                        timeToLive: ttl)))
        }
        #expect(fleet.engine.nextDeadline == 20_000)
        // The iPhone takes its message: its timer goes, the tablet's is next.
        fleet.run(.setNetwork(.online), on: "iphone", after: 1_000)
        #expect(fleet.engine.nextDeadline == 50_000)
        // A saved fleet finds the same deadline.
        var restored = try JSONDecoder().decode(DeviceEngine.self, from: JSONEncoder().encode(fleet.engine))
        #expect(restored.nextDeadline == 50_000)
        var events: [Event] = []
        restored.handle(.advance(to: 50_000), into: &events)
        #expect(events.named("expired").map(\.device) == ["tablet"])
        #expect(restored.nextDeadline == nil)
    }

    @Test func aPhoneJoinsAndRegistersWithItsSenders() {
        var fleet = Fleet(Self.pair, senders: [Harness.sender, Harness.other])
        let events = fleet.run(.addDevice(DeviceSpec(DeviceSettings(name: "watch"), senders: [Harness.other])))
        #expect(events.names == ["deviceAdded", "onNewToken"])
        #expect(events.allSatisfy { $0.device == "watch" })
        #expect(fleet.engine.phone(named: "watch")?.senders.map(\.id) == [Harness.other])
        let again = fleet.run(.addDevice(DeviceSpec(DeviceSettings(name: "pixel"))))
        #expect(again.names == ["commandRefused"])
        #expect(again.first?.string("detail") == "a device is already named pixel")
    }

    @Test func aFleetFromTheGeneratorFormHasDistinctNamesAndTokens() {
        let fleet = Fleet([DeviceSpec(DeviceSettings(name: "phone"), count: 50)])
        #expect(fleet.engine.devices.count == 50)
        #expect(fleet.engine.devices.first?.name == "phone-1")
        #expect(fleet.engine.devices.last?.name == "phone-50")
        let tokens = Set(fleet.engine.devices.compactMap { $0.tokens[Harness.sender] })
        #expect(tokens.count == 50)
    }

    @Test func oneDeviceEventsNameNoDevice() {
        var h = Harness()
        h.push()
        #expect(h.events.allSatisfy { $0["device"] == nil })
    }

    @Test func aSavedFleetDecodesToTheSamePhones() throws {
        var fleet = Fleet(Self.pair)
        fleet.run(.subscribe(topic: "news", sender: nil), on: "iphone")
        fleet.run(.setNetwork(.offline), on: "pixel")
        fleet.push(to: fleet.token(of: "pixel"))
        let data = try JSONEncoder().encode(fleet.engine)
        var restored = try JSONDecoder().decode(DeviceEngine.self, from: data)
        #expect(restored.devices.map(\.name) == ["pixel", "iphone"])
        #expect(restored.phone(named: "iphone")?.topics(of: Harness.sender) == ["news"])
        #expect(restored.phone(named: "pixel")?.stored.count == 1)
        // Tokens still find their phones after decoding.
        let events = restored.handle(.input(.on(device: "pixel", .setNetwork(.online)), at: 10))
        #expect(events.named("onMessageReceived").first?.device == "pixel")
    }

    @Test func resetBringsBackEveryPhoneOfTheProfile() {
        var fleet = Fleet(Self.pair)
        let before = fleet.engine.devices.map { $0.tokens }
        fleet.run(.addDevice(DeviceSpec(DeviceSettings(name: "extra"))))
        fleet.run(.refreshToken(sender: nil), on: "iphone")
        fleet.run(.reset)
        #expect(fleet.engine.devices.map(\.name) == ["pixel", "iphone"])
        #expect(fleet.engine.devices.map { $0.tokens } == before)
    }
}

@Suite("The engine's reply to a command")
struct CommandReplyTests {
    @Test("a refused command is answered .refused, a taken one .done, whatever events were made")
    func theReplySaysWhetherTheCommandWasTaken() {
        var fleet = Fleet(SeveralDevicesTests.pair)
        var events: [Event] = []
        #expect(fleet.engine.handle(.input(.on(device: "nokia", .setDoze(true)), at: 1), into: &events) == .refused)
        #expect(fleet.engine.handle(.input(.on(device: "pixel", .setDoze(true)), at: 2), into: &events) == .done)
        // Silent (a replay nobody reads): no event, and the reply still says.
        #expect(fleet.engine.handleSilently(.input(.on(.setDoze(true)), at: 3)) == .refused)
    }
}
