import FCMEngine
import Testing

@testable import FCMConnectionServer

/// CCS logins ask the device at each login who may act as an app server: every
/// sender some phone registers with, as senders come and go.
@Suite("CCS logins for every phone's senders")
struct CCSFleetLoginTests {
    static let success = "<success xmlns=\"urn:ietf:params:xml:ns:xmpp-sasl\"/>"
    static let refused = "<not-authorized/>"

    /// The pixel registers with the first sender only, the iPhone with the second only.
    static func split() -> EngineConfiguration {
        var configuration = EngineConfiguration(
            device: DeviceSettings(name: "pixel", seed: 1),
            senders: [SenderConfig(id: "111", key: "key-111"), SenderConfig(id: "222", key: "key-222")])
        configuration.devices = [
            DeviceSpec(DeviceSettings(name: "pixel", seed: 1), senders: ["111"]),
            DeviceSpec(DeviceSettings(name: "iphone", platform: .ios, seed: 1), senders: ["222"]),
        ]
        return configuration
    }

    @Test func aSenderOnlyTheSecondPhoneRegistersWithLogsIn() throws {
        let ccs = try EmbeddedCCS(Self.split())
        try ccs.login(sender: "222", key: "key-222")
        #expect(try ccs.received().contains(Self.success))
    }

    @Test func aWrongKeyForThatSenderIsRefused() throws {
        let ccs = try EmbeddedCCS(Self.split())
        try ccs.login(sender: "222", key: "key-111")
        #expect(try ccs.received().contains(Self.refused))
    }

    @Test func aSenderAddedOrRemovedWhileRunningIsLetInOrKeptOutAtOnce() throws {
        let first = try EmbeddedCCS(Self.split())
        first.host.apply(.on(device: "pixel", .addSender(SenderConfig(id: "333", key: "key-333"))))
        try first.login(sender: "333", key: "key-333")
        #expect(try first.received().contains(Self.success))

        first.host.apply(.on(device: "iphone", .removeSender("222")))
        let second = try EmbeddedCCS(host: first.host, number: 2)
        try second.login(sender: "222", key: "key-222")
        #expect(try second.received().contains(Self.refused))
    }
}
