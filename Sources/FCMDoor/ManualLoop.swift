import FCMEngine
import Foundation

/// The loop of a session its owner runs (the TUI's own session, with no listeners or
/// after a fork, and tests): its tasks wait, in the order they fall due, until
/// `run(until:)` reaches them. Its clock is the real one (the TUI's own session: the
/// owner runs the loop as time passes) or one that only `run(until:)` moves (a fork
/// on play mode's clock, tests). Every caller is on the loop; a task runs on the
/// thread that runs the loop.
public final class ManualLoop: SessionLoop, @unchecked Sendable {
    private struct Task {
        var due: Millis
        var order: Int
        var cancelled: Cancelled
        var run: @Sendable () -> Void
    }

    private final class Cancelled: SessionTimer, @unchecked Sendable {
        let lock = NSLock()
        var value = false
        func cancel() { lock.withLock { value = true } }
        var isSet: Bool { lock.withLock { value } }
    }

    private let lock = NSLock()
    private var tasks: [Task] = []
    private var made = 0
    /// The session's clock, which only this loop (and the session's clock keys) moves.
    public let clock: SessionClock

    /// A loop whose clock reads `start` now: on the real time, or moved by `run(until:)` only.
    public init(startingAt start: Millis = 0, realTime: Bool = false) {
        clock = realTime ? SessionClock(startingAt: start) : SessionClock(manualFrom: start)
    }

    public var inLoop: Bool { true }

    /// This loop's own clock, moved on to `start`.
    public func clock(startingAt start: Millis) -> SessionClock {
        clock.moveOn(to: start)
        return clock
    }

    public func execute(_ task: @escaping @Sendable () -> Void) { task() }

    public func schedule(in span: Millis, _ task: @escaping @Sendable () -> Void) -> any SessionTimer {
        let cancelled = Cancelled()
        lock.withLock {
            made += 1
            tasks.append(Task(due: clock.now + max(0, span), order: made, cancelled: cancelled, run: task))
        }
        return cancelled
    }

    /// When the next task falls due, if any waits.
    public var nextDue: Millis? {
        lock.withLock { tasks.lazy.filter { !$0.cancelled.isSet }.map(\.due).min() }
    }

    /// Runs each task due by `time`, in order, a moved clock going on to each task's
    /// time and then to `time` (never back); a task may schedule another, which runs
    /// too if it falls due by `time`. True when any task ran.
    @discardableResult
    public func run(until time: Millis) -> Bool {
        var ran = false
        while let task = takeNext(dueBy: time) {
            clock.moveOn(to: task.due)
            task.run()
            ran = true
        }
        clock.moveOn(to: time)
        return ran
    }

    private func takeNext(dueBy time: Millis) -> Task? {
        lock.withLock {
            tasks.removeAll { $0.cancelled.isSet }
            guard
                let next = tasks.indices.min(by: { (tasks[$0].due, tasks[$0].order) < (tasks[$1].due, tasks[$1].order) }
                ),
                tasks[next].due <= time
            else { return nil }
            return tasks.remove(at: next)
        }
    }
}
