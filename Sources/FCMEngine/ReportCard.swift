/// The app server's report card: it reads the event log, event by event, and judges
/// what the app server under test did against Google's practices (`ReportRule`).
/// Deterministic: the same events give the same report, so a replayed profile gives
/// the report of the live run it came from. A rule that has not seen enough says
/// nothing. The thresholds left open by Google are chosen in docs/RULES.md.
public struct ReportCard: Sendable {
    /// A request on another connection (or an HTTP/2 stream) that started within
    /// this long of an answer that condemned its token or its access token is taken
    /// to have been in flight when the answer left (loopback scheduling: the answer is
    /// written a moment after the device decided it). On the same HTTP/1.1 connection
    /// any later request started after the answer.
    public static let loopback: Millis = 2
    /// How long a 429 without `Retry-After` asks the app server to wait.
    public static let quotaWait: Millis = Span.minute
    /// The least time a send is given before the app server treats it as failed.
    public static let sendTimeout: Millis = 10 * Span.second
    /// How long an access token is valid (the emulator's tokens, as Google's).
    public static let accessTokenLifetime: Millis = Span.hour
    /// At least this many requests with access tokens before a token per request is judged.
    public static let tokenRequestsJudged = 5
    /// The least wait before a first retry of a 500 or 503 without `Retry-After`.
    public static let firstRetryWait: Millis = 10 * Span.second
    /// A retry's wait is growing when it is at least this many times the one before.
    public static let backoffGrowth = 1.5
    /// Retries whose waits do not grow before backing off is judged missing.
    public static let flatRetries = 3

    var found: [ReportRule: ReportFinding] = [:]
    /// What was found before the last reset (kept for the run's report).
    var earlier: [ReportRule: ReportFinding] = [:]
    /// App-server requests read since the last reset, and before it.
    var requests = 0
    var earlierRequests = 0
    /// Downstream messages sent to the device (an app server's or a profile's push,
    /// taken or refused), since the last reset and before it: the device-side rules
    /// judge every one.
    var messages = 0
    var earlierMessages = 0
    /// Events read so far.
    public internal(set) var eventCount = 0

    /// The most phones whose high-priority messages are followed (a topic to a
    /// million phones must not grow the card by a million entries).
    public static let phonesFollowed = 10_000
    /// Web Push subscriptions (their endpoint) the push service answered 404 or 410: that answer.
    var goneSubscriptions: [String: ReportEvidence] = [:]
    /// Tokens FCM called unregistered or invalid: the answer that said so.
    var deadTokens: [String: Answer] = [:]
    /// Access tokens (their digest) answered 401: the answer.
    var rejectedBearers: [String: Answer] = [:]
    /// Requests (`api/digest`) refused for good: the first answer.
    var refused: [String: ReportEvidence] = [:]
    /// Requests whose last answer asked for a retry.
    var retrying: [String: RetryChain] = [:]
    /// The time a refused or retried request was last seen, so the several events of
    /// one request (a multicast's targets) count as one attempt.
    var lastSeen: [String: Millis] = [:]
    /// Sends to each Android token in the last minute and the last hour.
    var recentSends: [String: SendWindow] = [:]
    /// High-priority data messages each Android phone's app got, and notifications it showed.
    var priorities: [String: PhonePriority] = [:]
    /// The latest a latency fault holds a request, and the longest it held one.
    var heldUntil: Millis = .min / 2
    var heldLongest: Millis = 0
    /// The chain a part of a request ended just now (a multicast's parts each answer).
    var lastSettled: (key: String, at: Millis, chain: RetryChain)?
    /// Upstream and receipts written to an app server and not acked yet.
    var unacked: [String: Unacked] = [:]
    /// When each connection was told CONNECTION_DRAINING.
    var drainingSince: [Int64: Millis] = [:]
    /// The last legacy request counted (its time and digest).
    var lastLegacy: (Millis, String)?
    /// Requests that carried an access token (v1 sends).
    var bearerRequests = 0
    /// Access tokens first used while the one before was still valid and not refused:
    /// one minted for each request (counted, with examples).
    var freshBearers = ReportFinding(rule: .accessTokenPerRequest)
    /// The last access token used (its digest) and when it was first used.
    var lastBearer: (digest: String, firstUsed: Millis)?
    /// Sends the app server went away from before their answer, by request
    /// (`api/digest`): the event, how long it waited, and where it started.
    var abandoned: [String: Abandoned] = [:]

    public init() {}

    /// An answer that condemned a token or an access token, and the request it
    /// answered (where and when it started, for an HTTP request).
    struct Answer {
        var evidence: ReportEvidence
        var exchange: HTTPExchange?
    }

    struct Abandoned {
        var evidence: ReportEvidence
        var waited: Millis
        var exchange: HTTPExchange?
    }

    struct RetryChain {
        var lastAttempt: Millis
        /// No retry before this (Retry-After, or a minute after a bare 429).
        var notBefore: Millis?
        /// Whether the last answer was a 500 or 503 without Retry-After.
        var bareServerError: Bool
        var retries = 0
        /// The waits between attempts that no Retry-After dictated.
        var freeWaits: [Millis] = []
        var judged = false
        var first: ReportEvidence
    }

    /// The times of the sends to one token in the last hour, oldest first; the last
    /// minute's are those from `minuteStart`.
    struct PhonePriority {
        var unseen = ReportFinding(rule: .highPriorityUnseen)
        var shown = 0
    }

    struct SendWindow {
        var times: [Millis] = []
        var hourStart = 0
        var minuteStart = 0

        /// Counts a send at `time`: how many in the minute and the hour up to it.
        mutating func record(_ time: Millis) -> (minute: Int, hour: Int) {
            times.append(time)
            while times[hourStart] <= time - Span.hour { hourStart += 1 }
            minuteStart = max(minuteStart, hourStart)
            while times[minuteStart] <= time - Span.minute { minuteStart += 1 }
            // What fell out of the hour is dropped now and then, not on every send.
            if hourStart > 4_096, hourStart * 2 > times.count {
                times.removeFirst(hourStart)
                minuteStart -= hourStart
                hourStart = 0
            }
            return (times.count - minuteStart, times.count - hourStart)
        }
    }

    struct Unacked {
        var evidence: ReportEvidence
        var connection: Int64?
        var retried = false
        var closed = false
    }

    /// The report as the events since the last reset stand (what `GET report` gives).
    public var report: AppServerReport {
        AppServerReport(findings: Array(sinceReset.values), requests: requests, messages: messages)
    }

    /// The report of the whole run, resets and all (what `exec` and `serve` give at
    /// the end: a test suite that resets the device before each test is judged whole).
    public var runReport: AppServerReport {
        var findings = earlier
        for (rule, finding) in sinceReset {
            var merged = findings[rule] ?? ReportFinding(rule: rule)
            merged.count += finding.count
            for evidence in finding.examples where merged.examples.count < ReportFinding.exampleLimit {
                merged.examples.append(evidence)
            }
            findings[rule] = merged
        }
        return AppServerReport(
            findings: Array(findings.values), requests: requests + earlierRequests,
            messages: messages + earlierMessages)
    }

    /// The findings since the last reset, the rules judged at the end included.
    var sinceReset: [ReportRule: ReportFinding] {
        var findings = found
        for phone in priorities.keys.sorted() {
            guard let counts = priorities[phone], counts.unseen.count > counts.shown else { continue }
            let unseen = counts.unseen
            var finding = findings[.highPriorityUnseen] ?? ReportFinding(rule: .highPriorityUnseen)
            for evidence in unseen.examples where finding.examples.count < ReportFinding.exampleLimit {
                finding.examples.append(evidence)
            }
            finding.count += unseen.count
            findings[.highPriorityUnseen] = finding
        }
        if bearerRequests >= Self.tokenRequestsJudged, freshBearers.count * 2 >= bearerRequests {
            findings[.accessTokenPerRequest] = freshBearers
        }
        for key in unacked.keys.sorted() {
            guard let held = unacked[key], held.retried || held.closed else { continue }
            var evidence = held.evidence
            evidence.detail += held.retried ? "; not acked, so sent again" : "; its connection closed with it unacked"
            findings[.upstreamNotAcked, default: ReportFinding(rule: .upstreamNotAcked)].add(evidence)
        }
        return findings
    }

    /// Counts one more case of `rule` without evidence when its finding keeps no more
    /// examples (a load test's hundred-thousandth send to one phone is counted, not
    /// written out); false when the evidence is wanted.
    mutating func countedWithoutEvidence(_ rule: ReportRule) -> Bool {
        guard let kept = found[rule], kept.examples.count >= ReportFinding.exampleLimit else { return false }
        found[rule]?.count += 1
        return true
    }

    mutating func add(_ rule: ReportRule, _ evidence: ReportEvidence) {
        // An API's use is noted once, with its first request as the evidence.
        if rule == .legacyHTTPAPI || rule == .legacyXMPPAPI, found[rule] != nil {
            found[rule]?.count += 1
            return
        }
        found[rule, default: ReportFinding(rule: rule)].add(evidence)
    }
}
