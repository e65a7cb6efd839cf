import FCMEngine
import Testing

/// An app server's sends in tests: each as an HTTP API hands it to the engine.
extension Harness {
    @discardableResult
    mutating func serverSend(
        _ request: DownstreamRequest, api: AppServerAPI = .v1, after: Millis = 0, exchange: HTTPExchange? = nil,
        bearer: String? = nil
    ) -> [Event] {
        time += after
        let origin = WireOrigin(api: api, digest: RequestDigest.of(request), exchange: exchange, bearer: bearer)
        let order = SendOrder(request, origin: origin)
        let new = engine.handle(.input(.send([order]), at: time))
        events += new
        Self.checkDeclared(new)
        return new
    }

    /// A request the HTTP shell refused before the device saw it, as it logs it.
    mutating func refusedRequest(
        status: Int, path: String = "/v1/projects/p/messages:send", digest: String? = "body-1", bearer: String? = nil,
        retryAfter: Int? = nil, after: Millis = 0, exchange: HTTPExchange? = nil
    ) {
        time += after
        var fields = [
            Field("method", .string("POST")), Field("path", .string(path)), Field("status", .int(Int64(status))),
            Field("reason", .string("refused")),
        ]
        if let digest { fields += [Field("api", .string("v1")), Field("request", .string(digest))] }
        if let bearer { fields.append(Field("bearer", .string(bearer))) }
        if let retryAfter { fields.append(Field("retry_after", .int(Int64(retryAfter)))) }
        exchange?.append(to: &fields)
        events.append(Event(at: time, side: .server, kind: .requestRejected, fields: fields))
    }

    func message(_ value: String = "1", to token: String? = nil, collapseKey: String? = nil, priority: String? = nil)
        -> DownstreamRequest
    {
        DownstreamRequest(
            sender: Harness.sender, to: token ?? self.token, data: [KeyValue("n", value)], collapseKey: collapseKey,
            priority: priority)
    }

    /// The report card over every event so far.
    var report: AppServerReport {
        var card = ReportCard()
        for event in events { card.observe(event) }
        return card.report
    }

    func finding(_ rule: ReportRule) -> ReportFinding? { report.findings.first { $0.rule == rule } }
}

@Suite("App server report card")
struct ReportCardTests {
    @Test func aSendToATokenAnsweredUnregisteredIsAnError() {
        var h = Harness()
        let token = h.token
        h.run(.uninstall)
        h.serverSend(h.message("1", to: token))
        // A request the device took within a moment of the answer was in flight.
        h.serverSend(h.message("2", to: token), after: ReportCard.loopback)
        #expect(h.finding(.unregisteredTokenReused) == nil)
        h.serverSend(h.message("3", to: token), after: 20)
        let finding = h.finding(.unregisteredTokenReused)
        #expect(finding?.count == 1)
        #expect(finding?.examples.first?.detail.contains("earlier refused NotRegistered") == true)
        #expect(finding?.severity == .error)
    }

    @Test func aTopicCallForATokenFCMRejectedCountsAsReuse() {
        var h = Harness()
        let token = h.token
        h.run(.uninstall)
        h.serverSend(h.message("1", to: token))
        h.time += 5_000
        h.events += h.engine.handle(
            .input(
                .topics(
                    TopicOrder(sender: Harness.sender, topic: "news", tokens: [token], change: .add, api: .iid)),
                at: h.time)
        )
        #expect(h.finding(.unregisteredTokenReused)?.count == 1)
    }

    @Test func resendingARequestRefusedAsInvalidIsAnError() {
        var h = Harness()
        let bad = DownstreamRequest(sender: Harness.sender, to: h.token, data: [KeyValue("from", "x")])
        h.serverSend(bad)
        h.serverSend(h.message("fixed"), after: 1_000)
        #expect(h.finding(.permanentErrorResent) == nil)
        h.serverSend(bad, after: 1_000)
        h.refusedRequest(status: 400, digest: "schema")
        h.refusedRequest(status: 400, digest: "schema", after: 500)
        #expect(h.finding(.permanentErrorResent)?.count == 2)
    }

    @Test func aResendBeforeRetryAfterIsAWarning() {
        var h = Harness()
        h.run(.setService(up: false))
        let events = h.serverSend(h.message())
        #expect(events.named("downstreamRejected").first?["retry_after"] == .int(1))
        h.serverSend(h.message(), after: 300)
        #expect(h.finding(.retryAfterIgnored)?.count == 1)
        h.serverSend(h.message(), after: 1_500)
        #expect(h.finding(.retryAfterIgnored)?.count == 1)
        // A 429 without Retry-After asks for a minute.
        h.refusedRequest(status: 429, digest: "quota", after: 1_000)
        h.refusedRequest(status: 429, digest: "quota", after: 10_000)
        h.refusedRequest(status: 429, digest: "quota", after: 61_000)
        #expect(h.finding(.retryAfterIgnored)?.count == 2)
        #expect(h.finding(.retryAfterIgnored)?.severity == .warning)
    }

    @Test func retriesWhoseWaitsDoNotGrowAreAWarningAndGrowingOnesAreNot() {
        var flat = Harness()
        for _ in 0..<5 { flat.refusedRequest(status: 503, digest: "flat", after: 2_000) }
        #expect(flat.finding(.retryWithoutBackoff)?.count == 1)
        #expect(flat.finding(.retryTooSoon)?.count == 1)
        // firebase-admin's own retries: at once, then about 1, 2 and 4 seconds.
        var growing = Harness()
        for wait in [0, 5, 1_000, 2_000, 4_000] as [Millis] {
            growing.refusedRequest(status: 503, digest: "grow", after: wait)
        }
        #expect(growing.finding(.retryWithoutBackoff) == nil)
        #expect(growing.finding(.retryTooSoon)?.severity == .note)
        // A Retry-After honoured to the second is what the answer asked for.
        var honoured = Harness()
        for _ in 0..<5 { honoured.refusedRequest(status: 503, digest: "ra", retryAfter: 1, after: 1_000) }
        #expect(honoured.report.isClean)
    }

    @Test func moreThan240MessagesAMinuteToOneAndroidDeviceIsAnError() {
        var h = Harness()
        h.run(.setDeviceLimits(false))
        for n in 0..<240 { h.serverSend(h.message(String(n)), after: 100) }
        #expect(h.finding(.deviceRateExceeded) == nil)
        h.serverSend(h.message("over"), after: 100)
        #expect(h.finding(.deviceRateExceeded)?.count == 1)
        // With the limits on, the refused one counts too.
        var limited = Harness()
        for n in 0...240 { limited.serverSend(limited.message(String(n)), after: 100) }
        #expect(limited.named("downstreamRejected").first?.string("error") == "DeviceMessageRateExceeded")
        #expect(limited.finding(.deviceRateExceeded)?.count == 1)
        // A flood is counted send by send; five examples are kept, the first five over.
        for n in 0..<20 { h.serverSend(h.message("flood-\(n)"), after: 100) }
        let flood = h.finding(.deviceRateExceeded)
        #expect(flood?.count == 21)
        #expect(flood?.examples.count == ReportFinding.exampleLimit)
        #expect(flood?.examples.last?.detail.contains("message 245 to this device within a minute") == true)
    }

    @Test func aFifthCollapseKeyHeldForOneDeviceIsAnError() {
        var h = Harness()
        h.run(.setNetwork(.offline))
        for key in ["a", "b", "c", "d", "e"] { h.serverSend(h.message(key, collapseKey: key), after: 10) }
        let finding = h.finding(.collapseKeyLimit)
        #expect(finding?.count == 1)
        #expect(finding?.examples.first?.detail.contains("collapse key") == true)
    }

    @Test func collapsibleMessagesPastTheBurstAreThrottled() {
        var h = Harness()
        for n in 0..<21 { h.serverSend(h.message(String(n), collapseKey: "score"), after: 10) }
        #expect(h.finding(.collapsibleThrottled)?.count == 1)
    }

    @Test func highPriorityDataThatShowsNothingIsAWarningUnlessNotificationsOutnumberIt() {
        var h = Harness()
        h.serverSend(h.message(priority: "high"))
        #expect(h.finding(.highPriorityUnseen)?.count == 1)
        var shown = Harness(state: .background)
        shown.serverSend(
            DownstreamRequest(sender: Harness.sender, to: shown.token, notification: [KeyValue("title", "Hi")]))
        shown.run(.setAppState(.foreground))
        shown.serverSend(shown.message(priority: "high"))
        #expect(shown.finding(.highPriorityUnseen) == nil)
        var normal = Harness()
        normal.serverSend(normal.message(priority: "normal"))
        #expect(normal.report.isClean)
    }

    @Test func anAccessTokenAnswered401IsNotUsedAgain() {
        var h = Harness()
        h.refusedRequest(status: 401, digest: nil, bearer: "old")
        // Requests in flight with the same token, and a new token, are fine.
        h.refusedRequest(status: 401, digest: nil, bearer: "old", after: 2)
        #expect(h.report.isClean)
        h.refusedRequest(status: 401, digest: nil, bearer: "old", after: 20)
        #expect(h.finding(.rejectedAccessTokenReused)?.count == 1)
    }

    @Test func theBatchEndpointIsAnError() {
        var h = Harness()
        h.refusedRequest(status: 404, path: "/batch", digest: nil)
        #expect(h.finding(.batchEndpoint)?.severity == .error)
    }

    @Test func upstreamLeftUnackedOnAClosedConnectionIsAnError() {
        var h = Harness(appServer: .none)
        h.connect(1)
        h.send("m-1")
        h.send("m-2")
        h.run(.appServer(.received(1, .ack(messageID: "m-1"))))
        #expect(h.finding(.upstreamNotAcked) == nil)
        h.link(.closed(1))
        let finding = h.finding(.upstreamNotAcked)
        #expect(finding?.count == 1)
        #expect(finding?.examples.first?.subject == "m-2")
        #expect(h.finding(.legacyXMPPAPI)?.count == 1)
    }

    @Test func anyMessageReadOnAConnectionAfterItsDrainIsAnError() {
        var h = Harness(appServer: .none)
        h.connect(1)
        h.connect(2)
        h.link(.received(2, .downstream(h.message("0"), messageID: "d-0")))
        h.run(.drain)
        #expect(h.finding(.drainingConnectionUsed) == nil)
        // Read in the same millisecond as the drain was written: still after it.
        h.link(.received(1, .downstream(h.message("1"), messageID: "d-1")))
        #expect(h.finding(.drainingConnectionUsed)?.count == 1)
        h.link(.received(1, .downstream(h.message("2"), messageID: "d-2")), after: 2_000)
        #expect(h.finding(.drainingConnectionUsed)?.count == 2)
    }

    @Test func theLegacyAPIIsNotedOnceWithItsCount() {
        var h = Harness()
        for n in 0..<3 { h.serverSend(h.message(String(n)), api: .legacy, after: 1_000) }
        let finding = h.finding(.legacyHTTPAPI)
        #expect(finding?.count == 3 && finding?.examples.count == 1 && finding?.severity == .note)
    }

    @Test func aWellBehavedAppServerGetsAnEmptyReport() {
        var h = Harness()
        let token = h.token
        // Sends, a 503 retried after its Retry-After, a token dropped after NotRegistered.
        h.serverSend(h.message("1"))
        h.run(.setService(up: false))
        h.serverSend(h.message("2"), after: 100)
        h.run(.setService(up: true))
        h.serverSend(h.message("2"), after: 1_200)
        h.run(.uninstall)
        h.serverSend(h.message("3", to: token), after: 100)
        // A 401 for an old access token, a new one, one resend.
        h.refusedRequest(status: 401, digest: nil, bearer: "old", after: 100)
        #expect(h.report.isClean, "\(h.report.findings)")
    }

    @Test func theSameEventsGiveTheSameReportAndAResetStartsANewOne() {
        var h = Harness()
        h.serverSend(h.message(priority: "high"))
        h.refusedRequest(status: 404, path: "/batch", digest: nil)
        #expect(h.report == h.report)
        #expect(h.report.findings.map(\.rule) == [.batchEndpoint, .highPriorityUnseen])
        h.events += h.engine.handle(.input(.reset, at: h.time))
        #expect(h.report.isClean)
    }

    @Test func evidenceNamesTheEventItCameFrom() {
        var h = Harness()
        h.refusedRequest(status: 404, path: "/batch", digest: nil)
        let evidence = h.finding(.batchEndpoint)?.examples.first
        #expect(evidence?.event == h.events.count)
        #expect(h.events[(evidence?.event ?? 1) - 1].kind == .requestRejected)
    }
}
