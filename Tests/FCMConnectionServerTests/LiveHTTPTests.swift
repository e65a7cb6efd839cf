import FCMConnectionServer
import FCMCredentials
import FCMDoor
import FCMEngine
import FCMHTTPAPI
import FCMJSON
import FCMProfiles
import FCMSession
import Foundation
import Testing

@Suite("Live HTTP send APIs on loopback", .serialized)
struct LiveHTTPTests {
    static let key = try! ServiceAccountKey.generate()

    final class Log: @unchecked Sendable {
        private let lock = NSLock()
        private var events: [Event] = []
        func add(_ event: Event) { lock.withLock { events.append(event) } }
        func named(_ name: String) -> [Event] { lock.withLock { events.filter { $0.name == name } } }
        var all: [Event] { lock.withLock { events } }
    }

    /// A server with the HTTP port only (`tls`: its HTTPS proxy too), playing `timeline`.
    func start(log: Log, tls: TLSIdentity? = nil, timeline: [Step] = []) async throws -> (
        ConnectionServer, port: Int, token: String
    ) {
        let configuration = EngineConfiguration(
            device: DeviceSettings(seed: 4), senders: [SenderConfig(id: "777", key: "k7", project: "p7")])
        var options = ServerOptions()
        options.ccsPort = nil
        options.ccsPlainPort = nil
        options.httpPort = 0
        options.tls = tls
        options.serviceAccountKey = Self.key
        let server = try await ConnectionServer.start(engine: DeviceEngine(configuration), options: options) {
            event, _ in log.add(event)
        }
        try await server.startDevice(timeline: timeline)
        let token = try await server.loop.submit { [host = server.host] in host.engine.devices[0].tokens["777"]! }
            .get()
        return (server, try #require(server.httpPort), token)
    }

    /// Signs an assertion with the test key and trades it for a bearer token at the
    /// token endpoint, over a socket.
    static func grantBearer(port: Int, project: String) async throws -> String {
        let now = Int(Date().timeIntervalSince1970)
        let header = Base64URL.encode(Array(#"{"alg":"RS256","typ":"JWT","kid":"\#(key.keyID)"}"#.utf8))
        let claims = Base64URL.encode(
            Array(
                #"{"iss":"fcm-device@\#(project).iam.gserviceaccount.com","aud":"https://oauth2.googleapis.com/token","scope":"https://www.googleapis.com/auth/firebase.messaging","iat":\#(now),"exp":\#(now + 3600)}"#
                    .utf8))
        let signature = Base64URL.encode(try key.sign(Data("\(header).\(claims)".utf8)))
        let grant = try RawClient(port: port)
        grant.write(
            request(
                "POST", "/token", headers: ["Content-Type: application/x-www-form-urlencoded"],
                body:
                    "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(header).\(claims).\(signature)"
            ))
        let granted = await grant.reply(until: "Bearer\"}")
        return String(try #require(granted.split(separator: "\"access_token\":\"").last?.split(separator: "\"").first))
    }

    static func request(_ method: String, _ path: String, headers: [String] = [], body: String = "") -> String {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n"
        for header in headers { text += header + "\r\n" }
        return text + "\r\n" + body
    }

    /// A legacy data message to `token` with the test sender's key, and `headers` besides.
    static func legacySend(to token: String, data: String = #"{"k":"v"}"#, headers: [String] = []) -> String {
        request(
            "POST", "/fcm/send", headers: ["Authorization: key=k7", "Content-Type: application/json"] + headers,
            body: #"{"to":"\#(token)","data":\#(data)}"#)
    }

    @Test("legacy send over a real socket, twice on one keep-alive connection")
    func legacyKeepAlive() async throws {
        let log = Log()
        let (server, port, token) = try await start(log: log)
        let client = try RawClient(port: port)
        let headers = ["Authorization: key=k7", "Content-Type: application/json"]
        for round in 1...2 {
            client.write(
                Self.request(
                    "POST", "/fcm/send", headers: headers, body: #"{"to":"\#(token)","data":{"r":"\#(round)"}}"#))
            let reply = await client.reply(until: "]}")
            #expect(reply.hasPrefix("HTTP/1.1 200 OK"))
            #expect(reply.contains(#""success":1"#))
        }
        #expect(log.named("onMessageReceived").count == 2)
        try await server.stop()
    }

    @Test("pipelined requests are answered in the order they came, sends and other routes mixed")
    func pipelinedRequestsKeepTheirOrder() async throws {
        let log = Log()
        let (server, port, token) = try await start(log: log)
        let send = { (n: Int) in Self.legacySend(to: token, data: #"{"n":"\#(n)"}"#) }
        let client = try RawClient(port: port)
        client.write(send(1) + send(2) + Self.request("GET", "/healthz") + send(3) + Self.request("GET", "/healthz"))
        var text = await client.reply(until: "ok\n")
        if text.components(separatedBy: "ok\n").count < 3 { text += await client.reply(until: "ok\n") }
        let replies = text.components(separatedBy: "HTTP/1.1 ").dropFirst()
        #expect(replies.count == 5)
        #expect(replies.map { $0.contains(#""success":1"#) } == [true, true, false, true, false])
        #expect(replies.map { $0.hasSuffix("ok\n") } == [false, false, true, false, true])
        #expect(
            log.named("onMessageReceived").map { $0.fields.first { $0.name == "data" }?.value } == [
                .map([KeyValue("n", "1")]), .map([KeyValue("n", "2")]), .map([KeyValue("n", "3")]),
            ])
        try await server.stop()
    }

    @Test("a send that asks to close the connection gets its reply, then the connection closes")
    func connectionCloseAfterASend() async throws {
        let log = Log()
        let (server, port, token) = try await start(log: log)
        let client = try RawClient(port: port)
        client.write(Self.legacySend(to: token, headers: ["Connection: close"]))
        let reply = await client.reply(until: "]}")
        #expect(reply.hasPrefix("HTTP/1.1 200 OK"))
        #expect(reply.lowercased().contains("connection: close"))
        #expect(client.closedByServer(), "the server closed the connection")
        try await server.stop()
    }

    @Test("a request with a body for another route that asks to close is answered, then the connection closes")
    func connectionCloseOnAnotherRoute() async throws {
        let (server, port, _) = try await start(log: Log())
        let client = try RawClient(port: port)
        client.write(
            Self.request(
                "POST", "/token", headers: ["Connection: close", "Content-Type: application/x-www-form-urlencoded"],
                body: "grant_type=password"))
        let reply = await client.reply(until: "\n\n")
        #expect(reply.hasPrefix("HTTP/1.1 400"), "\(reply)")
        #expect(client.closedByServer(), "the server closed the connection")
        try await server.stop()
    }

    @Test("a client that closes its side once its send is written still gets the reply, dated")
    func halfClosedClientGetsItsReply() async throws {
        let log = Log()
        let (server, port, token) = try await start(log: log)
        let client = try RawClient(port: port)
        client.write(Self.legacySend(to: token))
        shutdown(client.socket, Int32(SHUT_WR))
        let reply = await client.reply(until: "]}")
        #expect(reply.hasPrefix("HTTP/1.1 200 OK"))
        #expect(reply.contains(#""success":1"#))
        #expect(reply.lowercased().contains("\r\ndate: "), "\(reply)")
        #expect(log.named("onMessageReceived").count == 1)
        try await server.stop()
    }

    @Test(
        "a reset or GOAWAY fault closes an HTTP/1.1 connection with no reply; the next request is served",
        arguments: [(Fault.Kind.reset, "connection reset"), (.goaway, "HTTP/2 GOAWAY")])
    func connectionFaults(kind: Fault.Kind, does: String) async throws {
        let log = Log()
        let (server, port, token) = try await start(log: log)
        try await server.apply(.addFault(Fault(path: "/fcm/send", kind: kind, count: 1)))
        let headers = ["Authorization: key=k7", "Content-Type: application/json"]
        let body = #"{"to":"\#(token)","data":{"k":"v"}}"#
        let first = try RawClient(port: port)
        first.write(Self.request("POST", "/fcm/send", headers: headers, body: body))
        #expect(await first.reply(until: "\r\n\r\n").isEmpty, "no reply before the reset")
        let second = try RawClient(port: port)
        second.write(Self.request("POST", "/fcm/send", headers: headers, body: body))
        #expect(await second.reply(until: "]}").hasPrefix("HTTP/1.1 200 OK"))
        #expect(
            log.named("faultInjected").first?.fields.first { $0.name == "does" }?.value == .string(does))
        #expect(log.named("onMessageReceived").count == 1)
        try await server.stop()
    }

    @Test("a latency fault holds the reply (no reply before it could be due), then answers as usual")
    func latencyFault() async throws {
        let log = Log()
        let (server, port, token) = try await start(log: log)
        try await server.apply(.addFault(Fault(path: "/fcm/send", kind: .latency(600, jitter: 0), count: 1)))
        let client = try RawClient(port: port)
        client.write(
            Self.request(
                "POST", "/fcm/send", headers: ["Authorization: key=k7", "Content-Type: application/json"],
                body: #"{"to":"\#(token)","data":{"k":"v"}}"#))
        // A lower bound only: a busy machine can make the reply later, never earlier.
        #expect(client.available(within: 200).isEmpty)
        #expect(await client.reply(until: "]}").hasPrefix("HTTP/1.1 200 OK"))
        #expect(log.named("faultInjected").first?.fields.first { $0.name == "does" }?.value == .string("latency 600ms"))
        try await server.stop()
    }

    @Test("the token grant and a v1 send over a real socket; healthz answers ok")
    func v1OverSocket() async throws {
        let log = Log()
        let (server, port, token) = try await start(log: log)
        let bearer = try await Self.grantBearer(port: port, project: "p7")
        let send = try RawClient(port: port)
        send.write(
            Self.request(
                "POST", "/v1/projects/p7/messages:send", headers: ["authorization: Bearer \(bearer)"],
                body: #"{"message":{"token":"\#(token)","data":{"k":"v"}}}"#))
        let sent = await send.reply(until: "\"}")
        #expect(sent.hasPrefix("HTTP/1.1 200 OK"), "\(sent)")
        #expect(sent.contains(#"{"name":"projects/p7/messages/0:"#))
        let health = try RawClient(port: port)
        health.write(Self.request("GET", "/healthz"))
        #expect(await health.reply(until: "ok\n").hasSuffix("ok\n"))
        try await server.stop()
    }

    @Test("a body over the limit is 413 and the server goes on serving")
    func oversizedBody() async throws {
        let log = Log()
        let (server, port, token) = try await start(log: log)
        let client = try RawClient(port: port)
        let big = String(repeating: "a", count: HTTPSendService.maxBodyBytes + 10)
        client.write(Self.request("POST", "/fcm/send", headers: ["Authorization: key=k7"], body: big))
        #expect(await client.reply(until: "bytes\n").hasPrefix("HTTP/1.1 413"))
        let next = try RawClient(port: port)
        next.write(
            Self.request(
                "POST", "/fcm/send", headers: ["Authorization: key=k7", "Content-Type: application/json"],
                body: #"{"to":"\#(token)"}"#))
        #expect(await next.reply(until: "]}").contains(#""success":1"#))
        try await server.stop()
    }

    @Test("fifty clients at once are all answered, each message delivered once")
    func concurrentClients() async throws {
        let log = Log()
        let (server, port, token) = try await start(log: log)
        let clients = try (0..<50).map { _ in try RawClient(port: port) }
        for (index, client) in clients.enumerated() {
            client.write(
                Self.request(
                    "POST", "/fcm/send", headers: ["Authorization: key=k7", "Content-Type: application/json"],
                    body: #"{"to":"\#(token)","data":{"n":"\#(index)"}}"#))
        }
        for client in clients { #expect(await client.reply(until: "]}").contains(#""success":1"#)) }
        #expect(log.named("onMessageReceived").count == 50)
        try await server.stop()
    }

    @Test("hostile bodies get 400 (or 401) on their own connection; the next client is served")
    func hostileBodies() async throws {
        let log = Log()
        let (server, port, token) = try await start(log: log)
        let json = ["Authorization: key=k7", "Content-Type: application/json"]
        let deep = String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000)
        let cases: [([String], String, String)] = [
            (json, #"{"to":"\#(token)","data":\#(deep)}"#, "HTTP/1.1 400"),
            (json, "{\"to\":\"\u{FFFD}\", \"data\":{\"k\":\"\(String(repeating: "x", count: 10))", "HTTP/1.1 400"),
            (json, #"{"to":["\#(token)"]}"#, "HTTP/1.1 400"),
            (["Authorization: key=other", "Content-Type: application/json"], #"{"to":"\#(token)"}"#, "HTTP/1.1 401"),
        ]
        for (headers, body, status) in cases {
            let client = try RawClient(port: port)
            client.write(Self.request("POST", "/fcm/send", headers: headers, body: body))
            #expect(await client.reply(until: "\n\r\n").hasPrefix(status), "\(body.prefix(40))")
        }
        // A control character, then bytes that are not UTF-8, inside JSON strings.
        for inside: [UInt8] in [[1], [0xFF, 0xFE]] {
            let body = Array(#"{"to":"\#(token)","data":{"k":""#.utf8) + inside + Array(#""}}"#.utf8)
            let head =
                "POST /fcm/send HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\n"
                + json.map { $0 + "\r\n" }.joined() + "\r\n"
            let raw = try RawClient(port: port)
            raw.write(bytes: Array(head.utf8) + body)
            #expect(await raw.reply(until: "\n\r\n").hasPrefix("HTTP/1.1 400"))
        }
        let next = try RawClient(port: port)
        next.write(Self.request("POST", "/fcm/send", headers: json, body: #"{"to":"\#(token)"}"#))
        #expect(await next.reply(until: "]}").contains(#""success":1"#))
        #expect(log.named("onMessageReceived").count == 1)
        try await server.stop()
    }

    @Test("a client sending its request a byte at a time holds up no one, and is answered when it is done")
    func slowSender() async throws {
        let log = Log()
        let (server, port, token) = try await start(log: log)
        let headers = ["Authorization: key=k7", "Content-Type: application/json"]
        let slow = try RawClient(port: port)
        let request = Array(
            Self.request("POST", "/fcm/send", headers: headers, body: #"{"to":"\#(token)","data":{"slow":"1"}}"#).utf8)
        let trickle = Task.detached {
            for byte in request {
                slow.write(bytes: [byte])
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        let quick = try RawClient(port: port)
        for n in 1...20 {
            quick.write(
                Self.request("POST", "/fcm/send", headers: headers, body: #"{"to":"\#(token)","data":{"n":"\#(n)"}}"#))
            #expect(await quick.reply(until: "]}").contains(#""success":1"#))
        }
        await trickle.value
        #expect(await slow.reply(until: "]}").contains(#""success":1"#))
        #expect(log.named("onMessageReceived").count == 21)
        try await server.stop()
    }
}
