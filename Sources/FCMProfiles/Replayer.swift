import FCMEngine

/// The outcome of one expectation.
public struct CheckResult: Sendable {
    public var step: Step
    public var expectation: Expectation
    public var negated: Bool
    public var passed: Bool
    /// What happened instead, when it failed.
    public var detail: String?
}

/// A replayed profile: every event, and how each `expect` fared.
public struct ReplayResult: Sendable {
    /// The device's and server's events (the checks are not among them).
    public var events: [Event]
    public var checks: [CheckResult]
    /// Index into `events` before which each check was judged (for the transcript).
    public var checkPositions: [Int]

    public var failures: [CheckResult] { checks.filter { !$0.passed } }
    public var passed: Bool { failures.isEmpty }
}

extension ReplayResult {
    /// Every event with the checks' among them, in the order they happened: the log
    /// a live run of the profile writes (what its report card reads).
    public var log: [Event] {
        var log: [Event] = []
        log.reserveCapacity(events.count + checks.count)
        var next = 0
        for (index, event) in events.enumerated() {
            while next < checks.count, checkPositions[next] <= index {
                log.append(checks[next].event(at: checks[next].step.at))
                next += 1
            }
            log.append(event)
        }
        log += checks[next...].map { $0.event(at: $0.step.at) }
        return log
    }
}

/// Runs a profile headless on a virtual clock: the scenario runner plays each step
/// at its time, timers fire between them, and time runs on until nothing is left.
public enum Replayer {
    /// How far past the last step replay goes at most when no `end` is given.
    public static let settleLimit: Millis = 60 * Span.day

    public static func run(_ profile: Profile) -> ReplayResult {
        var engine = DeviceEngine(profile.configuration)
        var runner = ScenarioRunner(steps: profile.steps)
        var all: [Event] = []
        engine.handle(.start(at: 0), into: &all)
        runner.observe(all)
        while let next = runner.nextAt {
            // The timers' events go straight into the list: a list of their own, added
            // after, retained and released every event once more.
            let start = all.count
            engine.handle(.advance(to: next), into: &all)
            runner.observe(all[start...])
            runner.play(until: next, on: &engine, into: &all)
        }
        let last = profile.steps.last?.at ?? 0
        let end = profile.end ?? (last + settleLimit)
        while let deadline = engine.nextDeadline, deadline <= end {
            engine.handle(.advance(to: deadline), into: &all)
        }
        if profile.end != nil { engine.handle(.advance(to: end), into: &all) }
        // The transcript places checks between events; the events list holds none.
        // Taken out in place: the events are moved, not copied.
        var positions: [Int] = []
        for index in all.indices where all[index].side == .check {
            positions.append(index - positions.count)
        }
        if !positions.isEmpty { all.removeAll { $0.side == .check } }
        return ReplayResult(events: all, checks: runner.checks, checkPositions: positions)
    }
}
