import FCMConnectionServer
import FCMDoor
import FCMEngine
import FCMHTTPAPI
import FCMSession
import Foundation
import Testing

/// A topic's copies go out in batches on the loop that also reads the sockets: a
/// request that comes in meanwhile is answered between batches, not after the last.
@Suite("A topic fan-out and the other doors")
struct FanOutTurnTests {
    static let phones = 3_000

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
            event, _ in log.add(event)
        }
        try await server.startDevice()
        let lastToken = try await server.loop.submit { [host = server.host] in
            host.submit { engine, time in
                engine.devices.map { .input(.on(device: $0.name, .subscribe(topic: "news", sender: "777")), at: time) }
            }
            return host.engine.devices[Self.phones - 1].tokens["777"]!
        }.get()
        let port = try #require(server.httpPort)
        // Connections of their own, as an app server's pool opens them, made before the
        // topic's send: new connections go to the server's two loops in turn, so one
        // of them is read on the loop the batches run on.
        let clients = try (0..<4).map { _ in try RawClient(port: port) }
        func send(_ body: String, on client: RawClient) async -> String {
            client.write(
                LiveHTTPTests.request(
                    "POST", "/fcm/send", headers: ["Authorization: key=k7", "Content-Type: application/json"],
                    body: body))
            return await client.reply(until: "}")
        }
        let topic = await send(#"{"to":"/topics/news","data":{"n":"all"}}"#, on: clients[0])
        #expect(topic.hasPrefix("HTTP/1.1 200") && topic.contains("message_id"), "\(topic)")
        for (number, client) in clients.dropFirst().enumerated() {
            let one = await send(#"{"to":"\#(lastToken)","data":{"n":"one-\#(number)"}}"#, on: client)
            #expect(one.hasPrefix("HTTP/1.1 200") && one.contains("\"success\":1"), "\(one)")
        }
        // Every copy goes, in the end.
        let sends = clients.count - 1
        for _ in 0..<600 where log.named("onMessageReceived").count < Self.phones + sends {
            try await Task.sleep(for: .milliseconds(50))
        }
        let received = log.named("onMessageReceived")
        #expect(received.count == Self.phones + sends)
        let lastCopy = received.lastIndex { $0["data"] == .map([KeyValue("n", "all")]) } ?? -1
        for number in 0..<sends {
            let unicast = received.firstIndex { $0["data"] == .map([KeyValue("n", "one-\(number)")]) } ?? .max
            #expect(
                unicast < lastCopy,
                "send \(number) was taken after every copy of the topic (at \(unicast) of \(received.count))")
        }
        try await server.stop()
    }
}
