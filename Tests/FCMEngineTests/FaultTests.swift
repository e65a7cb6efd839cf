import FCMEngine
import Testing

@Suite("Faults and reset")
struct FaultTests {
    @Test func aStatusFaultAnswersTheRequestsOnItsPathForItsCount() {
        var h = Harness()
        h.run(.addFault(Fault(path: "/fcm/send", kind: .status(503, retryAfter: 2), count: 2)))
        var events: [Event] = []
        #expect(h.engine.httpFaults(path: "/v1/projects/p/messages:send", into: &events).isEmpty)
        #expect(h.engine.httpFaults(path: "/fcm/send", into: &events) == [.status(503, retryAfter: 2)])
        #expect(h.engine.httpFaults(path: "/fcm/send", into: &events) == [.status(503, retryAfter: 2)])
        #expect(h.engine.httpFaults(path: "/fcm/send", into: &events).isEmpty)
        #expect(events.names == ["faultInjected", "faultInjected"])
        #expect(events.last?["left"] == .int(0))
        #expect(h.engine.faults.isEmpty)
    }

    @Test func aFaultWithNeitherCountNorDurationIsUsedOnce() {
        var h = Harness()
        h.run(.addFault(Fault(path: "/fcm/send", kind: .status(500, retryAfter: nil))))
        #expect(h.named("faultAdded").first?["count"] == .int(1))
    }

    @Test func aFaultWithADurationEndsOnTime() {
        var h = Harness()
        h.run(.addFault(Fault(path: "/v1", kind: .latency(200, jitter: 0), duration: 10_000)))
        var events: [Event] = []
        #expect(h.engine.httpFaults(path: "/v1/projects/p/messages:send", into: &events) == [.delay(200)])
        h.wait(10_000)
        #expect(h.engine.httpFaults(path: "/v1/projects/p/messages:send", into: &events).isEmpty)
    }

    @Test func anErrorFaultFailsMessagesToItsTokenWithTheNamedError() {
        var h = Harness()
        h.run(.addFault(Fault(token: h.token, kind: .error("Unavailable"), count: 1)))
        let failed = h.push()
        #expect(failed.names == ["faultInjected", "downstreamRejected"])
        #expect(failed.last?.string("error") == "Unavailable")
        #expect(failed.last?.string("ccs") == "SERVICE_UNAVAILABLE")
        #expect(h.push().names == ["downstreamAccepted", "onMessageReceived"])
    }

    @Test(arguments: [
        (Fault(kind: .status(503, retryAfter: nil)), "names its scope"),
        (Fault(token: "t", kind: .status(503, retryAfter: nil)), "give it a path"),
        (Fault(path: "/fcm/send", kind: .status(418, retryAfter: nil)), "not one a fault gives"),
        (Fault(sender: "1", kind: .error("Teapot")), "not one a fault gives"),
        (Fault(path: "/v1", kind: .latency(90_000, jitter: 0)), "at most 60s"),
        (Fault(path: "/v1", kind: .status(503, retryAfter: nil), count: 0), "at least 1"),
    ])
    func badFaultsAreRefusedSayingWhy(fault: Fault, words: String) {
        var h = Harness()
        let events = h.run(.addFault(fault))
        #expect(events.names == ["commandRefused"])
        #expect(events.first?.string("detail")?.contains(words) == true, "\(events)")
        #expect(h.engine.faults.isEmpty)
    }

    @Test func resetReturnsTheDeviceToItsStartWithTheSameTokens() {
        var h = Harness()
        let first = h.token
        h.run(.subscribe(topic: "news", sender: nil))
        h.run(.refreshToken(sender: nil))
        h.run(.setNetwork(.offline))
        h.push()
        h.run(.addFault(Fault(path: "/fcm/send", kind: .status(503, retryAfter: nil), count: 5)))
        let events = h.run(.reset, after: 5_000)
        #expect(events.names == ["deviceReset", "onNewToken"])
        #expect(h.token == first)
        #expect(h.engine.topicCount == 0 && h.engine.stored.isEmpty && h.engine.faults.isEmpty)
        #expect(h.engine.network == .online)
        #expect(h.engine.now == 5_000)
        #expect(h.push().names == ["downstreamAccepted", "onMessageReceived"])
    }
}
