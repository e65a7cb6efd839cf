/// The service's limits and defaults: payload sizes and reserved keys, times to
/// live, the pending queue, senders, inactivity and upstream retries.
public enum ServiceLimits {
    /// The largest payload, counted as the UTF-8 bytes of every key and value.
    public static let maxPayloadBytes = 4096
    /// The largest payload of a message to a topic or a condition.
    public static let maxTopicPayloadBytes = 2048
    /// Topics one app instance can be subscribed to.
    public static let maxTopicsPerInstance = 2000
    /// Tokens one topic-management call may name.
    public static let maxTopicBatch = 1000
    /// Tokens one legacy multicast (`registration_ids`) may name.
    public static let maxRegistrationIDs = 1000
    /// The longest time to live a message may ask for: 28 days, in seconds.
    public static let maxTimeToLive: Int64 = 2_419_200
    /// The time to live when a downstream message gives none: 4 weeks.
    public static let defaultDownstreamTimeToLive: Int64 = maxTimeToLive
    /// The time to live when an upstream message gives none: one day.
    public static let defaultUpstreamTimeToLive: Int64 = 86_400
    /// Pending upstream messages a device holds while it cannot reach the service.
    public static let pendingQueueLimit = 20
    /// Senders one app instance can register for.
    public static let maxSenders = 100
    /// How long a device may stay unreachable before messages to it are dropped.
    public static let inactivityLimit: Millis = 30 * Span.day
    /// Upstream retry backoff: first delay and ceiling.
    public static let firstRetryDelay: Millis = Span.second
    public static let maxRetryDelay: Millis = Span.hour
    /// `Retry-After` (seconds) on the HTTP APIs' 503 while the service is down.
    public static let unavailableRetryAfterSeconds = 1

    /// Why a legacy multicast to `count` tokens is refused, or nil (the legacy API's
    /// words for it).
    public static func registrationIDsProblem(count: Int) -> String? {
        if count == 0 { return "\"registration_ids\" is empty" }
        guard count <= maxRegistrationIDs else {
            return "Number of messages on bulk (\(count)) exceeds maximum allowed (\(maxRegistrationIDs))"
        }
        return nil
    }

    /// Why a CCS message naming `registration_ids` is refused: XMPP has no multicast,
    /// a message names one target.
    public static let ccsMulticastProblem = "InvalidJson: XMPP has no multicast; send \"to\" one target"

    /// The size the service counts: bytes of every key and value.
    public static func payloadSize(_ pairs: [KeyValue]) -> Int {
        pairs.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
    }

    /// The size the iOS SDK counts before it sends upstream: the length of every key
    /// and value as `NSString` measures it (UTF-16 code units), not bytes.
    public static func iosUpstreamSize(_ pairs: [KeyValue]) -> Int {
        pairs.reduce(0) { $0 + $1.key.utf16.count + $1.value.utf16.count }
    }

    /// Whether a downstream data key is reserved by the service: `from`,
    /// `message_type`, or anything starting with `google` or `gcm`. Words the
    /// service itself uses, such as `collapse_key`, are allowed (its own value wins).
    /// Letters compare without regard to ASCII case (keys are compared on every
    /// message, so no lowercased copy is made).
    public static func isReservedDataKey(_ key: String) -> Bool {
        // The first letter tells most keys apart from every reserved word.
        switch key.utf8.first.map({ $0 | 0x20 }) {
        case UInt8(ascii: "f"): key.isASCIIWord("from")
        case UInt8(ascii: "m"): key.isASCIIWord("message_type")
        case UInt8(ascii: "g"): key.hasASCIIPrefix("google") || key.hasASCIIPrefix("gcm")
        default: false
        }
    }

    /// Data keys the service fills in itself: a data pair of that name is accepted,
    /// and the app sees the service's value, not the pair.
    public static let serviceDataKeys: [String] = ["collapse_key"]

    /// Whether a data key is one the service fills in itself, in any ASCII case.
    public static func isServiceDataKey(_ key: String) -> Bool {
        serviceDataKeys.contains { key.isASCIIWord($0) }
    }

    public static func isValidTimeToLive(_ seconds: Int64) -> Bool {
        (0...maxTimeToLive).contains(seconds)
    }
}

extension String {
    /// Whether the text starts with `prefix` (written in lowercase ASCII), taking
    /// upper-case ASCII letters as their lower case.
    func hasASCIIPrefix(_ prefix: String) -> Bool {
        var bytes = utf8.makeIterator()
        for expected in prefix.utf8 {
            guard let byte = bytes.next() else { return false }
            let folded = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
            guard folded == expected else { return false }
        }
        return true
    }

    /// Whether the text is `word` (written in lowercase ASCII), in any ASCII case.
    func isASCIIWord(_ word: String) -> Bool {
        utf8.count == word.utf8.count && hasASCIIPrefix(word)
    }
}
