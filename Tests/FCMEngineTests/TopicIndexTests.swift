import Foundation
import Testing

@testable import FCMEngine

/// A topic's subscribers are read from an index kept as subscriptions change; it must
/// always name the phones a reading of every phone would.
@Suite("The index of each topic's phones")
struct TopicIndexTests {
    static let senders = ["111", "222"]
    static let topics = ["news", "sport", "weather"]

    /// Each phone subscribed to `topic` for `sender`, read from every phone.
    static func scanned(_ engine: DeviceEngine, _ topic: String, _ sender: String) -> [Int] {
        engine.devices.indices.filter { engine.devices[$0].topics[sender]?.contains(topic) == true }
    }

    static func expectIndexMatches(_ engine: DeviceEngine, _ step: String) {
        for sender in senders {
            for topic in topics {
                let indexed = engine.server.topicIndex.subscribers(of: topic, sender: sender)?.phones ?? []
                #expect(indexed == scanned(engine, topic, sender), "\(step): \(sender)/\(topic)")
            }
        }
    }

    @Test("subscriptions, unsubscriptions, uninstalls, deleted tokens, joins, resets and a save read back")
    func theIndexNamesThePhonesEveryPhoneSays() throws {
        var configuration = EngineConfiguration(senders: Self.senders.map { SenderConfig(id: $0, key: "k" + $0) })
        configuration.devices = [DeviceSpec(DeviceSettings(name: "phone", seed: 4), count: 40)]
        configuration.device = configuration.firstStartingDevice
        var engine = DeviceEngine(configuration)
        var events: [Event] = []
        engine.handle(.start(at: 0), into: &events)
        var random = SeededGenerator(seed: 11)
        func pick(_ count: Int) -> Int { Int(random.next() % UInt64(count)) }
        for step in 1...1_500 {
            let name = engine.devices[pick(engine.devices.count)].name
            let topic = Self.topics[pick(Self.topics.count)]
            let sender = Self.senders[pick(Self.senders.count)]
            let command: Input
            switch pick(20) {
            case 0..<9: command = .on(device: name, .subscribe(topic: topic, sender: sender))
            case 9..<13: command = .on(device: name, .unsubscribe(topic: topic, sender: sender))
            case 13: command = .on(device: name, .uninstall)
            case 14: command = .on(device: name, .reinstall)
            case 15: command = .on(device: name, .deleteToken(sender: sender))
            case 16: command = .on(device: name, .refreshToken(sender: nil))
            case 17: command = .addDevice(DeviceSpec(DeviceSettings(name: "joined-\(step)", seed: UInt64(step))))
            case 18 where pick(10) == 0: command = .reset
            default: command = .on(device: name, .setNetwork(pick(2) == 0 ? .offline : .online))
            }
            engine.handle(.input(command, at: Millis(step)), into: &events)
            Self.expectIndexMatches(engine, "step \(step)")
        }
        // Saved and read back, the index is made again from the phones.
        let restored = try JSONDecoder().decode(DeviceEngine.self, from: JSONEncoder().encode(engine))
        Self.expectIndexMatches(restored, "read back")
        #expect(Self.topics.contains { !Self.scanned(engine, $0, Self.senders[0]).isEmpty })
    }

    @Test func aSetOfPhonesIsReadInOrderSmallOrBig() {
        var set = PhoneSet()
        var expected = Set<Int>()
        var random = SeededGenerator(seed: 5)
        // Small: a sorted list; then past 1,024 members dense enough to be a bitmap.
        for _ in 0..<6_000 {
            let phone = Int(random.next() % 9_000)
            if random.next() % 4 == 0 {
                set.remove(phone)
                expected.remove(phone)
            } else {
                set.insert(phone)
                expected.insert(phone)
            }
            #expect(set.count == expected.count)
        }
        #expect(set.phones == expected.sorted())
        #expect(set.contains(expected.sorted()[0]))
        #expect(!set.contains(9_001))
    }
}
