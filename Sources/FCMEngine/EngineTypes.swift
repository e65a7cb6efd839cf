/// Upstream ids whose success callback is waiting to be delivered as one batch.
public struct SendBatch: Sendable, Equatable, Codable {
    public var ids: [String]
    public var flushAt: Millis
}

/// An upstream message the connection server forwarded to the app server and
/// holds until it is acknowledged.
public struct HeldUpstream: Sendable, Equatable, Codable {
    public var message: UpstreamMessage
    public var attempts: Int
    public var nextRetryAt: Millis
    public var retryDelay: Millis
}

/// A downstream message the connection server accepted and holds for the device.
public struct StoredMessage: Sendable, Equatable, Codable {
    public var id: String
    public var request: DownstreamRequest
    public var acceptedAt: Millis
    public var timeToLive: Int64
    /// What the app sees as `from` when it is not the sender: `/topics/NAME` for a
    /// topic message.
    public var from: String?

    public init(id: String, request: DownstreamRequest, acceptedAt: Millis, timeToLive: Int64, from: String? = nil) {
        self.id = id
        self.request = request
        self.acceptedAt = acceptedAt
        self.timeToLive = timeToLive
        self.from = from
    }

    public var expiresAt: Millis { acceptedAt + timeToLive * Span.second }
}

/// A delivery receipt the connection server owes an app server: sent on the
/// sender's connections until one acknowledges it (as CCS treats every message it
/// sends an app server).
public struct OwedReceipt: Sendable, Equatable, Codable {
    public var sender: String
    /// The downstream message delivered; the receipt's own id is `dr2:` + this.
    public var originalID: String
    public var token: String
    public var sentAt: Millis
    /// The app of the phone it was delivered to (nil in states saved before several phones).
    public var category: String? = nil

    public var id: String { Self.idPrefix + originalID }
}

/// A notification shown in the Android tray or the iOS notification centre.
public struct TrayNotification: Sendable, Equatable, Codable {
    public var id: String
    public var sender: String
    public var title: String
    public var body: String
    public var notification: [KeyValue]
    /// Data handed to the app only when the user taps the notification.
    public var data: [KeyValue]
    public var postedAt: Millis
}

/// A downstream message the app's code received, for the inbox view.
public struct DeliveredMessage: Sendable, Equatable, Codable {
    public var id: String
    public var sender: String
    public var data: [KeyValue]
    public var notification: [KeyValue]?
    public var collapseKey: String?
    public var priority: Priority
    public var at: Millis
    /// The callback or tray action that handed it over.
    public var via: String
    /// What the app saw as `from` when it was not the sender (`/topics/NAME`).
    public var from: String? = nil
}

extension Field {
    static func text(_ name: String, _ value: String) -> Field { Field(name, .string(value)) }
    static func number(_ name: String, _ value: Int64) -> Field { Field(name, .int(value)) }
    static func number(_ name: String, _ value: Int) -> Field { Field(name, .int(Int64(value))) }
    static func flag(_ name: String, _ value: Bool) -> Field { Field(name, .bool(value)) }
}

/// The upstream messages the connection server holds for an app server's ack, in
/// the order they were taken, found by (sender, id) at once: an ack removes its
/// message without shifting the rest (20,000 may be held at a time). Saved as the
/// plain list of messages.
public struct HeldUpstreams: Sequence, Sendable, Equatable, Codable {
    private var slots: [HeldUpstream?] = []
    private var index: [MessageKey: Int] = [:]

    init(_ items: [HeldUpstream] = []) {
        for item in items { append(item) }
    }

    public var count: Int { index.count }
    public var isEmpty: Bool { index.isEmpty }
    public var first: HeldUpstream? { slots.lazy.compactMap { $0 }.first }

    public func makeIterator() -> some IteratorProtocol<HeldUpstream> {
        slots.lazy.compactMap { $0 }.makeIterator()
    }

    subscript(key: MessageKey) -> HeldUpstream? {
        index[key].flatMap { slots[$0] }
    }

    mutating func append(_ item: HeldUpstream) {
        if let old = index[item.heapKey] { slots[old] = nil }
        index[item.heapKey] = slots.count
        slots.append(item)
    }

    /// Removes the message with this key, if held.
    @discardableResult
    mutating func remove(_ key: MessageKey) -> HeldUpstream? {
        guard let position = index.removeValue(forKey: key) else { return nil }
        let item = slots[position]
        slots[position] = nil
        // Gaps are closed in one pass once they are half the slots.
        if slots.count > 64 && index.count * 2 < slots.count { self = HeldUpstreams(Array(self)) }
        return item
    }

    public static func == (lhs: HeldUpstreams, rhs: HeldUpstreams) -> Bool { Array(lhs) == Array(rhs) }

    public init(from decoder: any Decoder) throws {
        self.init(try [HeldUpstream](from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try Array(self).encode(to: encoder)
    }
}
