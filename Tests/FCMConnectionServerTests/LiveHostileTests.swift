import FCMConnectionServer
import FCMEngine
import FCMSession
import Foundation
import NIOCore
import Testing

/// Hostile app servers against the live server: each gets the protocol's error,
/// only its own connection closes where the protocol says so, and a well-behaved
/// app server connected beside it goes on being served.
@Suite("Hostile input on the live server", .serialized)
struct LiveHostileTests {
    static let senders = [SenderConfig(id: "555", key: "k5"), SenderConfig(id: "666", key: "k6")]

    struct Running {
        let server: ConnectionServer
        let port: Int
        let tokens: SenderMap<String>
    }

    func start(loginTimeout: TimeAmount? = nil) async throws -> Running {
        // A flood to one phone: a load test, with production's limits off.
        let configuration = EngineConfiguration(
            device: DeviceSettings(seed: 8), senders: Self.senders, appServer: .none,
            store: StorePolicy(deviceLimits: false))
        var options = ServerOptions()
        options.ccsPort = nil
        options.ccsPlainPort = 0
        options.loginTimeout = loginTimeout
        options.httpPort = 0
        options.serviceAccountKey = LiveHTTPTests.key
        let server = try await ConnectionServer.start(engine: DeviceEngine(configuration), options: options) { _, _ in }
        try await server.startDevice()
        let tokens = server.host.box.read { $0.devices[0].tokens }
        return Running(server: server, port: try #require(server.ccsPlainPort), tokens: tokens)
    }

    static func message(_ json: String) -> String {
        #"<message id=""><gcm xmlns="google:mobile:data">\#(json)</gcm></message>"#
    }

    /// The well-behaved neighbour: a message still goes through and is acked.
    func neighbourIsServed(_ client: RawClient, _ running: Running, id: String) {
        client.write(Self.message(#"{"to":"\#(running.tokens["555"]!)","message_id":"\#(id)"}"#))
        let reply = client.read(until: "message_type")
        #expect(reply.contains(#""message_id":"\#(id)","message_type":"ack""#), "neighbour got: \(reply)")
    }

    /// Reads until the server closes the connection (or the read timeout).
    func readToClose(_ client: RawClient) -> (text: String, closed: Bool) {
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(client.socket, &buffer, buffer.count, 0)
            if count == 0 { return (text, true) }
            // Closed with our bytes unread (a huge stanza): the peer resets.
            if count < 0 { return (text, errno == ECONNRESET) }
            text += String(decoding: buffer[0..<count], as: UTF8.self)
        }
    }

    /// Sends `hostile` on a connection of its own (logged in first when asked)
    /// and expects a stream error with `condition` and the close.
    func expectStreamError(
        _ condition: String, loggedIn: Bool, _ hostile: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let running = try await start()
        let neighbour = try RawClient(port: running.port)
        neighbour.login()
        let bad = try RawClient(port: running.port)
        if loggedIn {
            bad.login(sender: "666", key: "k6")
        } else {
            bad.write(LiveServerTests.header)
            _ = bad.read(until: "</stream:features>")
        }
        bad.write(bytes: hostile)
        let (text, closed) = readToClose(bad)
        #expect(
            text.contains("<stream:error>") && text.contains("<\(condition) "), "got: \(text)",
            sourceLocation: sourceLocation)
        #expect(closed, "the hostile connection stayed open", sourceLocation: sourceLocation)
        neighbourIsServed(neighbour, running, id: "after-\(condition)")
        try await running.server.stop()
    }

    @Test("malformed XML: not-well-formed, that connection closed")
    func malformedXML() async throws {
        try await expectStreamError("not-well-formed", loggedIn: true, Array("<message><gcm></message>".utf8))
    }

    @Test("truncated XML followed by garbage: not-well-formed")
    func truncatedXML() async throws {
        try await expectStreamError(
            "not-well-formed", loggedIn: true, Array("<message id='x'><gcm xmlns=\"google:mobile:data\">{\"a\"<<<".utf8)
        )
    }

    @Test("an XML bomb (entity declarations) is refused before any expansion: restricted-xml")
    func xmlBomb() async throws {
        var bomb = "<!DOCTYPE lolz [<!ENTITY lol \"lol\">"
        for level in 1...9 {
            bomb +=
                "<!ENTITY lol\(level) \""
                + String(repeating: "&lol\(level - 1 == 0 ? "" : String(level - 1));", count: 10) + "\">"
        }
        bomb += "]><message>&lol9;</message>"
        let running = try await start()
        let neighbour = try RawClient(port: running.port)
        neighbour.login()
        let bad = try RawClient(port: running.port)
        bad.write(bomb)
        let (text, closed) = readToClose(bad)
        #expect(text.contains("<restricted-xml "), "got: \(text)")
        #expect(closed)
        neighbourIsServed(neighbour, running, id: "after-bomb")
        try await running.server.stop()
    }

    @Test("a 1 MiB stanza: policy-violation once it passes the 64 KiB limit")
    func hugeStanza() async throws {
        let huge = Self.message(
            #"{"to":"x","message_id":"big","data":{"k":""# + String(repeating: "a", count: 1 << 20) + #""}}"#)
        try await expectStreamError("policy-violation", loggedIn: true, Array(huge.utf8))
    }

    @Test("invalid UTF-8 inside a stanza: not-well-formed")
    func invalidUTF8() async throws {
        try await expectStreamError(
            "not-well-formed", loggedIn: true,
            Array("<message id=''><gcm xmlns='google:mobile:data'>{\"to\":\"".utf8) + [0xC3, 0x28, 0xFF]
                + Array("\"}</gcm></message>".utf8))
    }

    @Test("a stanza before authentication: not-authorized")
    func unauthenticated() async throws {
        try await expectStreamError(
            "not-authorized", loggedIn: false, Array(Self.message(#"{"to":"x","message_id":"u"}"#).utf8))
    }

    @Test(
        "deep JSON, wrong types and another sender's token (CCS: BAD_REGISTRATION) are refused per message; the connection stays open"
    )
    func messageLevelRefusals() async throws {
        let running = try await start()
        let client = try RawClient(port: running.port)
        client.login(sender: "666", key: "k6")
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        client.write(Self.message(#"{"to":"t","message_id":"deep","data":\#(deep)}"#))
        #expect(client.read(until: "</message>").contains("<error"))
        client.write(Self.message(#"{"to":"\#(running.tokens["666"]!)","message_id":"types","time_to_live":"soon"}"#))
        let types = client.read(until: "</message>")
        #expect(types.contains(#""message_type":"nack""#) && types.contains("INVALID_JSON"), "got: \(types)")
        client.write(Self.message(#"{"to":"\#(running.tokens["555"]!)","message_id":"theirs"}"#))
        let theirs = client.read(until: "</message>")
        #expect(theirs.contains("BAD_REGISTRATION") && theirs.contains("belongs to another sender"), "got: \(theirs)")
        // Still open and served.
        client.write(Self.message(#"{"to":"\#(running.tokens["666"]!)","message_id":"fine"}"#))
        #expect(client.read(until: "message_type").contains(#""message_id":"fine","message_type":"ack""#))
        try await running.server.stop()
    }

    @Test("a client sending a byte at a time holds up no one, and is served when it is done")
    func slowSender() async throws {
        let running = try await start()
        let neighbour = try RawClient(port: running.port)
        neighbour.login()
        let slow = try RawClient(port: running.port)
        let header = Array(LiveServerTests.header.utf8)
        let trickle = Task.detached {
            for byte in header {
                slow.write(bytes: [byte])
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        for n in 1...20 { neighbourIsServed(neighbour, running, id: "while-slow-\(n)") }
        await trickle.value
        #expect(slow.read(until: "</stream:features>").contains("PLAIN"))
        try await running.server.stop()
    }

    @Test("a client that never reads is no longer read once its replies back up; others are served")
    func neverReads() async throws {
        let running = try await start()
        let neighbour = try RawClient(port: running.port)
        neighbour.login()
        let flooder = try RawClient(port: running.port)
        flooder.login()
        var small: Int32 = 65_536
        setsockopt(flooder.socket, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(flooder.socket, SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(flooder.socket, F_SETFL, fcntl(flooder.socket, F_GETFL) | O_NONBLOCK)
        let token = running.tokens["555"]!
        let accepted = await Task.detached { () -> Int in
            var total = 0
            var blockedSince: Date?
            var n = 0
            var unsent: [UInt8] = []
            while total < 96 << 20 {
                if unsent.isEmpty {
                    n += 1
                    unsent = Array(Self.message(#"{"to":"\#(token)","message_id":"f\#(n)"}"#).utf8)
                }
                let sent = unsent.withUnsafeBufferPointer { send(flooder.socket, $0.baseAddress, $0.count, 0) }
                if sent > 0 {
                    total += sent
                    unsent.removeFirst(sent)
                    blockedSince = nil
                } else {
                    if blockedSince == nil { blockedSince = Date() }
                    if Date().timeIntervalSince(blockedSince!) > 1 { break }
                    usleep(1_000)
                }
            }
            return total
        }.value
        // Without backpressure the server reads all 96 MiB and holds an ack for each (about 4 MiB with it).
        #expect(accepted < 32 << 20, "the server read \(accepted) bytes from a client that reads nothing")
        neighbourIsServed(neighbour, running, id: "beside-the-flood")
        try await running.server.stop()
    }

    @Test("over HTTP, a sender aiming at another sender's token gets MismatchSenderId; the next request is served")
    func httpMismatch() async throws {
        let running = try await start()
        let client = try RawClient(port: try #require(running.server.httpPort))
        let headers = ["Authorization: key=k6", "Content-Type: application/json"]
        client.write(
            LiveHTTPTests.request("POST", "/fcm/send", headers: headers, body: #"{"to":"\#(running.tokens["555"]!)"}"#))
        let theirs = await client.reply(until: "]}")
        #expect(theirs.contains(#""error":"MismatchSenderId""#), "got: \(theirs)")
        client.write(
            LiveHTTPTests.request("POST", "/fcm/send", headers: headers, body: #"{"to":"\#(running.tokens["666"]!)"}"#))
        #expect(await client.reply(until: "]}").contains(#""success":1"#))
        try await running.server.stop()
    }

    @Test("a client that does not reach a session in time gets connection-timeout and is closed")
    func loginTimeout() async throws {
        let running = try await start(loginTimeout: .milliseconds(300))
        let neighbour = try RawClient(port: running.port)
        neighbour.login()
        let idle = try RawClient(port: running.port)
        idle.write(String(LiveServerTests.header.prefix(20)))
        let (text, closed) = readToClose(idle)
        #expect(text.contains("<connection-timeout "), "got: \(text)")
        #expect(closed)
        // The neighbour logged in well before its own timeout, and stays.
        try await Task.sleep(for: .milliseconds(400))
        neighbourIsServed(neighbour, running, id: "after-timeout")
        try await running.server.stop()
    }
}
