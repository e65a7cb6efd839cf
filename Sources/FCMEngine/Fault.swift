/// A failure made on purpose, for test suites: the service answers as the real one
/// does when it is in trouble. Scoped to a request path, a token, a sender or a
/// topic; it lasts `count` uses or until `until` (never open-ended: one use when
/// neither is given).
public struct Fault: Sendable, Equatable, Codable {
    public enum Kind: Sendable, Equatable, Codable {
        /// The whole HTTP request is answered with this status, in the API's own body
        /// (`retryAfter` seconds in `Retry-After` when given).
        case status(Int, retryAfter: Int?)
        /// The message (or each message) in scope fails with this error, named as the
        /// legacy API names it (`Unavailable`, `InternalServerError`,
        /// `DeviceMessageRateExceeded`, `TopicsMessageRateExceeded`); the CCS nack and
        /// the v1 code follow from it. Named as the Instance ID API names a per-token
        /// result (`NOT_FOUND`, `INVALID_ARGUMENT`, `INTERNAL`, `TOO_MANY_TOPICS`,
        /// `RESOURCE_EXHAUSTED`), it fails the token's topic calls instead.
        case error(String)
        /// The HTTP reply waits this long (plus up to `jitter`, drawn from the seed).
        case latency(Millis, jitter: Millis)
        /// The connection is closed before the reply: an HTTP request on `path` gets
        /// none (the socket is reset), a downstream message on one of the sender's CCS
        /// connections ends that connection without an ack.
        case reset
        /// An HTTP/2 connection carrying a request on `path` is told `GOAWAY` (no
        /// stream processed) and closed, so the client sends again on a new one; an
        /// HTTP/1.1 connection is closed before the reply.
        case goaway
        /// The next downstream message on one of the sender's CCS connections makes
        /// the server drain that connection: `CONNECTION_DRAINING`, and the message is
        /// nacked with it.
        case drain
        /// A rate rule as the real service applies it: at most `limit` messages every
        /// `per` in its scope (to a token: the device's rate; to a topic: the topic's
        /// rate; of a sender: the project's quota), the window starting at its first
        /// message, not on the clock's minute. Past it messages fail as FCM fails them.
        case rate(limit: Int, per: Millis)
    }

    public var id = 0
    /// A request path prefix (`/fcm/send`, `/v1`, `/iid`).
    public var path: String?
    public var token: String?
    public var sender: String?
    public var topic: String?
    public var kind: Kind
    /// Uses left, when counted.
    public var count: Int?
    /// How long it lasts from when it is added; becomes `until`.
    public var duration: Millis?
    public var until: Millis?
    /// A rate rule's current window: when it started and how many messages it took.
    public var windowStart: Millis?
    public var windowUsed: Int?

    /// The rate rule's window as a `RateWindow` (kept as two fields, as faults were saved).
    var window: RateWindow {
        get { RateWindow(start: windowStart, used: windowUsed ?? 0) }
        set {
            windowStart = newValue.start
            windowUsed = newValue.used
        }
    }

    public init(
        path: String? = nil, token: String? = nil, sender: String? = nil, topic: String? = nil, kind: Kind,
        count: Int? = nil, duration: Millis? = nil
    ) {
        self.path = path
        self.token = token
        self.sender = sender
        self.topic = topic
        self.kind = kind
        self.count = count
        self.duration = duration
    }

    /// The legacy error names a fault may give, with their CCS nack codes and v1 codes.
    public static let errors: [String: (ccs: String, v1: String)] = [
        "Unavailable": ("SERVICE_UNAVAILABLE", "UNAVAILABLE"),
        "InternalServerError": ("INTERNAL_SERVER_ERROR", "INTERNAL"),
        "DeviceMessageRateExceeded": ("DEVICE_MESSAGE_RATE_EXCEEDED", "QUOTA_EXCEEDED"),
        "TopicsMessageRateExceeded": ("TOPICS_MESSAGE_RATE_EXCEEDED", "QUOTA_EXCEEDED"),
        "QuotaExceeded": ("QUOTA_EXCEEDED", "QUOTA_EXCEEDED"),
    ]

    /// The error a rate rule's refusals carry: the device's rate for a token, the
    /// topic's for a topic, the project's quota for a sender.
    public var rateError: String {
        if token != nil { return "DeviceMessageRateExceeded" }
        if topic != nil { return "TopicsMessageRateExceeded" }
        return "QuotaExceeded"
    }

    /// What a real client's registration or delivery may meet, as its users met it in
    /// the field: register3 answering `Error=PHONE_REGISTRATION_ERROR` (scoped by the
    /// path `/c2dm/register3`), and a message accepted for a token and never delivered
    /// (scoped by token or sender).
    public static let phoneRegistrationError = "PHONE_REGISTRATION_ERROR"
    public static let neverDelivered = "NEVER_DELIVERED"

    /// The per-token errors of topic calls a fault may give.
    public static let topicErrorNames = [
        "NOT_FOUND", "INVALID_ARGUMENT", "INTERNAL", "TOO_MANY_TOPICS", "RESOURCE_EXHAUSTED",
    ]

    /// The topic-call error an error fault names, if it names one.
    static func topicCallError(_ name: String) -> TopicError? {
        topicErrorNames.contains(name) ? TopicError(rawValue: name) : nil
    }

    /// HTTP statuses a status fault may give.
    public static let statuses: Set<Int> = [400, 401, 403, 404, 429, 500, 502, 503, 504]

    /// Why the fault cannot be used, or nil.
    public var problem: String? {
        if path == nil && token == nil && sender == nil && topic == nil {
            return "a fault names its scope: path, token, sender or topic"
        }
        switch kind {
        case .status(let status, let retryAfter):
            if path == nil { return "a status fault answers whole requests: give it a path (/fcm/send, /v1, /iid)" }
            if !Self.statuses.contains(status) {
                return
                    "status \(status) is not one a fault gives (\(Self.statuses.sorted().map(String.init).joined(separator: ", ")))"
            }
            if let retryAfter, !(0...3_600).contains(retryAfter) { return "retry_after is 0 to 3600 seconds" }
        case .error(Self.phoneRegistrationError):
            if path.map({ "/c2dm/register3".hasPrefix($0) }) != true
                || token != nil || sender != nil || topic != nil
            {
                return "PHONE_REGISTRATION_ERROR is register3's answer: scope it by path: /c2dm/register3"
            }
        case .error(Self.neverDelivered):
            if path != nil || topic != nil || (token == nil && sender == nil) {
                return "NEVER_DELIVERED accepts messages and never delivers them: scope it by token or sender"
            }
        case .error(let name):
            if path != nil, token == nil, sender == nil, topic == nil {
                return
                    "an error fault fails messages: scope it by token, sender or topic (path is for status and latency)"
            }
            if Self.errors[name] == nil && Self.topicCallError(name) == nil {
                let names =
                    Self.errors.keys.sorted() + Self.topicErrorNames + [
                        Self.phoneRegistrationError, Self.neverDelivered,
                    ]
                return "error \(name) is not one a fault gives (\(names.joined(separator: ", ")))"
            }
        case .latency(let delay, let jitter):
            if path == nil { return "latency delays HTTP replies: give it a path" }
            if delay < 0 || jitter < 0 || delay + jitter > 60_000 { return "latency is at most 60s" }
        case .reset:
            if path == nil && sender == nil || token != nil || topic != nil {
                return "a reset closes a connection: give it a path (HTTP) or a sender (its CCS connections), "
                    + "not a token or topic"
            }
        case .goaway:
            if path == nil { return "a GOAWAY ends HTTP/2 connections: give it a path (/v1, /fcm/send)" }
        case .drain:
            if sender == nil || path != nil || token != nil || topic != nil {
                return "a drain fault drains a CCS connection: scope it by sender alone"
            }
        case .rate(let limit, let per):
            if path != nil { return "a rate rule counts messages: scope it by token, topic or sender, not path" }
            if [token, topic, sender].compactMap({ $0 }).count != 1 {
                return "a rate rule has one scope: token (the device), topic or sender (the project)"
            }
            if limit < 1 { return "a rate's limit is at least 1 message" }
            if per <= 0 || per > 86_400_000 { return "a rate's period is longer than 0 and at most 1d" }
            if count != nil { return "a rate rule lasts a duration (or until cleared), not a count" }
        }
        if let count, count < 1 { return "count is at least 1" }
        if let duration, duration <= 0 { return "duration must be longer than 0" }
        return nil
    }

    /// An error fault: it fails what the engine does (messages, topic calls, register3),
    /// never a whole HTTP request.
    var failsMessages: Bool {
        if case .error = kind { return true }
        return false
    }

    /// What the fault is, in a few words, for events.
    public var summary: String {
        switch kind {
        case .status(let status, let retryAfter): "status \(status)" + (retryAfter.map { " retry-after \($0)s" } ?? "")
        case .error(let name): "error \(name)"
        case .latency(let delay, let jitter): "latency \(delay)ms" + (jitter > 0 ? " +\(jitter)ms" : "")
        case .reset: "connection reset"
        case .goaway: "HTTP/2 GOAWAY"
        case .drain: "connection draining"
        case .rate(let limit, let per): "rate \(limit) per \(DurationText.span(per))"
        }
    }

    /// Whether a message (or a topic call's token) falls in the fault's scope.
    func covers(token: String?, sender: String, topic: String?) -> Bool {
        (self.token == nil || self.token == token) && (self.sender == nil || self.sender == sender)
            && (self.topic == nil || self.topic == topic)
    }

    /// What the fault does to a whole HTTP request when it answers it instead of
    /// the service (a status, a reset, a GOAWAY); nil for every other kind.
    var answer: FaultEffect? {
        switch kind {
        case .status(let status, let retryAfter): .status(status, retryAfter: retryAfter)
        case .reset: .reset
        case .goaway: .goaway
        case .error, .latency, .drain, .rate: nil
        }
    }

    /// Whether it lasts until cleared when given neither count nor duration.
    var isRule: Bool {
        if case .rate = kind { return true }
        return false
    }
}

/// What a fault does to one HTTP request, for the shell to carry out.
public enum FaultEffect: Sendable, Equatable {
    case status(Int, retryAfter: Int?)
    case delay(Millis)
    /// Close the connection without a reply.
    case reset
    /// Send HTTP/2 `GOAWAY` and close (HTTP/1.1: close) without a reply.
    case goaway

    /// Whether the request is answered by the fault rather than served.
    var answers: Bool {
        switch self {
        case .status, .reset, .goaway: true
        case .delay: false
        }
    }
}
