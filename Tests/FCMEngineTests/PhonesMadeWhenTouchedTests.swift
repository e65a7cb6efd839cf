import Foundation
import Testing

@testable import FCMEngine

@Suite("A phone the profile starts is made when a rule first changes it")
struct PhonesMadeWhenTouchedTests {
    static let sender = SenderConfig(id: "123456789012", key: "fleet-key")
    static let other = SenderConfig(id: "555555555555", key: "other-key")

    /// Android FCM phones, iPhones with the GCM SDK and two senders, and web apps.
    static let configuration: EngineConfiguration = {
        var configuration = EngineConfiguration(senders: [sender, other])
        configuration.devices = [
            DeviceSpec(DeviceSettings(name: "first", seed: 1)),
            DeviceSpec(DeviceSettings(name: "phone", seed: 3), senders: [sender.id], count: 40),
            DeviceSpec(DeviceSettings(name: "old", platform: .ios, sdk: .gcm, network: .offline, seed: 9), count: 20),
            DeviceSpec(DeviceSettings(name: "web", platform: .web, seed: 11), count: 3),
        ]
        configuration.device = configuration.firstStartingDevice
        return configuration
    }()

    static func started() -> (DeviceEngine, [Event]) {
        var engine = DeviceEngine(configuration)
        var events: [Event] = []
        engine.handle(.start(at: 5), into: &events)
        return (engine, events)
    }

    /// Every phone of `engine`, as JSON (the fields a store saves).
    static func saved(_ engine: DeviceEngine) throws -> [Data] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return try engine.devices.map { try encoder.encode($0) }
    }

    @Test("a started fleet makes only its first phone and its web apps; the others are read as started")
    func onlyTheFirstAndWebAppsAreMade() throws {
        let (engine, events) = Self.started()
        #expect(engine.devices.count == 64)
        #expect(engine.devices.madeCount == 4)
        // Every phone said its first tokens, in order, as a fleet made whole does.
        let named: Set<EventName> = [.onNewToken, .didReceiveRegistrationToken, .getToken]
        let tokens = events.filter { named.contains($0.kind) }.compactMap { $0.string("token") }
        #expect(tokens.count == 1 * 2 + 40 * 1 + 20 * 2 + 3 * 2)
        #expect(Set(tokens).count == tokens.count)
        for (index, phone) in engine.devices.enumerated() {
            for (sender, token) in phone.tokens {
                #expect(engine.device(holding: token) == index, "phone \(index)'s token of \(sender)")
                #expect(engine.activeOwner(of: token) == sender)
            }
        }
    }

    @Test("a phone made when first changed is the phone it was read as: every field the same")
    func madeIsAsRead() throws {
        var (engine, _) = Self.started()
        let before = try Self.saved(engine)
        for index in engine.devices.indices { _ = engine.make(index) }
        #expect(engine.devices.madeCount == 64)
        #expect(try Self.saved(engine) == before)
        // An offline phone was unreachable from the start, as the rules made it.
        #expect(engine.phone(named: "old-3")?.unreachableSince == 5)
        #expect(engine.phone(named: "phone-3")?.unreachableSince == nil)
    }

    @Test("a push to a phone as started finds it by its token and makes it")
    func pushMakesThePhone() throws {
        var (engine, _) = Self.started()
        let token = try #require(engine.phone(named: "phone-17")?.tokens[Self.sender.id])
        var events: [Event] = []
        engine.handle(
            .input(.push(DownstreamRequest(sender: Self.sender.id, to: token, data: [KeyValue("n", "1")])), at: 10),
            into: &events)
        let received = events.filter { $0.kind == .onMessageReceived }
        #expect(received.count == 1 && received.first?.string("device") == "phone-17")
        #expect(engine.devices.madeCount == 5)
        #expect(engine.phone(named: "phone-17")?.inbox.count == 1)
        // A token like a phone's but one character off belongs to no phone.
        var wrong = Array(token.utf8)
        wrong[wrong.count - 1] = wrong[wrong.count - 1] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(engine.device(holding: String(decoding: wrong, as: UTF8.self)) == nil)
    }

    @Test("a phone as started is found by its name, and its name is taken")
    func foundByName() {
        var (engine, _) = Self.started()
        #expect(engine.deviceNumber(named: "phone-40") == 40)
        #expect(engine.deviceNumber(named: "old-1") == 41)
        #expect(engine.deviceNumber(named: "phone-41") == nil)
        #expect(engine.deviceNameProblem("phone-12") == "a device is already named phone-12")
        var events: [Event] = []
        engine.handle(
            .input(.addDevice(DeviceSpec(DeviceSettings(name: "old-20", seed: 99))), at: 10), into: &events)
        #expect(events.contains { $0.kind == .commandRefused })
        #expect(engine.devices.count == 64)
    }

    @Test("a refreshed token leaves the phone findable by both its old and its new token")
    func refreshedTokenStillFound() throws {
        var (engine, _) = Self.started()
        let first = try #require(engine.phone(named: "old-4")?.tokens[Self.other.id])
        var events: [Event] = []
        engine.handle(.input(.on(device: "old-4", .refreshToken(sender: Self.other.id)), at: 10), into: &events)
        let new = try #require(engine.phone(named: "old-4")?.tokens[Self.other.id])
        #expect(new != first)
        #expect(engine.device(holding: first) == 44 && engine.device(holding: new) == 44)
        #expect(engine.activeOwner(of: first) == nil && engine.everOwner(of: first) == Self.other.id)
    }

    @Test("a token's identity is made without the token, for FCM and GCM alike")
    func identityWithoutTheToken() {
        for sdk in [SDK.fcm, .gcm] {
            let factory = TokenFactory(seed: 42, sdk: sdk)
            for installation in 0..<3 {
                let token = factory.token(sender: "123", installation: installation, refreshes: 1)
                #expect(
                    TokenFactory.identity(of: token)
                        == factory.identity(sender: "123", installation: installation, refreshes: 1))
            }
        }
        #expect(TokenFactory.identity(of: "not a token") == nil)
    }
}
