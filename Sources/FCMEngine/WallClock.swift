/// The engine's reading of the UNIX time: engine time `at` was `unixMillis`. Only an
/// absolute time an app server sends (`apns-expiration`) needs it; everything else
/// runs on engine time alone.
public struct WallClock: Sendable, Equatable, Codable {
    public var at: Millis
    public var unixMillis: Int64

    /// 2026-01-01T00:00:00Z at engine time 0: what a replay reads, every time.
    public static let replayDefault = WallClock(at: 0, unixMillis: 1_767_225_600_000)

    public init(at: Millis, unixMillis: Int64) {
        self.at = at
        self.unixMillis = unixMillis
    }

    /// The UNIX time in whole seconds at engine time `now`.
    public func unixSeconds(at now: Millis) -> Int64 {
        (unixMillis + (now - at)) / 1_000
    }
}

extension DeviceEngine {
    mutating func setWallClock(unixMillis: Int64) {
        wallClock = WallClock(at: now, unixMillis: unixMillis)
    }
}
