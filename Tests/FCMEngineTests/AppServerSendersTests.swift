import FCMEngine
import Foundation
import Testing

/// Who may act as an app server is the engine's answer, asked live: every sender some
/// phone registers with, as phones gain and lose senders.
@Suite("App-server senders")
struct AppServerSendersTests {
    /// The pixel registers with the test sender, the iphone with the other one only.
    static let split = [
        DeviceSpec(DeviceSettings(name: "pixel", seed: 1), senders: [Harness.sender]),
        DeviceSpec(DeviceSettings(name: "iphone", platform: .ios, seed: 1), senders: [Harness.other]),
    ]

    @Test func aSenderOnlyTheSecondPhoneRegistersWithMayLogIn() {
        let fleet = Fleet(Self.split, senders: [Harness.sender, Harness.other])
        let senders = fleet.engine.appServerSenders
        #expect(senders.all.map(\.id) == [Harness.sender, Harness.other])
        #expect(senders.sender(key: "key-\(Harness.other)")?.id == Harness.other)
        #expect(senders.sender(id: Harness.other, key: "key-\(Harness.other)") != nil)
        #expect(senders.sender(project: Harness.other)?.id == Harness.other)
        #expect(senders.sender(id: Harness.other, key: "key-\(Harness.sender)") == nil)
        #expect(senders.sender(key: "no-such-key") == nil)
    }

    @Test func aSenderAddedWhileRunningIsAcceptedAtOnce() {
        var fleet = Fleet(Self.split, senders: [Harness.sender, Harness.other])
        #expect(fleet.engine.appServerSenders.sender(key: "late-key") == nil)
        fleet.run(.addSender(SenderConfig(id: "555", key: "late-key", project: "late-project")), on: "iphone")
        #expect(fleet.engine.appServerSenders.sender(key: "late-key")?.id == "555")
        #expect(fleet.engine.appServerSenders.sender(project: "late-project")?.id == "555")
    }

    @Test func aSenderNoPhoneRegistersWithAnyMoreIsRefusedAtOnce() {
        var fleet = Fleet(Self.pair, senders: [Harness.sender, Harness.other])
        // Both phones register with both senders: removing it from one keeps it.
        fleet.run(.removeSender(Harness.other), on: "pixel")
        #expect(fleet.engine.appServerSenders.sender(id: Harness.other) != nil)
        fleet.run(.removeSender(Harness.other), on: "iphone")
        #expect(fleet.engine.appServerSenders.sender(id: Harness.other) == nil)
        #expect(fleet.engine.appServerSenders.sender(key: "key-\(Harness.other)") == nil)
        #expect(fleet.engine.appServerSenders.sender(id: Harness.sender) != nil)
    }

    @Test func aPhoneThatJoinsBringsItsSenders() {
        var fleet = Fleet(
            [DeviceSpec(DeviceSettings(name: "pixel", seed: 1), senders: [Harness.sender])],
            senders: [Harness.sender, Harness.other])
        #expect(fleet.engine.appServerSenders.sender(id: Harness.other) == nil)
        fleet.run(.addDevice(DeviceSpec(DeviceSettings(name: "tablet", seed: 2), senders: [Harness.other])))
        #expect(fleet.engine.appServerSenders.sender(id: Harness.other) != nil)
    }

    @Test func theSendersAreRebuiltWhenASavedDeviceOpens() throws {
        var fleet = Fleet(Self.split, senders: [Harness.sender, Harness.other])
        fleet.run(.addSender(SenderConfig(id: "555", key: "late-key")), on: "pixel")
        let saved = try JSONEncoder().encode(fleet.engine)
        let restored = try JSONDecoder().decode(DeviceEngine.self, from: saved)
        #expect(restored.appServerSenders.all.map(\.id) == [Harness.sender, "555", Harness.other])
    }

    static let pair = SeveralDevicesTests.pair
}

@Suite("App-server senders: one key per sender, and across a reset")
struct AppServerSenderKeyTests {
    @Test func aSenderIDAddedOnAnotherPhoneWithAnotherKeyIsRefused() {
        var fleet = Fleet(SeveralDevicesTests.pair, senders: [Harness.sender])
        fleet.run(.addSender(SenderConfig(id: "555", key: "key-a")), on: "pixel")
        let refused = fleet.run(.addSender(SenderConfig(id: "555", key: "key-b")), on: "iphone")
        #expect(refused.named("commandRefused").first?.string("detail")?.contains("one server key") == true)
        let same = fleet.run(.addSender(SenderConfig(id: "555", key: "key-a")), on: "iphone")
        #expect(same.named("commandRefused").isEmpty)
        #expect(fleet.engine.appServerSenders.sender(key: "key-b") == nil)
    }

    @Test func aResetMovesTheRevisionOnEvenWhenTheCountsMatch() {
        var fleet = Fleet(SeveralDevicesTests.pair, senders: [Harness.sender, Harness.other])
        fleet.run(.removeSender(Harness.other), on: "pixel")
        fleet.run(.removeSender(Harness.other), on: "iphone")
        fleet.run(.addSender(SenderConfig(id: "555", key: "late")), on: "pixel")
        let before = fleet.engine.appServerSendersRevision
        fleet.run(.reset)
        #expect(fleet.engine.appServerSendersRevision != before)
        #expect(fleet.engine.appServerSenders.sender(id: Harness.other) != nil)
        #expect(fleet.engine.appServerSenders.sender(id: "555") == nil)
    }
}
