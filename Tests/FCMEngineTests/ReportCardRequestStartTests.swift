import FCMEngine
import Testing

/// The report card judges a request by when it started: after the answer that
/// should have stopped it, or while that answer was still on its way.
@Suite("Report card: requests judged by when they started")
struct ReportCardRequestStartTests {
    /// Where and when an HTTP request started, as the send path stamps it.
    static func on(_ connection: Int64, _ request: Int64? = 1, startedAt started: Millis) -> HTTPExchange {
        HTTPExchange(connection: connection, request: request, started: started)
    }

    @Test func theNextRequestOnTheSameConnectionIsJudgedHoweverSoonItCame() {
        var h = Harness()
        let token = h.token
        h.run(.uninstall)
        h.serverSend(h.message("1", to: token), exchange: Self.on(1, 1, startedAt: h.time))
        // The same millisecond, the next request on that keep-alive connection.
        h.serverSend(h.message("2", to: token), exchange: Self.on(1, 2, startedAt: h.time))
        h.serverSend(h.message("3", to: token), after: 1, exchange: Self.on(1, 3, startedAt: h.time + 1))
        let finding = h.finding(.unregisteredTokenReused)
        #expect(finding?.count == 2)
        #expect(finding?.examples.first?.detail.contains("earlier refused NotRegistered") == true)
    }

    @Test func aSendEachBatchInFlightWhenTheAnswerCameIsForgivenAndTheNextRequestIsNot() {
        var h = Harness()
        let token = h.token
        h.run(.uninstall)
        let batchStart = h.time
        // Four requests of one batch, each on its own connection, all begun before the
        // first answer; the device takes them a few milliseconds apart.
        h.serverSend(h.message("1", to: token), after: 3, exchange: Self.on(1, startedAt: batchStart))
        for connection in Int64(2)...4 {
            h.serverSend(
                h.message("\(connection)", to: token), after: 4, exchange: Self.on(connection, startedAt: batchStart))
        }
        #expect(h.finding(.unregisteredTokenReused) == nil, "\(h.report.findings)")
        // Begun on a new connection 12 ms after the answer: it should have heeded it.
        h.serverSend(h.message("5", to: token), after: 2, exchange: Self.on(5, startedAt: batchStart + 3 + 12))
        #expect(h.finding(.unregisteredTokenReused)?.count == 1)
    }

    @Test func anHTTP2StreamIsJudgedByItsStartNotItsConnection() {
        var h = Harness()
        let token = h.token
        h.run(.uninstall)
        h.serverSend(h.message("1", to: token), after: 3, exchange: Self.on(7, nil, startedAt: 0))
        // Another stream begun before the answer, taken after it.
        h.serverSend(h.message("2", to: token), after: 10, exchange: Self.on(8, nil, startedAt: 1))
        #expect(h.finding(.unregisteredTokenReused) == nil)
        h.serverSend(h.message("3", to: token), after: 10, exchange: Self.on(9, nil, startedAt: h.time))
        #expect(h.finding(.unregisteredTokenReused)?.count == 1)
    }

    @Test func aRefusedAccessTokenSentAgainOnTheSameConnectionIsJudgedAtOnce() {
        var h = Harness()
        h.refusedRequest(status: 401, digest: nil, bearer: "old", exchange: Self.on(1, 1, startedAt: 0))
        // Another connection's request begun before the answer: in flight.
        h.refusedRequest(status: 401, digest: nil, bearer: "old", after: 1, exchange: Self.on(2, 1, startedAt: 0))
        #expect(h.report.isClean)
        h.refusedRequest(status: 401, digest: nil, bearer: "old", after: 1, exchange: Self.on(1, 2, startedAt: 2))
        h.refusedRequest(status: 401, digest: nil, bearer: "old", exchange: Self.on(1, 3, startedAt: 2))
        #expect(h.finding(.rejectedAccessTokenReused)?.count == 2)
    }

    @Test func aNewAccessTokenForEachRequestIsANote() {
        var h = Harness()
        for n in 0..<6 {
            h.serverSend(h.message("\(n)"), after: 100, bearer: "token-\(n)")
        }
        let finding = h.finding(.accessTokenPerRequest)
        #expect(finding?.severity == .note)
        #expect(finding?.count == 5)
        #expect(finding?.examples.first?.detail.contains("while the one before") == true)
    }

    @Test func oneAccessTokenReusedOrRenewedAfterA401IsNotANote() {
        var reused = Harness()
        for n in 0..<6 { reused.serverSend(reused.message("\(n)"), after: 100, bearer: "token") }
        #expect(reused.finding(.accessTokenPerRequest) == nil)

        // Each token refused 401 and a new one got: the pattern Google asks for.
        var renewed = Harness()
        for n in 0..<6 {
            renewed.refusedRequest(status: 401, digest: "r\(n)", bearer: "expired-\(n)", after: 100)
            renewed.serverSend(renewed.message("\(n)"), after: 10, bearer: "fresh-\(n)")
        }
        #expect(renewed.finding(.accessTokenPerRequest) == nil, "\(renewed.report.findings)")

        // A token an hour old is renewed, not minted per request.
        var hourly = Harness()
        for n in 0..<6 { hourly.serverSend(hourly.message("\(n)"), after: Span.hour, bearer: "token-\(n)") }
        #expect(hourly.finding(.accessTokenPerRequest) == nil)
    }

    @Test func aDataMessageToAnIPhoneAtAPNsPriority10IsAnError() {
        var h = Harness(platform: .ios)
        h.serverSend(h.message("1", priority: "high"))
        let finding = h.finding(.apnsHighPriorityData)
        #expect(finding?.severity == .error)
        #expect(finding?.examples.first?.detail.contains("apns-priority 10") == true)

        var alert = Harness(platform: .ios)
        var shown = alert.message("1", priority: "high")
        shown.notification = [KeyValue("title", "Hi")]
        alert.serverSend(shown)
        alert.serverSend(alert.message("2", priority: "normal"))
        #expect(alert.finding(.apnsHighPriorityData) == nil)

        var android = Harness()
        android.serverSend(android.message("1", priority: "high"))
        #expect(android.finding(.apnsHighPriorityData) == nil)
    }

    @Test func aSendAbandonedWithinTenSecondsAndSentAgainIsAWarning() {
        var h = Harness()
        let request = h.message("1")
        h.time += 100
        h.events.append(Self.abandoned(request, at: h.time, waited: 2_000, exchange: Self.on(1, startedAt: 0)))
        h.serverSend(request, after: 50, exchange: Self.on(2, startedAt: h.time + 50))
        let finding = h.finding(.sendAbandonedTooSoon)
        #expect(finding?.severity == .warning)
        #expect(finding?.examples.first?.detail.contains("2 s after it started") == true)

        // Given its ten seconds, the same resend is fine.
        var patient = Harness()
        patient.events.append(Self.abandoned(request, at: 0, waited: 12_000, exchange: Self.on(1, startedAt: 0)))
        patient.serverSend(request, after: 50, exchange: Self.on(2, startedAt: 50))
        #expect(patient.finding(.sendAbandonedTooSoon) == nil)
    }

    /// A `requestAbandoned` event as the HTTP shell logs it.
    static func abandoned(_ request: DownstreamRequest, at time: Millis, waited: Millis, exchange: HTTPExchange)
        -> Event
    {
        var fields = [
            Field("method", .string("POST")), Field("path", .string("/v1/projects/p/messages:send")),
            Field("api", .string("v1")), Field("request", .string(RequestDigest.of(request))),
        ]
        exchange.append(to: &fields)
        fields.append(Field("waited", .int(waited)))
        return Event(at: time, side: .server, kind: .requestAbandoned, fields: fields)
    }
}
