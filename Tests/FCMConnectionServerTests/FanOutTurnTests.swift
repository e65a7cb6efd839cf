import FCMConnectionServer
import FCMEngine
import FCMHTTPAPI
import Foundation
import Testing

/// A topic's copies go out in batches on the loop that also reads the sockets: a
/// request that comes in meanwhile is answered between batches, not after the last.
@Suite("A topic fan-out and the other doors")
struct FanOutTurnTests {
    static let phones = 1_000

    @Test("a send that arrives while a topic's copies go out one a batch is taken before the last copy")
    func aSendIsTakenBetweenBatches() async throws {
        let log = LiveHTTPTests.Log()
        var configuration = EngineConfiguration(
            device: DeviceSettings(name: "phone", seed: 3),
            senders: [SenderConfig(id: "777", key: "k7", project: "p7")],
            store: StorePolicy(deviceLimits: false, fanOutBatch: 1))
        configuration.devices = [DeviceSpec(DeviceSettings(name: "phone", seed: 3), count: Self.phones)]
        var options = ServerOptions()
        options.ccsPort = nil
        options.ccsPlainPort = nil
        options.httpPort = 0
        options.serviceAccountKey = LiveHTTPTests.key
        let server = try await ConnectionServer.start(engine: DeviceEngine(configuration), options: options) {
            log.add($0)
        }
        try await server.startDevice()
        let lastToken = try await server.host.loop.submit { [host = server.host] in
            host.submit { engine, time in
                engine.devices.map { .apply(.on(device: $0.name, .subscribe(topic: "news", sender: "777")), at: time) }
            }
            return host.engine.devices[Self.phones - 1].tokens["777"]!
        }.get()
        let port = try #require(server.httpPort)
        // Each on a connection of its own, as an app server's pool opens them: a new
        // connection is accepted, and may be read, on the loop the batches run on.
        func send(_ body: String) async throws -> String {
            let client = try RawClient(port: port)
            client.write(
                LiveHTTPTests.request(
                    "POST", "/fcm/send", headers: ["Authorization: key=k7", "Content-Type: application/json"],
                    body: body))
            return await client.reply(until: "}")
        }
        let topic = try await send(#"{"to":"/topics/news","data":{"n":"all"}}"#)
        #expect(topic.hasPrefix("HTTP/1.1 200") && topic.contains("message_id"), "\(topic)")
        let one = try await send(#"{"to":"\#(lastToken)","data":{"n":"one"}}"#)
        #expect(one.hasPrefix("HTTP/1.1 200") && one.contains("\"success\":1"), "\(one)")
        // Every copy goes, in the end.
        for _ in 0..<600 where log.named("onMessageReceived").count < Self.phones + 1 {
            try await Task.sleep(for: .milliseconds(50))
        }
        let received = log.named("onMessageReceived")
        #expect(received.count == Self.phones + 1)
        let unicast = received.firstIndex { $0["data"] == .map([KeyValue("n", "one")]) }
        let lastCopy = received.lastIndex { $0["data"] == .map([KeyValue("n", "all")]) }
        #expect(unicast != nil && lastCopy != nil)
        #expect(
            (unicast ?? .max) < (lastCopy ?? 0),
            "the send was taken after every copy of the topic (at \(unicast ?? -1) of \(received.count))")
        try await server.stop()
    }
}
