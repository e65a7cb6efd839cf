import FCMConnectionServer
import FCMEngine
import FCMHTTPAPI
import FCMSession
import Foundation
import Testing

/// Every send takes one path, on the connection's event loop: over HTTP/1.1 with
/// `Expect`, behind a request for another route, and over HTTP/2, faults included.
@Suite("One path for every send, live on loopback", .serialized)
struct LiveSendPathTests {
    typealias Live = LiveHTTPTests

    @Test("Expect: 100-continue gets 100 Continue before the body is sent, then the send's reply")
    func continueBeforeTheBody() async throws {
        let log = Live.Log()
        let (server, port, token) = try await Live().start(log: log)
        let body = #"{"to":"\#(token)","data":{"k":"v"}}"#
        let client = try RawClient(port: port)
        client.write(
            "POST /fcm/send HTTP/1.1\r\nHost: x\r\nAuthorization: key=k7\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nExpect: 100-continue\r\n\r\n")
        #expect(await client.reply(until: "\r\n\r\n").hasPrefix("HTTP/1.1 100 Continue"))
        client.write(body)
        let reply = await client.reply(until: "]}")
        #expect(reply.hasPrefix("HTTP/1.1 200 OK"), "\(reply)")
        #expect(log.named("onMessageReceived").count == 1)
        try await server.stop()
    }

    @Test("Expect: 100-continue with a body announced over the limit is 413 at once, and the connection closes")
    func continueRefusedWhenTooLarge() async throws {
        let log = Live.Log()
        let (server, port, _) = try await Live().start(log: log)
        let client = try RawClient(port: port)
        client.write(
            "POST /fcm/send HTTP/1.1\r\nHost: x\r\nAuthorization: key=k7\r\n"
                + "Content-Length: \(HTTPSendService.maxBodyBytes + 1)\r\nExpect: 100-continue\r\n\r\n")
        let reply = await client.reply(until: "bytes\n")
        #expect(reply.hasPrefix("HTTP/1.1 413"), "\(reply)")
        #expect(!reply.contains("100 Continue"))
        #expect(client.closedByServer())
        #expect(log.named("requestRejected").contains { $0.string("path") == "/fcm/send" })
        try await server.stop()
    }

    @Test("an expectation other than 100-continue is 417, naming it")
    func unknownExpectation() async throws {
        let log = Live.Log()
        let (server, port, _) = try await Live().start(log: log)
        let client = try RawClient(port: port)
        client.write(Live.request("POST", "/fcm/send", headers: ["Authorization: key=k7", "Expect: teapot"]))
        let reply = await client.reply(until: "only\n")
        #expect(reply.hasPrefix("HTTP/1.1 417"), "\(reply)")
        #expect(reply.contains("Expect: teapot"))
        try await server.stop()
    }

    @Test("a send pipelined behind a request for another route waits for its reply, then is answered in order")
    func sendBehindAnotherRoute() async throws {
        let log = Live.Log()
        let (server, port, token) = try await Live().start(log: log)
        let client = try RawClient(port: port)
        let subscribe = Live.request(
            "POST", "/iid/v1:batchAdd", headers: ["Authorization: key=k7", "Content-Type: application/json"],
            body: #"{"to":"/topics/news","registration_tokens":["\#(token)"]}"#)
        client.write(subscribe + Live.legacySend(to: token) + Live.request("GET", "/healthz"))
        var text = await client.reply(until: "ok\n")
        if !text.hasSuffix("ok\n") { text += await client.reply(until: "ok\n") }
        let replies = text.components(separatedBy: "HTTP/1.1 ").dropFirst()
        #expect(replies.count == 3, "\(text)")
        #expect(replies.map { $0.contains(#""results":[{}]"#) } == [true, false, false])
        #expect(replies.map { $0.contains(#""success":1"#) } == [false, true, false])
        #expect(log.named("onMessageReceived").count == 1)
        try await server.stop()
    }

    /// Runs curl through the server's HTTPS proxy with HTTP/2; its output ends with
    /// the HTTP version and status.
    func curlHTTP2(port: Int, folder: String, body: String, headers: [String] = []) throws -> String {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments =
            [
                "curl", "-sS", "--http2", "--proxy", "http://127.0.0.1:\(port)", "--cacert", folder + "/ccs-ca.pem",
                "-H", "Authorization: key=k7", "-H", "Content-Type: application/json", "-d", body,
                "-w", "\n%{http_version} %{http_code}", "https://fcm.googleapis.com/fcm/send",
            ] + headers.flatMap { ["-H", $0] }
        let output = Pipe()
        curl.standardOutput = output
        try curl.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        curl.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    @Test("over HTTP/2 a send is answered on the same path: a latency fault holds it, a status fault answers for it")
    func http2SendsMeetFaults() async throws {
        let log = Live.Log()
        let folder = NSTemporaryDirectory() + "fcm-h2-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (server, port, token) = try await Live().start(log: log, tls: try TLSIdentity.inFolder(folder))
        let body = #"{"to":"\#(token)","data":{"k":"v"}}"#
        let plain = try curlHTTP2(port: port, folder: folder, body: body)
        #expect(plain.hasSuffix("\n2 200"), "\(plain)")
        #expect(plain.contains(#""success":1"#))
        try await server.apply(.addFault(Fault(path: "/fcm/send", kind: .latency(300, jitter: 0), count: 1)))
        let held = try curlHTTP2(port: port, folder: folder, body: body)
        #expect(held.hasSuffix("\n2 200"), "\(held)")
        try await server.apply(.addFault(Fault(path: "/fcm/send", kind: .status(503, retryAfter: 7), count: 1)))
        let refused = try curlHTTP2(port: port, folder: folder, body: body)
        #expect(refused.hasSuffix("\n2 503"), "\(refused)")
        #expect(refused.contains("Unavailable"), "the fault's reply in the legacy API's words: \(refused)")
        #expect(
            log.named("faultInjected").compactMap { $0.string("does") } == [
                "latency 300ms", "status 503 retry-after 7s",
            ])
        // Only the event-loop path reads `Expect`: a stream that carries one is served there.
        let expecting = try curlHTTP2(port: port, folder: folder, body: body, headers: ["Expect: teapot"])
        #expect(expecting.hasSuffix("\n2 417"), "\(expecting)")
        #expect(log.named("onMessageReceived").count == 2, "the refused sends reached no phone")
        try await server.stop()
    }
}
