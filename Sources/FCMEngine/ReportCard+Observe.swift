/// How the report card reads each event.
extension ReportCard {
    /// Reads the next event of the log.
    public mutating func observe(_ event: Event) {
        defer { eventCount += 1 }
        switch event.kind {
        case .deviceReset:
            // The control API's reset starts a new report; the run's keeps what was found.
            let (count, kept) = (eventCount, runReport)
            self = ReportCard()
            eventCount = count
            earlierRequests = kept.requests
            earlierMessages = kept.messages
            for finding in kept.findings { earlier[finding.rule] = finding }
        case .downstreamAccepted:
            messages += 1
            observeSend(event)
        case .downstreamRejected:
            // A refused message was sent all the same: the card read it.
            messages += 1
            observeSend(event)
        case .requestRejected: observeRefusedRequest(event)
        case .webPushAccepted, .webPushRefused, .webPushDropped: observeWebPush(event)
        case .requestAbandoned:
            guard let api = event.string("api"), let digest = event.string("request") else { break }
            let waited = event.int("waited") ?? 0
            let detail = "abandoned after \(DurationText.span(waited))"
            abandoned[api + "/" + digest] = Abandoned(
                evidence: evidence(event, api: api, subject: event.string("path") ?? "", detail), waited: waited,
                exchange: HTTPExchange(of: event))
        case .topicSubscribed, .topicUnsubscribed, .topicRefused: observeTopicCall(event)
        case .stored:
            if event.string("reason") == "throttled" {
                add(.collapsibleThrottled, evidence(event, subject: event.string("id") ?? "", "held: throttled"))
            }
        case .discarded:
            if event.string("reason") == "collapse-key-limit" {
                let key = event.string("collapse_key").map { " (collapse key \($0))" } ?? ""
                let detail = "dropped\(key): more than four collapse keys were held for one device"
                add(.collapseKeyLimit, evidence(event, subject: event.string("id") ?? "", detail))
            }
        case .onMessageReceived:
            // Android's callback: an iPhone's and a browser's have other names.
            guard event.string("priority") == "high", event["notification"] == nil else { break }
            let detail = "a high-priority data message reached the app and nothing was shown"
            let here = evidence(event, subject: event.string("id") ?? "", detail)
            followPhone(Self.phone(of: event)) { $0.unseen.add(here) }
        case .notificationPosted: followPhone(Self.phone(of: event)) { $0.shown += 1 }
        case .faultInjected:
            if let delay = event.int("delay") {
                heldUntil = max(heldUntil, event.at + delay)
                heldLongest = max(heldLongest, delay)
            }
        case .appServerConnected:
            // The built-in echo app server is no login (its connection has no number).
            guard event.int("connection") != nil else { break }
            requests += 1
            add(.legacyXMPPAPI, evidence(event, api: "ccs", subject: connection(event), "an XMPP login"))
        case .upstreamToAppServer, .receiptToAppServer: observeUpstream(event)
        case .appServerAck, .receiptAck:
            unacked[Self.upstreamKey(event)] = nil
        case .upstreamRetry:
            unacked[Self.upstreamKey(event)]?.retried = true
        case .appServerDisconnected:
            guard case .int(let closed)? = event["connection"] else { break }
            for (key, held) in unacked where held.connection == closed { unacked[key]?.closed = true }
            drainingSince[closed] = nil
        case .connectionDraining:
            if case .int(let connection)? = event["connection"] { drainingSince[connection] = event.at }
        case .nack:
            // The engine nacks so only a message it read after CONNECTION_DRAINING was
            // written on that connection.
            if event.string("error") == "CONNECTION_DRAINING", case .int(let connection)? = event["connection"],
                let since = drainingSince[connection]
            {
                let detail = "sent \(DurationText.span(event.at - since)) after CONNECTION_DRAINING; nacked"
                add(.drainingConnectionUsed, evidence(event, api: "ccs", subject: "connection \(connection)", detail))
            }
        default: break
        }
    }

    /// A send of an app server (it has `api`), accepted or refused by the device. Its
    /// evidence is written only when a rule keeps it: most sends break nothing.
    mutating func observeSend(_ event: Event) {
        guard let api = event.string("api"), let digest = event.string("request") else { return }
        if event["group"] == nil { requests += 1 }
        // A group's member copies name no token: the app server sent to the group.
        let token = event.string("token")
        let error = event.string("error")
        let handling = event.string("handling").flatMap(RefusalHandling.init(rawValue:))
        let sequence = eventCount + 1
        func here() -> ReportEvidence {
            let subject = token.map(TokenText.short) ?? event.string("topic").map { "/topics/" + $0 } ?? ""
            let answer = error.map { "refused \($0)" } ?? "accepted"
            return ReportEvidence(at: event.at, api: api, subject: subject, detail: answer, event: sequence)
        }
        // A legacy multicast is one request however many tokens it names.
        if api == "legacy", lastLegacy.map({ $0 != (event.at, digest) }) ?? true {
            lastLegacy = (event.at, digest)
            if found[.legacyHTTPAPI] == nil { add(.legacyHTTPAPI, here()) } else { found[.legacyHTTPAPI]?.count += 1 }
        }
        if api == "v1", let bearer = event.string("bearer") { noteBearer(bearer, event) }
        if !abandoned.isEmpty { noteResend(api + "/" + digest, event, here) }
        if api == "v1", event.kind == .downstreamAccepted, event.string("platform") == Platform.ios.rawValue,
            event.string("priority") == "high", event["notification"] == .bool(false)
        {
            var data = here()
            data.detail += "; a data message (no alert) at apns-priority 10, which FCM refuses: send it at 5"
            add(.apnsHighPriorityData, data)
        }
        if let token, !deadTokens.isEmpty, let dead = deadTokens[token], startedAfter(dead, event) {
            add(.unregisteredTokenReused, Self.later(here(), after: dead.evidence))
        }
        let key = refused.isEmpty && retrying.isEmpty && error == nil ? "" : api + "/" + digest
        if !key.isEmpty { attempt(key, accepted: error == nil, here) }
        switch handling {
        case nil:
            if !key.isEmpty { settle(key, at: event.at) }
            if let token, event["dry_run"] != .bool(true), event.string("platform") == Platform.android.rawValue {
                countSend(to: token, at: event.at, here)
            }
        case .dropToken?:
            if let token, deadTokens[token] == nil {
                deadTokens[token] = Answer(evidence: here(), exchange: .init(of: event))
            }
            settle(key, at: event.at)
        case .slowDown?:
            // Refused for the device's rate: only an Android phone is refused so.
            if let token, error == "DeviceMessageRateExceeded", event["dry_run"] != .bool(true) {
                countSend(to: token, at: event.at, here)
            }
            let wait = event.int("retry_after").map { $0 * Span.second } ?? (api == "v1" ? Self.quotaWait : nil)
            retry(key, here(), wait: wait, bareServerError: false)
        case .retry?:
            let wait = event.int("retry_after").map { $0 * Span.second }
            retry(key, here(), wait: wait, bareServerError: wait == nil)
        case .fix?:
            settle(key, at: event.at)
            refuse(key, here())
        }
    }

    /// An HTTP request the shell refused before the device saw it.
    mutating func observeRefusedRequest(_ event: Event) {
        let path = event.string("path") ?? ""
        let status = Int(event.int("status") ?? 0)
        let line = "answered \(status)" + (event.int("retry_after").map { " (Retry-After \($0) s)" } ?? "")
        let here = evidence(event, api: event.string("api"), subject: path, line)
        requests += 1
        if path.hasSuffix("/batch") {
            add(.batchEndpoint, here)
            return
        }
        let byFault = event["fault"] == .bool(true)
        // An access token refused for itself (not a fault, not the APNs or web-push
        // credentials) is condemned; a later request refused for it again reused it.
        let reason = event.string("reason") ?? ""
        if let bearer = event.string("bearer") { noteBearer(bearer, event) }
        if status == 401, !byFault, !reason.contains("THIRD_PARTY"), let bearer = event.string("bearer") {
            if let first = rejectedBearers[bearer], startedAfter(first, event) {
                add(.rejectedAccessTokenReused, Self.later(here, after: first.evidence))
            } else if rejectedBearers[bearer] == nil {
                rejectedBearers[bearer] = Answer(evidence: here, exchange: .init(of: event))
            }
        }
        guard let digest = event.string("request"), let api = event.string("api") else { return }
        if api == "legacy" { add(.legacyHTTPAPI, here) }
        let key = api + "/" + digest
        if !abandoned.isEmpty { noteResend(key, event) { here } }
        attempt(key, accepted: false) { here }
        switch status {
        case 400, 403, 404:
            settle(key, at: event.at)
            refuse(key, here)
        case 401 where reason.contains("THIRD_PARTY"):
            settle(key, at: event.at)
            refuse(key, here)
        case 429:
            let wait = event.int("retry_after").map { $0 * Span.second } ?? Self.quotaWait
            retry(key, here, wait: wait, bareServerError: false)
        case 500...599:
            let wait = event.int("retry_after").map { $0 * Span.second }
            retry(key, here, wait: wait, bareServerError: wait == nil && (status == 500 || status == 503))
        default: break
        }
    }

    /// The request was refused for good: a resend of it unchanged is judged.
    mutating func refuse(_ key: String, _ here: ReportEvidence) {
        guard refused[key] == nil else { return }
        refused[key] = here
        lastSeen[key] = here.at
    }

    /// One more attempt of a request: judged against what its earlier answers asked.
    /// A resend the service took after all (the refusal was a fault's) breaks nothing.
    mutating func attempt(_ key: String, accepted: Bool, _ evidence: () -> ReportEvidence) {
        guard refused[key] != nil || retrying[key] != nil else { return }
        let here = evidence()
        guard lastSeen[key] != here.at else { return }
        lastSeen[key] = here.at
        if let first = refused[key] {
            if accepted { refused[key] = nil } else { add(.permanentErrorResent, Self.later(here, after: first)) }
        }
        guard var chain = retrying[key] else { return }
        let wait = here.at - chain.lastAttempt
        if let notBefore = chain.notBefore, here.at < notBefore {
            var early = Self.later(here, after: chain.first)
            early.detail +=
                "; \(DurationText.span(wait)) after the last answer, which asked for "
                + DurationText.span(notBefore - chain.lastAttempt)
            add(.retryAfterIgnored, early)
        } else if chain.notBefore == nil {
            if chain.retries == 0, chain.bareServerError, wait < Self.firstRetryWait {
                var soon = Self.later(here, after: chain.first)
                soon.detail += "; the first retry came \(DurationText.span(wait)) after the answer"
                add(.retryTooSoon, soon)
            }
            chain.freeWaits.append(wait)
        }
        chain.retries += 1
        if !chain.judged, chain.freeWaits.count >= Self.flatRetries {
            let last = chain.freeWaits.suffix(Self.flatRetries)
            let flat = zip(last, last.dropFirst()).allSatisfy { Double($1) < Double($0) * Self.backoffGrowth }
            if flat {
                chain.judged = true
                var flatEvidence = Self.later(here, after: chain.first)
                flatEvidence.detail += "; waits " + last.map(DurationText.span).joined(separator: ", ")
                add(.retryWithoutBackoff, flatEvidence)
            }
        }
        retrying[key] = chain
    }

    /// The request's answer asks for a retry (after `wait`, when it says).
    mutating func retry(_ key: String, _ here: ReportEvidence, wait: Millis?, bareServerError: Bool) {
        // Another part of the same request (a multicast's) settled just now: its chain goes on.
        if let settled = lastSettled, settled.key == key, settled.at == here.at, retrying[key] == nil {
            retrying[key] = settled.chain
        }
        var chain =
            retrying[key] ?? RetryChain(lastAttempt: here.at, notBefore: nil, bareServerError: false, first: here)
        chain.lastAttempt = here.at
        chain.notBefore = wait.map { here.at + $0 }
        chain.bareServerError = bareServerError
        retrying[key] = chain
        lastSeen[key] = here.at
    }

    /// The request's answer was final (accepted, or refused for good): its retries
    /// end, unless another part of the same request asked for one.
    mutating func settle(_ key: String, at time: Millis) {
        if let chain = retrying[key], chain.lastAttempt != time {
            retrying[key] = nil
            lastSettled = (key, time, chain)
            if refused[key] == nil { lastSeen[key] = nil }
        }
    }

    /// A send to an Android token, counted in its minute and hour (in place: a load
    /// test sends thousands to one token).
    mutating func countSend(to token: String, at time: Millis, _ evidence: () -> ReportEvidence) {
        let (minute, hour) = recentSends[token, default: SendWindow()].record(time)
        guard minute > DeviceLimits.perMinute || hour > DeviceLimits.perHour,
            !countedWithoutEvidence(.deviceRateExceeded)
        else { return }
        var over = evidence()
        over.detail +=
            minute > DeviceLimits.perMinute
            ? "; message \(minute) to this device within a minute"
            : "; message \(hour) to this device within an hour"
        add(.deviceRateExceeded, over)
    }

    /// An app server's topic call for a token (`by`: the API it used). Subscribing a
    /// dead token reuses it; unsubscribing it is the clean-up Google asks for, and a
    /// remove's NOT_FOUND may only mean no such subscription.
    /// A Web Push request's answer, or what the browser did with it.
    mutating func observeWebPush(_ event: Event) {
        let subject = event.string("endpoint") ?? event.string("id") ?? ""
        switch event.kind {
        case .webPushAccepted:
            requests += 1
            messages += 1
            if event.string("detail") != nil {
                add(
                    .webPushTTL, evidence(event, api: "webpush", subject: subject, "TTL over four weeks (kept as four)")
                )
            }
        case .webPushRefused:
            requests += 1
            let status = event.int("status") ?? 0
            let here = evidence(
                event, api: "webpush", subject: subject, "\(status) \(event.string("reason") ?? "")")
            if let first = goneSubscriptions[subject] {
                add(.webPushGoneResent, Self.later(here, after: first))
            } else if status == 404 || status == 410 {
                goneSubscriptions[subject] = here
            }
            if status == 401 || status == 403 { add(.webPushVAPIDRefused, here) }
            if status == 400, event.string("reason")?.hasPrefix("The TTL header") == true { add(.webPushTTL, here) }
        default:
            guard event.string("reason") == "undecryptable" else { return }
            let detail = "the browser dropped it: " + (event.string("detail") ?? "it did not decrypt")
            add(.webPushUndecryptable, evidence(event, api: "webpush", subject: subject, detail))
        }
    }

    mutating func observeTopicCall(_ event: Event) {
        guard event.string("by") != nil, let token = event.string("token") else { return }
        requests += 1
        let adds = event.kind == .topicSubscribed || (event.kind == .topicRefused && event.string("change") == "add")
        guard adds else { return }
        func here() -> ReportEvidence {
            let topic = "subscribe to topic \(event.string("topic") ?? "")"
            return evidence(event, api: event.string("by"), subject: TokenText.short(token), topic)
        }
        if let dead = deadTokens[token], startedAfter(dead, event) {
            add(.unregisteredTokenReused, Self.later(here(), after: dead.evidence))
        }
        if event.kind == .topicRefused, ["NOT_FOUND", "INVALID_ARGUMENT"].contains(event.string("error") ?? ""),
            deadTokens[token] == nil
        {
            var answer = here()
            answer.detail += " refused \(event.string("error") ?? "")"
            deadTokens[token] = Answer(evidence: answer, exchange: .init(of: event))
        }
    }

    /// Whether the request of `event` started after `answer` was written, so that it
    /// should have heeded it. An HTTP send says where and when it started (see
    /// `HTTPExchange`); any other request is taken to have started when the device
    /// took it, less as long as a latency fault held requests, while one did.
    func startedAfter(_ answer: Answer, _ event: Event) -> Bool {
        if let exchange = HTTPExchange(of: event) {
            return exchange.started(after: answer.exchange, answeredAt: answer.evidence.at, tolerance: Self.loopback)
        }
        let held = event.at <= heldUntil + Self.loopback ? heldLongest : 0
        return event.at > answer.evidence.at + Self.loopback + held
    }

    /// A request with an access token: a token first used while the one before was
    /// still valid (and not refused) was minted for it.
    mutating func noteBearer(_ bearer: String, _ event: Event) {
        bearerRequests += 1
        guard lastBearer?.digest != bearer else { return }
        if let last = lastBearer, event.at - last.firstUsed < Self.accessTokenLifetime,
            rejectedBearers[last.digest] == nil
        {
            freshBearers.add(
                evidence(
                    event, api: event.string("api"), subject: "access token " + String(bearer.prefix(8)),
                    "a new access token, while the one before (first used at \(DurationText.stamp(last.firstUsed))) "
                        + "was still valid"))
        }
        lastBearer = (bearer, event.at)
    }

    /// A request again that the app server abandoned before: judged when it gave the
    /// abandoned one less than `sendTimeout`.
    mutating func noteResend(_ key: String, _ event: Event, _ here: () -> ReportEvidence) {
        guard let gaveUp = abandoned[key], gaveUp.exchange == nil || gaveUp.exchange != HTTPExchange(of: event)
        else { return }
        abandoned[key] = nil
        guard gaveUp.waited < Self.sendTimeout else { return }
        var resend = here()
        resend.detail +=
            "; sent again after the same request was abandoned at \(DurationText.stamp(gaveUp.evidence.at)), "
            + "\(DurationText.span(gaveUp.waited)) after it started"
        add(.sendAbandonedTooSoon, resend)
    }

    /// Counts for a phone's high-priority rule (at most `phonesFollowed` phones).
    mutating func followPhone(_ phone: String, _ change: (inout PhonePriority) -> Void) {
        guard priorities[phone] != nil || priorities.count < Self.phonesFollowed else { return }
        change(&priorities[phone, default: PhonePriority()])
    }

    /// Upstream or a receipt written on an app server's connection.
    mutating func observeUpstream(_ event: Event) {
        let id = event.string("id") ?? ""
        let what = event.kind == .receiptToAppServer ? "a delivery receipt" : "an upstream message"
        var connectionID: Int64?
        if case .int(let number)? = event["connection"] { connectionID = number }
        let here = evidence(event, api: "ccs", subject: id, "\(what) written on connection \(connectionID ?? 0)")
        let key = Self.upstreamKey(event)
        if var held = unacked[key] {
            held.connection = connectionID
            held.closed = false
            unacked[key] = held
        } else {
            unacked[key] = Unacked(evidence: here, connection: connectionID)
        }
    }

    static func upstreamKey(_ event: Event) -> String {
        (event.string("sender") ?? "") + "/" + (event.string("id") ?? "")
    }

    /// The phone an event is of: its `device` (a fleet), or the only one.
    static func phone(of event: Event) -> String { event.string("device") ?? "" }

    func connection(_ event: Event) -> String {
        if case .int(let number)? = event["connection"] { return "connection \(number)" }
        return ""
    }

    /// Evidence from the event being read (`event` is its sequence number, from 1).
    func evidence(_ event: Event, api: String? = nil, subject: String, _ detail: String) -> ReportEvidence {
        ReportEvidence(at: event.at, api: api, subject: subject, detail: detail, event: eventCount + 1)
    }

    /// Evidence of a request that came after `first`, the answer it should have heeded.
    static func later(_ here: ReportEvidence, after first: ReportEvidence) -> ReportEvidence {
        var later = here
        later.detail += "; earlier " + first.detail + " at " + DurationText.stamp(first.at)
        return later
    }
}
