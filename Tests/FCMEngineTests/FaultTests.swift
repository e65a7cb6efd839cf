import FCMEngine
import Testing

@Suite("Faults and reset")
struct FaultTests {
    @Test func aStatusFaultAnswersTheRequestsOnItsPathForItsCount() {
        var h = Harness()
        h.run(.addFault(Fault(path: "/fcm/send", kind: .status(503, retryAfter: 2), count: 2)))
        var events: [Event] = []
        #expect(
            h.engine.handle(.input(.httpFaults(path: "/v1/projects/p/messages:send"), at: h.engine.now), into: &events)
                .faultEffects.isEmpty)
        #expect(
            h.engine.handle(.input(.httpFaults(path: "/fcm/send"), at: h.engine.now), into: &events).faultEffects == [
                .status(503, retryAfter: 2)
            ])
        #expect(
            h.engine.handle(.input(.httpFaults(path: "/fcm/send"), at: h.engine.now), into: &events).faultEffects == [
                .status(503, retryAfter: 2)
            ])
        #expect(
            h.engine.handle(.input(.httpFaults(path: "/fcm/send"), at: h.engine.now), into: &events).faultEffects
                .isEmpty)
        #expect(events.names == ["faultInjected", "faultInjected"])
        #expect(events.last?["left"] == .int(0))
        #expect(h.engine.server.faults.isEmpty)
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
        #expect(
            h.engine.handle(.input(.httpFaults(path: "/v1/projects/p/messages:send"), at: h.engine.now), into: &events)
                .faultEffects == [.delay(200)])
        h.wait(10_000)
        #expect(
            h.engine.handle(.input(.httpFaults(path: "/v1/projects/p/messages:send"), at: h.engine.now), into: &events)
                .faultEffects.isEmpty)
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

    @Test func aResetFaultClosesTheHTTPConnectionInsteadOfAnswering() {
        var h = Harness()
        h.run(.addFault(Fault(path: "/v1", kind: .reset, count: 1)))
        var events: [Event] = []
        #expect(
            h.engine.handle(.input(.httpFaults(path: "/v1/projects/p/messages:send"), at: h.engine.now), into: &events)
                .faultEffects == [.reset])
        #expect(events.first?.string("does") == "connection reset")
        #expect(
            h.engine.handle(.input(.httpFaults(path: "/v1/projects/p/messages:send"), at: h.engine.now), into: &events)
                .faultEffects.isEmpty)
    }

    @Test func aGoawayFaultEndsTheConnectionTheRequestCameOn() {
        var h = Harness()
        h.run(.addFault(Fault(path: "/v1", kind: .goaway, count: 1)))
        h.run(.addFault(Fault(path: "/v1", kind: .status(503, retryAfter: nil), count: 1)))
        var events: [Event] = []
        #expect(
            h.engine.handle(.input(.httpFaults(path: "/v1/projects/p/messages:send"), at: h.engine.now), into: &events)
                .faultEffects == [.goaway])
        #expect(events.first?.string("does") == "HTTP/2 GOAWAY")
        // The status fault waits for the next request: one request, one answer.
        #expect(
            h.engine.handle(.input(.httpFaults(path: "/v1/projects/p/messages:send"), at: h.engine.now), into: &events)
                .faultEffects == [.status(503, retryAfter: nil)])
    }

    @Test func anErrorFaultWithAnInstanceIDNameFailsThatTokensTopicCalls() {
        var h = Harness()
        h.run(.addFault(Fault(token: h.token, kind: .error("RESOURCE_EXHAUSTED"), count: 1)))
        var events: [Event] = []
        let order = TopicOrder(
            sender: Harness.sender, topic: "news", tokens: [h.token, "garbage"], change: .add, api: .iid)
        #expect(
            h.engine.handle(.input(.topics(order), at: h.engine.now), into: &events).topicOutcome!
                == .results([.resourceExhausted, .invalidArgument]))
        #expect(events.names == ["faultInjected", "topicRefused", "topicRefused"])
        // Used up: the next call subscribes; messages were never affected.
        #expect(
            h.engine.handle(.input(.topics(order), at: h.engine.now), into: &events).topicOutcome!
                == .results([nil, .invalidArgument]))
        #expect(h.push().names == ["downstreamAccepted", "onMessageReceived"])
    }

    @Test func aRateRuleRefusesMessagesPastItsLimitUntilTheWindowEnds() {
        var h = Harness()
        let added = h.run(.addFault(Fault(token: h.token, kind: .rate(limit: 2, per: 60_000))))
        #expect(added.first?["count"] == nil, "a rate rule lasts until cleared")
        #expect(h.push().names == ["downstreamAccepted", "onMessageReceived"])
        h.wait(30_000)
        #expect(h.push().names == ["downstreamAccepted", "onMessageReceived"])
        let refused = h.push()
        #expect(refused.names == ["faultInjected", "downstreamRejected"])
        #expect(refused.last?.string("error") == "DeviceMessageRateExceeded")
        #expect(refused.last?.string("ccs") == "DEVICE_MESSAGE_RATE_EXCEEDED")
        // The window began with the first message, not on the minute.
        h.wait(30_000)
        #expect(h.push().names == ["downstreamAccepted", "onMessageReceived"])
        #expect(h.engine.server.faults.count == 1)
    }

    @Test func aRateRuleOnASenderIsTheProjectQuota() {
        var h = Harness()
        h.run(.addFault(Fault(sender: Harness.sender, kind: .rate(limit: 1, per: 60_000))))
        h.push()
        let refused = h.push()
        #expect(refused.last?.string("error") == "QuotaExceeded")
        #expect(DownstreamError.injected("QuotaExceeded").v1Code == "QUOTA_EXCEEDED")
    }

    @Test func aRateRuleOnATopicRefusesWithTopicsMessageRateExceeded() {
        var h = Harness()
        h.run(.subscribe(topic: "news", sender: nil))
        h.run(.addFault(Fault(topic: "news", kind: .rate(limit: 1, per: 1_000))))
        let topicPush = { (h: inout Harness) in
            h.run(.push(DownstreamRequest(sender: Harness.sender, to: "/topics/news", data: [KeyValue("k", "v")])))
        }
        #expect(topicPush(&h).names.contains("onMessageReceived"))
        #expect(topicPush(&h).named("downstreamRejected").first?.string("error") == "TopicsMessageRateExceeded")
        h.wait(1_000)
        #expect(topicPush(&h).names.contains("onMessageReceived"))
    }

    @Test(arguments: [
        (Fault(kind: .status(503, retryAfter: nil)), "names its scope"),
        (Fault(token: "t", kind: .status(503, retryAfter: nil)), "give it a path"),
        (Fault(path: "/fcm/send", kind: .status(418, retryAfter: nil)), "not one a fault gives"),
        (Fault(sender: "1", kind: .error("Teapot")), "not one a fault gives"),
        (Fault(path: "/fcm/send", kind: .error("Unavailable")), "scope it by token, sender or topic"),
        (Fault(path: "/v1", kind: .latency(90_000, jitter: 0)), "at most 60s"),
        (Fault(path: "/v1", kind: .status(503, retryAfter: nil), count: 0), "at least 1"),
        (Fault(token: "t", kind: .reset), "give it a path (HTTP) or a sender"),
        (Fault(path: "/v1", kind: .drain), "scope it by sender alone"),
        (Fault(token: "t", sender: "1", kind: .reset), "not a token or topic"),
        (Fault(path: "/v1", kind: .rate(limit: 5, per: 1_000)), "not path"),
        (Fault(token: "t", sender: "1", kind: .rate(limit: 5, per: 1_000)), "one scope"),
        (Fault(token: "t", kind: .rate(limit: 0, per: 1_000)), "at least 1 message"),
        (Fault(token: "t", kind: .rate(limit: 5, per: 1_000), count: 3), "not a count"),
    ])
    func badFaultsAreRefusedSayingWhy(fault: Fault, words: String) {
        var h = Harness()
        let events = h.run(.addFault(fault))
        #expect(events.names == ["commandRefused"])
        #expect(events.first?.string("detail")?.contains(words) == true, "\(events)")
        #expect(h.engine.server.faults.isEmpty)
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
        #expect(
            h.engine.devices[0].topicCount == 0 && h.engine.devices[0].stored.isEmpty && h.engine.server.faults.isEmpty)
        #expect(h.engine.devices[0].network == .online)
        #expect(h.engine.now == 5_000)
        #expect(h.push().names == ["downstreamAccepted", "onMessageReceived"])
    }
}
