import FCMConnectionServer
import FCMEngine
import FCMHTTPAPI
import FCMSession
import Foundation
import Testing

@testable import FCMStore

/// The server with its device in a state file: acknowledgements wait for the disk,
/// and a restart finds what was acknowledged.
@Suite("Write-ahead on the live server", .serialized)
struct WriteAheadTests {
    static let configuration = EngineConfiguration(
        device: DeviceSettings(seed: 2), senders: [SenderConfig(id: "555", key: "k5", project: "p5")],
        appServer: .none)

    struct Running {
        let server: ConnectionServer
        let store: DeviceStore
        let token: String
    }

    func start(_ state: String, log: LiveHTTPTests.Log = LiveHTTPTests.Log()) async throws -> Running {
        let (store, opening) = try DeviceStore.open(
            path: state, configuration: Self.configuration, seedNamed: true
        ) { Issue.record("write failed: \($0)") }
        var options = ServerOptions()
        options.ccsPort = nil
        options.ccsPlainPort = 0
        options.httpPort = 0
        options.serviceAccountKey = LiveHTTPTests.key
        options.store = store
        let engine: DeviceEngine
        switch opening {
        case .new(let fresh): engine = fresh
        case .resumed(let saved, _):
            engine = saved
            options.resumed = true
        }
        let server = try await ConnectionServer.start(engine: engine, options: options) { event, _ in log.add(event) }
        try await server.startDevice()
        let token = server.host.box.read { $0.devices[0].tokens["555"] ?? "" }
        return Running(server: server, store: store, token: token)
    }

    func temporaryState() -> String {
        let folder = NSTemporaryDirectory() + "fcm-wal-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder + "/device.sqlite"
    }

    @Test("a CCS ack goes out only once the message is on disk")
    func ackWaitsForTheDisk() async throws {
        let state = temporaryState()
        let running = try await start(state)
        let client = try RawClient(port: try #require(running.server.ccsPlainPort))
        client.login()
        running.store.writer.pause()
        client.write(
            #"<message><gcm xmlns="google:mobile:data">{"to":"\#(running.token)","message_id":"w1"}</gcm></message>"#)
        let meanwhile = client.available(within: 300)
        #expect(!meanwhile.contains("message_type"), "an ack left before its message was on disk")
        running.store.writer.resume()
        #expect(client.read(until: "message_type").contains(#""message_id":"w1","message_type":"ack""#))
        try await running.server.stop()
    }

    @Test("an HTTP 200 goes out only once the message is on disk")
    func httpReplyWaitsForTheDisk() async throws {
        let state = temporaryState()
        let running = try await start(state)
        let client = try RawClient(port: try #require(running.server.httpPort))
        running.store.writer.pause()
        client.write(
            LiveHTTPTests.request(
                "POST", "/fcm/send", headers: ["Authorization: key=k5", "Content-Type: application/json"],
                body: #"{"to":"\#(running.token)","data":{"a":"1"}}"#))
        let meanwhile = await Task.detached { client.available(within: 300) }.value
        #expect(meanwhile.isEmpty, "the reply left before its message was on disk: \(meanwhile)")
        running.store.writer.resume()
        #expect(await client.reply(until: "]}").contains(#""success":1"#))
        try await running.server.stop()
    }

    @Test("after a stop, the same state brings back the token and the messages acknowledged")
    func restartResumes() async throws {
        let state = temporaryState()
        let first = try await start(state)
        let client = try RawClient(port: try #require(first.server.httpPort))
        var ids: [String] = []
        for n in 1...3 {
            client.write(
                LiveHTTPTests.request(
                    "POST", "/fcm/send", headers: ["Authorization: key=k5", "Content-Type: application/json"],
                    body: #"{"to":"\#(first.token)","data":{"n":"\#(n)"}}"#))
            let reply = await client.reply(until: "]}")
            if let range = reply.range(of: #""message_id":""#) {
                ids.append(String(reply[range.upperBound...].prefix { $0 != "\"" }))
            }
        }
        #expect(ids.count == 3)
        try await first.server.stop()

        let log = LiveHTTPTests.Log()
        let second = try await start(state, log: log)
        #expect(second.token == first.token)
        #expect(log.named("onNewToken").isEmpty)
        #expect(log.named("tokenResumed").first?.string("token") == first.token)
        #expect(log.named("stateResumed").count == 1)
        let inbox = second.server.host.box.read { $0.devices[0].inbox.map(\.id) }
        #expect(inbox == ids)
        try await second.server.stop()
    }

    @Test("after a kill, upstream the app server never acked is still held and goes out to the next app server")
    func unackedUpstreamSurvives() async throws {
        let state = temporaryState()
        let first = try await start(state)
        let before = try RawClient(port: try #require(first.server.ccsPlainPort))
        before.login()
        #expect(first.server.host.box.read { $0.server.realAppServers } == ["555"])
        let upstream = UpstreamRequest(
            to: "555@fcm.googleapis.com", messageID: "held-1", timeToLive: 3_600, data: [DataItem("k", .string("v"))])
        try await first.server.apply(.on(.send(upstream)))
        #expect(first.server.host.box.read { $0.server.awaitingAck.map(\.message.id) } == ["held-1"])
        // Killed: nothing after this point reaches the file (not the app server leaving).
        first.store.abandon()
        try await first.server.stop()

        let second = try await start(state)
        #expect(second.server.host.box.read { $0.server.awaitingAck.map(\.message.id) } == ["held-1"])
        // The app server connected before the stop is not taken to be there now.
        #expect(second.server.host.box.read { $0.server.realAppServers.isEmpty })
        let client = try RawClient(port: try #require(second.server.ccsPlainPort))
        client.login()
        let delivered = client.read(until: "held-1")
        #expect(delivered.contains(#""message_id":"held-1""#), "got: \(delivered)")
        client.write(
            #"<message><gcm xmlns="google:mobile:data">{"to":"x","message_id":"held-1","message_type":"ack"}</gcm></message>"#
        )
        _ = client.available(within: 300)
        #expect(second.server.host.box.read { $0.server.awaitingAck.isEmpty })
        try await second.server.stop()
    }

    @Test("a receipt no app server acked survives a kill and goes to the next app server; once acked, it does not")
    func owedReceiptSurvives() async throws {
        let state = temporaryState()
        let first = try await start(state)
        let client = try RawClient(port: try #require(first.server.ccsPlainPort))
        client.login()
        client.write(
            #"<message><gcm xmlns="google:mobile:data">{"to":"\#(first.token)","message_id":"r1","delivery_receipt_requested":true}</gcm></message>"#
        )
        #expect(client.read(until: "MESSAGE_SENT_TO_DEVICE").contains(#""message_id":"dr2:r1""#))
        first.store.waitUntilDurable(first.store.appendedSeq)
        first.store.abandon()
        try await first.server.stop()

        let second = try await start(state)
        #expect(second.server.host.box.read { $0.server.owedReceipts.map(\.id) } == ["dr2:r1"])
        let next = try RawClient(port: try #require(second.server.ccsPlainPort))
        next.login()
        #expect(next.read(until: "MESSAGE_SENT_TO_DEVICE").contains(#""original_message_id":"r1""#))
        next.write(
            #"<message><gcm xmlns="google:mobile:data">{"to":"x","message_id":"dr2:r1","message_type":"ack"}</gcm></message>"#
        )
        _ = next.available(within: 300)
        #expect(second.server.host.box.read { $0.server.owedReceipts.isEmpty })
        try await second.server.stop()

        let third = try await start(state)
        let last = try RawClient(port: try #require(third.server.ccsPlainPort))
        last.login()
        #expect(!last.available(within: 400).contains("MESSAGE_SENT_TO_DEVICE"))
        try await third.server.stop()
    }

    @Test("a bearer token granted before a restart still sends after it")
    func bearerTokensSurvive() async throws {
        let state = temporaryState()
        let first = try await start(state)
        let bearer = try await LiveHTTPTests.grantBearer(port: try #require(first.server.httpPort), project: "p5")
        try await first.server.stop()

        let second = try await start(state)
        let client = try RawClient(port: try #require(second.server.httpPort))
        client.write(
            LiveHTTPTests.request(
                "POST", "/v1/projects/p5/messages:send", headers: ["authorization: Bearer \(bearer)"],
                body: #"{"message":{"token":"\#(second.token)","data":{"k":"v"}}}"#))
        let sent = await client.reply(until: "\"}")
        #expect(sent.hasPrefix("HTTP/1.1 200 OK"), "\(sent)")
        // A token never granted is still refused.
        client.write(
            LiveHTTPTests.request(
                "POST", "/v1/projects/p5/messages:send", headers: ["authorization: Bearer ya29.fcmdevice.forged"],
                body: #"{"message":{"token":"\#(second.token)","data":{"k":"v"}}}"#))
        #expect(await client.reply(until: "UNAUTHENTICATED").hasPrefix("HTTP/1.1 401"))
        try await second.server.stop()
    }
}
