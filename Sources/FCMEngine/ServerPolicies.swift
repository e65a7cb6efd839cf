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

/// Limits of the connection server's store for an unreachable device.
public struct StorePolicy: Sendable, Equatable, Codable {
    public var nonCollapsibleLimit: Int
    public var collapseKeyLimit: Int
    public var eviction: CollapseEviction

    public init(nonCollapsibleLimit: Int = 100, collapseKeyLimit: Int = 4, eviction: CollapseEviction = .oldest) {
        self.nonCollapsibleLimit = nonCollapsibleLimit
        self.collapseKeyLimit = collapseKeyLimit
        self.eviction = eviction
    }
}
