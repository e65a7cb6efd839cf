import FCMConnectionServer
import FCMDoor
import FCMEngine
import FCMProfiles
import Foundation
import Testing

/// The report card over a real socket: the send path stamps each request with its
/// connection and start, so the fastest mistakes are judged and a batch in flight is
/// not.
@Suite("Live: the report card judges requests by when they started", .serialized)
struct LiveRequestStartTests {
    /// The report card over every event the server logged.
    static func report(_ log: LiveHTTPTests.Log) -> AppServerReport {
        var card = ReportCard()
        for event in log.all { card.observe(event) }
        return card.report
    }

    @Test("sends to an unregistered token, one after another on one connection within milliseconds, are judged")
    func sequentialResendsOnOneConnection() async throws {
        let log = LiveHTTPTests.Log()
        let (server, port, token) = try await LiveHTTPTests().start(log: log)
        try await server.apply(.on(.uninstall))
        let client = try RawClient(port: port)
        for n in 1...4 {
            client.write(LiveHTTPTests.legacySend(to: token, data: #"{"n":"\#(n)"}"#))
            let reply = await client.reply(until: "]}")
            #expect(reply.contains("NotRegistered"))
        }
        try await server.stop()
        let refused = log.named("downstreamRejected")
        #expect(refused.count == 4)
        #expect(Set(refused.compactMap { $0.int("http_connection") }).count == 1, "one connection")
        #expect(refused.compactMap { $0.int("http_request") } == [1, 2, 3, 4])
        let finding = Self.report(log).findings.first { $0.rule == .unregisteredTokenReused }
        #expect(finding?.count == 3)
    }

    @Test("requests begun before the answer came, on other connections, are in flight; the one after is not")
    func concurrentRequestsAreForgiven() async throws {
        let log = LiveHTTPTests.Log()
        let (server, port, token) = try await LiveHTTPTests().start(log: log)
        try await server.apply(.on(.uninstall))
        // A latency fault holds the first three, begun together, past each other's start.
        try await server.apply(.addFault(Fault(path: "/fcm/send", kind: .latency(300, jitter: 0), count: 3)))
        let batch = try (1...3).map { _ in try RawClient(port: port) }
        for (n, client) in batch.enumerated() {
            client.write(LiveHTTPTests.legacySend(to: token, data: #"{"n":"\#(n)"}"#))
        }
        for client in batch { _ = await client.reply(until: "]}") }
        #expect(
            Self.report(log).findings.first { $0.rule == .unregisteredTokenReused } == nil, "the batch was in flight")
        // Begun a few milliseconds after the answers came: one after another.
        try await Task.sleep(for: .milliseconds(5 * ReportCard.loopback))
        let later = try RawClient(port: port)
        later.write(LiveHTTPTests.legacySend(to: token, data: #"{"n":"later"}"#))
        _ = await later.reply(until: "]}")
        try await server.stop()
        #expect(Self.report(log).findings.first { $0.rule == .unregisteredTokenReused }?.count == 1)
    }

    @Test("a send abandoned before its answer is logged, and sent again at once it is a warning")
    func abandonedSendResent() async throws {
        let log = LiveHTTPTests.Log()
        let (server, port, token) = try await LiveHTTPTests().start(log: log)
        try await server.apply(.addFault(Fault(path: "/fcm/send", kind: .latency(1_000, jitter: 0), count: 1)))
        let impatient = try RawClient(port: port)
        let send = LiveHTTPTests.legacySend(to: token, data: #"{"n":"1"}"#)
        impatient.write(send)
        try await Task.sleep(for: .milliseconds(150))
        impatient.hangUp()
        var waited = 0
        while log.named("requestAbandoned").isEmpty, waited < 50 {
            try await Task.sleep(for: .milliseconds(20))
            waited += 1
        }
        let abandoned = try #require(log.named("requestAbandoned").first)
        #expect(abandoned.string("path") == "/fcm/send")
        #expect((abandoned.int("waited") ?? 0) >= 100)
        let again = try RawClient(port: port)
        again.write(send)
        #expect(await again.reply(until: "]}").contains(#""success":1"#))
        try await server.stop()
        let finding = Self.report(log).findings.first { $0.rule == .sendAbandonedTooSoon }
        #expect(finding?.count == 1)
        // As in production, the send the client gave up on was delivered all the same:
        // the user got the message twice.
        #expect(log.named("onMessageReceived").count == 2)
    }
}

/// A request the HTTP door refused before the device saw it is the device's event
/// like any other: a profile's timeline `expect` sees it.
@Suite("Live: refused requests through the front door", .serialized)
struct LiveRefusedRequestTests {
    @Test("a timeline's expect of requestRejected holds when the HTTP door refused a request with a wrong key")
    func aTimelineSeesTheRefusal() async throws {
        let log = LiveHTTPTests.Log()
        // Judged an hour in, when the clock is moved on: the request comes first however
        // busy the machine.
        let profile = try ProfileParser.parse(
            """
            version: 1
            senders: [{ id: "777", key: k7 }]
            timeline:
              - at: 1h
                expect: { event: requestRejected, status: 401, path: /fcm/send }
            """, file: "timeline.yaml")
        let (server, port, _) = try await LiveHTTPTests().start(log: log, timeline: profile.steps)
        let client = try RawClient(port: port)
        client.write(
            LiveHTTPTests.request(
                "POST", "/fcm/send", headers: ["Authorization: key=wrong", "Content-Type: application/json"],
                body: #"{"to":"x","data":{"k":"v"}}"#))
        #expect(await client.reply(until: "\r\n\r\n").hasPrefix("HTTP/1.1 401"))
        try await server.loop.submit { [host = server.host] in host.moveClock(by: Span.hour) }.get()
        var waited = 0
        while log.named("expectationHeld").isEmpty, log.named("expectationFailed").isEmpty, waited < 500 {
            try await Task.sleep(for: .milliseconds(20))
            waited += 1
        }
        try await server.stop()
        #expect(log.named("expectationHeld").count == 1, "\(log.named("expectationFailed"))")
        #expect(log.named("requestRejected").first?.string("reason")?.isEmpty == false)
    }
}
