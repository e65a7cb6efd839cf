/// How `onMessageSent` callbacks are grouped: a batch opens with the first accepted
/// message and is delivered when `window` has passed or `max` ids are waiting.
public struct BatchPolicy: Sendable, Equatable, Codable {
    public var window: Millis
    public var max: Int

    public init(window: Millis = 2 * Span.second, max: Int = 10) {
        self.window = window
        self.max = max
    }
}

/// Which stored message goes when a fifth collapse key arrives (the real service
/// promises nothing; the emulator picks one rule).
public enum CollapseEviction: String, Sendable, CaseIterable, Codable {
    /// The message with the oldest stored collapse key is discarded.
    case oldest
    /// The incoming message is discarded.
    case incoming
}

/// Limits of the connection server: its store for an unreachable device, and
/// production's per-device limits (`DeviceLimits`).
public struct StorePolicy: Sendable, Equatable, Codable {
    public var nonCollapsibleLimit: Int
    public var collapseKeyLimit: Int
    public var eviction: CollapseEviction
    /// Production's per-device message rate and collapsible throttling (on unless a
    /// load test turns them off).
    public var deviceLimits: Bool
    /// The copies of a topic or condition message that go out in one input: the first
    /// batch with the message, before its answer, the rest in `JournalEntry.fanOut`s
    /// (`TopicFanOut`).
    public var fanOutBatch: Int

    /// The copies one fan-out batch sends unless a profile says otherwise.
    public static let defaultFanOutBatch = 10_000
    /// What a profile's `fan_out_batch` may be.
    public static let fanOutBatchRange = 1...1_000_000

    public init(
        nonCollapsibleLimit: Int = 100, collapseKeyLimit: Int = 4, eviction: CollapseEviction = .oldest,
        deviceLimits: Bool = true, fanOutBatch: Int = StorePolicy.defaultFanOutBatch
    ) {
        self.nonCollapsibleLimit = nonCollapsibleLimit
        self.collapseKeyLimit = collapseKeyLimit
        self.eviction = eviction
        self.deviceLimits = deviceLimits
        self.fanOutBatch = fanOutBatch
    }

    enum CodingKeys: String, CodingKey {
        case nonCollapsibleLimit, collapseKeyLimit, eviction, deviceLimits, fanOutBatch
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        nonCollapsibleLimit = try c.decode(Int.self, forKey: .nonCollapsibleLimit)
        collapseKeyLimit = try c.decode(Int.self, forKey: .collapseKeyLimit)
        eviction = try c.decode(CollapseEviction.self, forKey: .eviction)
        // Since production's limits: a device saved before them has them on.
        deviceLimits = try c.decodeIfPresent(Bool.self, forKey: .deviceLimits) ?? true
        fanOutBatch = try c.decodeIfPresent(Int.self, forKey: .fanOutBatch) ?? Self.defaultFanOutBatch
    }
}
