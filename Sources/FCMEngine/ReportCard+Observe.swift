/// How the report card reads each event.
extension ReportCard {
    /// Reads the next event of the log.
    public mutating func observe(_ event: Event) {
        defer { eventCount += 1 }
        switch event.kind {
        case .deviceReset:
            // The control API's reset starts a new report.
            let count = eventCount
            self = ReportCard()
            eventCount = count
        case .downstreamAccepted, .downstreamRejected: observeSend(event)
        case .requestRejected: observeRefusedRequest(event)
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
            let phone = Self.phone(of: event)
            if event.string("priority") == "high", event["notification"] == nil,
                highUnseen[phone] != nil || highUnseen.count < Self.phonesFollowed
            {
                let detail = "a high-priority data message reached the app and nothing was shown"
                highUnseen[phone, default: ReportFinding(rule: .highPriorityUnseen)].add(
                    evidence(event, subject: event.string("id") ?? "", detail))
            }
        case .notificationPosted:
            let phone = Self.phone(of: event)
            if highUnseen[phone] != nil || shown.count < Self.phonesFollowed { shown[phone, default: 0] += 1 }
        case .appServerConnected:
            // The built-in echo app server is no login (its connection has no number).
            guard event.int("connection") != nil else { break }
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
            if event.string("error") == "CONNECTION_DRAINING", case .int(let connection)? = event["connection"],
                let since = drainingSince[connection], event.at > since + Self.inFlight
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
        let token = event.string("token")
        let error = event.string("error")
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
        if let token, !deadTokens.isEmpty, let dead = deadTokens[token], event.at > dead.at + Self.inFlight {
            add(.unregisteredTokenReused, Self.later(here(), after: dead))
        }
        let key = refused.isEmpty && retrying.isEmpty && error == nil ? "" : api + "/" + digest
        if !key.isEmpty { attempt(key, here) }
        switch error {
        case nil:
            if !key.isEmpty { settle(key, at: event.at) }
            if let token, event["dry_run"] != .bool(true), event.string("platform") == Platform.android.rawValue {
                countSend(to: token, at: event.at, here)
            }
        case "NotRegistered"?, "InvalidRegistration"?:
            if let token, deadTokens[token] == nil { deadTokens[token] = here() }
        case "DeviceMessageRateExceeded"?, "TopicsMessageRateExceeded"?:
            if let token, event["dry_run"] != .bool(true) { countSend(to: token, at: event.at, here) }
            retry(key, here(), wait: api == "v1" ? Self.quotaWait : nil, bareServerError: false)
        case "Unavailable"?, "InternalServerError"?:
            let wait = event.int("retry_after").map { $0 * Span.second }
            retry(key, here(), wait: wait, bareServerError: wait == nil)
        default:
            settle(key, at: event.at)
            if refused[key] == nil {
                refused[key] = here()
                lastSeen[key] = event.at
            }
        }
    }

    /// An HTTP request the shell refused before the device saw it.
    mutating func observeRefusedRequest(_ event: Event) {
        let path = event.string("path") ?? ""
        let status = Int(event.int("status") ?? 0)
        let line = "answered \(status)" + (event.int("retry_after").map { " (Retry-After \($0) s)" } ?? "")
        let here = evidence(event, api: event.string("api"), subject: path, line)
        if path.hasSuffix("/batch") {
            add(.batchEndpoint, here)
            return
        }
        if let bearer = event.string("bearer") {
            if let first = rejectedBearers[bearer], event.at > first.at + Self.inFlight {
                add(.rejectedAccessTokenReused, Self.later(here, after: first))
            }
            if status == 401, rejectedBearers[bearer] == nil { rejectedBearers[bearer] = here }
        }
        guard let digest = event.string("request"), let api = event.string("api") else { return }
        if api == "legacy" { add(.legacyHTTPAPI, here) }
        let key = api + "/" + digest
        attempt(key) { here }
        switch status {
        case 400, 403, 404:
            settle(key, at: event.at)
            if refused[key] == nil {
                refused[key] = here
                lastSeen[key] = here.at
            }
        case 429:
            let wait = event.int("retry_after").map { $0 * Span.second } ?? Self.quotaWait
            retry(key, here, wait: wait, bareServerError: false)
        case 500...599:
            let wait = event.int("retry_after").map { $0 * Span.second }
            retry(key, here, wait: wait, bareServerError: wait == nil && (status == 500 || status == 503))
        default: break
        }
    }

    /// One more attempt of a request: judged against what its earlier answers asked.
    mutating func attempt(_ key: String, _ evidence: () -> ReportEvidence) {
        guard refused[key] != nil || retrying[key] != nil else { return }
        let here = evidence()
        guard lastSeen[key] != here.at else { return }
        lastSeen[key] = here.at
        if let first = refused[key] { add(.permanentErrorResent, Self.later(here, after: first)) }
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
            if refused[key] == nil { lastSeen[key] = nil }
        }
    }

    /// A send to an Android token, counted in its minute and hour (in place: a load
    /// test sends thousands to one token).
    mutating func countSend(to token: String, at time: Millis, _ evidence: () -> ReportEvidence) {
        let (minute, hour) = recentSends[token, default: SendWindow()].record(time)
        guard minute > DeviceLimits.perMinute || hour > DeviceLimits.perHour else { return }
        var over = evidence()
        over.detail +=
            minute > DeviceLimits.perMinute
            ? "; message \(minute) to this device within a minute"
            : "; message \(hour) to this device within an hour"
        add(.deviceRateExceeded, over)
    }

    /// An app server's topic call for a token (`by`: the API it used).
    mutating func observeTopicCall(_ event: Event) {
        guard let by = event.string("by"), let token = event.string("token") else { return }
        let here = evidence(event, api: by, subject: TokenText.short(token), "topic \(event.string("topic") ?? "")")
        if let dead = deadTokens[token], event.at > dead.at + Self.inFlight {
            add(.unregisteredTokenReused, Self.later(here, after: dead))
        }
        if event.kind == .topicRefused, ["NOT_FOUND", "INVALID_ARGUMENT"].contains(event.string("error") ?? ""),
            deadTokens[token] == nil
        {
            var answer = here
            answer.detail += " refused \(event.string("error") ?? "")"
            deadTokens[token] = answer
        }
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
