import FCMEngine
import Synchronization

/// The one clock of a running device session: milliseconds on the real
/// (monotonic) clock since the session began, plus wherever the device's clock
/// stood when it began (a resumed device goes on from there), plus the time the
/// TUI's clock keys moved it on. Every shell of the session reads this one.
public final class SessionClock: Sendable {
    let began = ContinuousClock.now
    let offset: Mutex<Millis>

    public init(startingAt start: Millis = 0) {
        offset = Mutex(start)
    }

    /// The session's time now.
    public var now: Millis {
        let elapsed = ContinuousClock.now - began
        let millis = elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return millis + offset.withLock { $0 }
    }

    /// Moves the clock on (never back).
    public func moveOn(by span: Millis) {
        offset.withLock { $0 += max(0, span) }
    }

}
