/// A fixed window of a message rate: it opens with the first message after the last
/// window closed, and counts the messages in it. A fault's rate rule and a phone's
/// per-device limits count alike.
public struct RateWindow: Sendable, Codable, Equatable {
    public internal(set) var start: Millis?
    public internal(set) var used = 0

    public init(start: Millis? = nil, used: Int = 0) {
        self.start = start
        self.used = used
    }

    /// Whether the window open at `now` has taken `limit` messages already.
    func isFull(limit: Int, per: Millis, at now: Millis) -> Bool {
        guard let start, now < start + per else { return false }
        return used >= limit
    }

    /// One more message at `now`: counted in the open window, or the first of a new one.
    mutating func count(per: Millis, at now: Millis) {
        if let start, now < start + per {
            used += 1
        } else {
            start = now
            used = 1
        }
    }
}
