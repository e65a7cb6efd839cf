import FCMEngine
import Foundation
import Synchronization

/// The one clock of a running device session. On the real clock: milliseconds on the
/// (monotonic) clock since the session began, plus wherever the device's clock stood
/// when it began (a resumed device goes on from there), plus the time the TUI's clock
/// keys moved it on. A manual clock (a `ManualLoop`'s) moves only when it is moved.
/// Every shell of the session reads this one.
public final class SessionClock: Sendable {
    /// When the session began on the real clock; nil for a manual clock.
    let began: ContinuousClock.Instant?
    let offset: Mutex<Millis>

    /// A clock on the real time, starting at `start`.
    public init(startingAt start: Millis = 0) {
        began = ContinuousClock.now
        offset = Mutex(start)
    }

    /// A clock that stands at `start` until it is moved on.
    init(manualFrom start: Millis) {
        began = nil
        offset = Mutex(start)
    }

    /// Whether the clock runs on the real time (a served session's).
    public var isReal: Bool { began != nil }

    /// The session's time now.
    public var now: Millis {
        guard let began else { return offset.withLock { $0 } }
        let elapsed = ContinuousClock.now - began
        let millis = elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return millis + offset.withLock { $0 }
    }

    /// Moves the clock on (never back).
    public func moveOn(by span: Millis) {
        offset.withLock { $0 += max(0, span) }
    }

    /// Moves a manual clock on to `time` (never back); the real clock moves itself.
    func moveOn(to time: Millis) {
        guard began == nil else { return }
        offset.withLock { $0 = max($0, time) }
    }

    /// The wall clock's time in Unix milliseconds, for a session on the real clock (the
    /// engine reads app servers' absolute times against it); nil for a manual clock,
    /// whose device keeps the wall clock it was given.
    public var unixMillis: Int64? {
        guard began != nil else { return nil }
        return Self.unixMillisNow
    }

    /// The wall clock's time now in Unix milliseconds.
    public static var unixMillisNow: Int64 { Int64((Date().timeIntervalSince1970 * 1_000).rounded()) }
}
