/// What production does to a message beyond the protocol (docs/RULES.md, Production policies):
/// the per-device message rate, collapsible throttling, expired tokens, and what the
/// system of each platform does with a notification (permission, channels).
extension DeviceEngine {
    /// Whether production's per-device limits apply (on unless a profile or a flag
    /// turns them off).
    var deviceLimitsOn: Bool { configuration.store.deviceLimits }

    /// Why a message for one token passes its device's message rate, or nil: 240 a
    /// minute and 5,000 an hour to one Android phone. A dry run and a topic's copies
    /// do not count.
    /// Inlined: a call from `admit` would copy the whole engine to pass it.
    @inline(__always) func rateProblem(_ request: DownstreamRequest) -> DownstreamError? {
        guard deviceLimitsOn, !request.isTopicSend, !request.dryRun,
            let index = candidate(holding: request.to ?? ""), phone(index, { $0.platform }) == .android
        else { return nil }
        let (minute, hour) = phone(index) { ($0.policy.minute, $0.policy.hour) }
        if minute.isFull(limit: DeviceLimits.perMinute, per: Span.minute, at: now) {
            return .deviceRateExceeded("\(DeviceLimits.perMinute) messages a minute")
        }
        if hour.isFull(limit: DeviceLimits.perHour, per: Span.hour, at: now) {
            return .deviceRateExceeded("\(DeviceLimits.perHour) messages an hour")
        }
        return nil
    }

    /// The phone at `p` took a message for its token: it counts toward the rate.
    mutating func countTowardRate(_ request: DownstreamRequest, on p: Int) {
        guard deviceLimitsOn, self[p].platform == .android, !request.dryRun else { return }
        let time = now
        self[p].policy.minute.count(per: Span.minute, at: time)
        self[p].policy.hour.count(per: Span.hour, at: time)
    }

    /// The phone at `p` hands a collapsible message to the app: it spends the budget.
    mutating func spendCollapsibleBudget(_ request: DownstreamRequest, on p: Int) {
        guard deviceLimitsOn, self[p].platform == .android, request.collapseKey != nil else { return }
        let time = now
        self[p].policy.refill(at: time)
        self[p].policy.budget = max(0, self[p].policy.budget - 1)
    }

    /// Whether `token` of the phone at `index` is expired now: an Android app
    /// instance unreachable for 270 days (its tokens then), until the app is opened
    /// while connected.
    /// `token` is read only when the phone may hold an expired one (a topic's million
    /// copies do not look up a million tokens).
    func tokenExpired(_ token: @autoclosure () -> String?, phoneAt index: Int) -> Bool {
        // One field at a time: a closure that does more copies the whole phone, and
        // this runs on every send to a token.
        let since = phone(index) { $0.unreachableSince }
        let anyExpired = phone(index) { !$0.policy.expiredTokens.isEmpty }
        guard since != nil || anyExpired else { return false }
        let platform = phone(index) { $0.platform }
        if let at = DeviceLimits.tokensExpireAt(unreachableSince: since, platform: platform), at <= now { return true }
        guard anyExpired, let token = token() else { return false }
        return phone(index) { $0.policy.expiredTokens }.contains(token)
    }

    /// Whether `token` is expired on the phone it was issued on (false for a token no
    /// phone holds): sends, topic calls and group calls refuse it alike.
    func tokenHasExpired(_ token: String) -> Bool {
        candidate(holding: token).map { tokenExpired(token, phoneAt: $0) } ?? false
    }

    /// The phone at `p` reached the service again: after 270 days away its tokens
    /// are expired (FCM said so to every send since), and it gets new ones when the
    /// app is opened.
    mutating func noteTokenExpiry(unreachableSince since: Millis, on p: Int, into out: inout [Event]) {
        guard let at = DeviceLimits.tokensExpireAt(unreachableSince: since, platform: self[p].platform), at <= now
        else {
            return
        }
        let expired = self[p].senders.compactMap { self[p].tokens[$0.id] }.filter {
            !self[p].policy.expiredTokens.contains($0)
        }
        guard !expired.isEmpty else { return }
        self[p].policy.expiredTokens = (self[p].policy.expiredTokens + expired).sorted()
        for sender in self[p].senders {
            guard let token = self[p].tokens[sender.id], expired.contains(token) else { continue }
            emit(
                .server, .tokenExpired,
                [
                    .text("sender", sender.id), .text("token", token),
                    .text(
                        "detail",
                        "not connected for \((now - since) / Span.day) days; a new token comes when the app is opened"
                    ),
                ], on: p, into: &out)
        }
    }

    /// The app of the phone at `p` is opened while connected: expired tokens are
    /// replaced (`onNewToken` for each of their senders).
    mutating func renewExpiredTokens(on p: Int, into out: inout [Event]) {
        guard !self[p].policy.expiredTokens.isEmpty, connected(p), self[p].appState == .foreground else { return }
        let expired = self[p].policy.expiredTokens
        self[p].policy.expiredTokens.removeAll()
        for sender in self[p].senders where self[p].tokens[sender.id].map(expired.contains) ?? false {
            self[p].refreshes[sender.id, default: 0] += 1
            issueToken(for: sender, on: p, into: &out)
        }
    }
}

/// What the system of a phone does with a notification the SDK or APNs hands it.
enum NotificationOutcome {
    /// Shown, with these fields for `notificationPosted` (its channel, or a quiet delivery).
    case shown([Field])
    /// Not shown, and why.
    case blocked(String)
}

extension DeviceEngine {

    /// The channel the Android SDK makes for notifications with nowhere else to go.
    static let fallbackChannel = "fcm_fallback_notification_channel"
}
