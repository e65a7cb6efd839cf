import FCMEngine
import Testing

/// What a well-behaved app server does that the report card must not call a breach.
@Suite("App server report card: no false alarms")
struct ReportCardFalseAlarmTests {
    func topicCall(_ h: inout Harness, _ token: String, _ change: TopicOrder.Change, api: TopicOrder.API = .iid) {
        h.time += 2_000
        h.events += h.engine.handle(
            .input(
                .topics(
                    TopicOrder(sender: Harness.sender, topic: "news", tokens: [token], change: change, api: api)),
                at: h.time))
    }

    @Test func unsubscribingADeadTokenIsTheCleanUpGoogleAsksFor() {
        var h = Harness()
        let token = h.token
        topicCall(&h, token, .add)
        h.run(.refreshToken(sender: nil))
        h.serverSend(h.message("1", to: token))
        topicCall(&h, token, .remove)
        #expect(h.report.isClean, "\(h.report.findings)")
        topicCall(&h, token, .add)
        #expect(h.finding(.unregisteredTokenReused)?.count == 1)
    }

    @Test func aRemoveOfASubscriptionThatIsNotThereDoesNotCondemnALiveToken() {
        var h = Harness()
        topicCall(&h, h.token, .remove, api: .v1)
        #expect(h.named("topicRefused").last?.string("error") == "NOT_FOUND")
        h.serverSend(h.message("1"), after: 2_000)
        #expect(h.report.isClean, "\(h.report.findings)")
    }

    @Test func aProjectQuotaRefusalAsksForAWaitNotAFix() {
        var h = Harness()
        h.run(.addFault(Fault(sender: Harness.sender, kind: .rate(limit: 1, per: 60_000))))
        h.serverSend(h.message("1"))
        let refused = h.serverSend(h.message("2"), after: 100)
        #expect(refused.named("downstreamRejected").first?.string("handling") == "slow-down")
        h.serverSend(h.message("2"), after: 61_000)
        #expect(h.report.isClean, "\(h.report.findings)")
    }

    @Test func aV1UnavailableCarriesTheRetryAfterItsAnswerHasAndACCSNackNone() {
        var h = Harness()
        h.run(.addFault(Fault(sender: Harness.sender, kind: .error("Unavailable"), count: 4)))
        let v1 = h.serverSend(h.message("1"))
        #expect(v1.named("downstreamRejected").first?["retry_after"] == .int(1))
        // A client honouring the Retry-After of one second to the millisecond backs off as asked.
        for _ in 0..<3 { h.serverSend(h.message("1"), after: 1_000) }
        h.serverSend(h.message("1"), after: 1_000)
        #expect(h.report.isClean, "\(h.report.findings)")
        var ccs = Harness(appServer: .none)
        ccs.connect(1)
        ccs.run(.addFault(Fault(sender: Harness.sender, kind: .error("Unavailable"))))
        let nacked = ccs.link(.received(1, .downstream(ccs.message("1"), messageID: "d-1")))
        #expect(nacked.named("downstreamRejected").first?["retry_after"] == nil)
    }

    @Test func a401AFaultMadeDoesNotCondemnTheAccessToken() {
        var h = Harness()
        h.events.append(
            Event(
                at: h.time, side: .server, kind: .requestRejected,
                fields: [
                    Field("path", .string("/v1/projects/p/messages:send")), Field("status", .int(401)),
                    Field("bearer", .string("good")), Field("fault", .bool(true)),
                ]))
        h.refusedRequest(status: 400, digest: "other", bearer: "good", after: 5_000)
        #expect(h.finding(.rejectedAccessTokenReused) == nil)
    }

    @Test func requestsHeldByALatencyFaultWereInFlight() {
        var h = Harness()
        h.events.append(
            Event(
                at: h.time, side: .server, kind: .faultInjected,
                fields: [Field("fault", .int(1)), Field("delay", .int(2_500))]))
        h.refusedRequest(status: 401, digest: nil, bearer: "old", after: 100)
        h.refusedRequest(status: 401, digest: nil, bearer: "old", after: 2_000)
        #expect(h.report.isClean, "\(h.report.findings)")
        h.refusedRequest(status: 401, digest: nil, bearer: "old", after: 3_000)
        #expect(h.finding(.rejectedAccessTokenReused)?.count == 1)
    }

    @Test func aGroupsDeadMemberIsNotATokenTheAppServerReused() throws {
        var h = Harness()
        let stale = h.token
        guard case .key(let key) = h.group(.create, tokens: [stale]) else {
            Issue.record("no group")
            return
        }
        h.run(.refreshToken(sender: nil))
        for n in 0..<3 {
            h.serverSend(
                DownstreamRequest(sender: Harness.sender, to: key, data: [KeyValue("n", "\(n)")]), after: 2_000)
        }
        #expect(h.finding(.unregisteredTokenReused) == nil, "\(h.report.findings)")
    }

    @Test func aMulticastRetriedWholeIsOneRequestWhateverOrderItsPartsAnswer() {
        var h = Harness()
        let token = h.token
        h.run(.addFault(Fault(token: token, kind: .error("Unavailable"), count: 10)))
        // The same multicast every second: the accepted part first, then the failed one.
        for _ in 0..<5 {
            h.time += 1_000
            let body = "multicast"
            let orders = [
                SendOrder(h.message("x", to: "not-a-token"), origin: WireOrigin(api: .legacy, digest: body)),
                SendOrder(h.message("x", to: token), origin: WireOrigin(api: .legacy, digest: body)),
            ]
            h.events += h.engine.handle(.input(.send(orders), at: h.time))
        }
        #expect(h.finding(.retryWithoutBackoff)?.count == 1, "\(h.report.findings)")
    }

    @Test func theRunsReportKeepsWhatWasFoundBeforeAReset() {
        var h = Harness()
        h.refusedRequest(status: 404, path: "/batch", digest: nil)
        h.events += h.engine.handle(.input(.reset, at: h.time + 1))
        var card = ReportCard()
        for event in h.events { card.observe(event) }
        #expect(card.report.isClean)
        #expect(card.runReport.findings.map(\.rule) == [.batchEndpoint])
    }
}
