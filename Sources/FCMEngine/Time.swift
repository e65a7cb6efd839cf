/// Engine time: milliseconds since the session started. The engine never reads a
/// clock; every shell hands the time in, so a 28-day TTL replays in microseconds.
public typealias Millis = Int64

/// Named spans of time the rules refer to.
public enum Span {
    public static let second: Millis = 1_000
    public static let minute: Millis = 60 * second
    public static let hour: Millis = 60 * minute
    public static let day: Millis = 24 * hour
}
