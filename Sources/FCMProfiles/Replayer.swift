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
    public var events: [Event]
    public var checks: [CheckResult]
    /// Index into `events` before which each check was evaluated (for the transcript).
    public var checkPositions: [Int]

    public var failures: [CheckResult] { checks.filter { !$0.passed } }
    public var passed: Bool { failures.isEmpty }
}

/// Runs a profile headless on a virtual clock: the timeline's commands go to the
/// engine at their times, timers fire between them, expectations are checked.
public enum Replayer {
    /// How far past the last step replay goes at most when no `end` is given.
    public static let settleLimit: Millis = 60 * Span.day

    public static func run(_ profile: Profile) -> ReplayResult {
        var engine = DeviceEngine(profile.configuration)
        var events: [Event] = []
        var checks: [CheckResult] = []
        var positions: [Int] = []
        var claimed = Set<Int>()
        engine.start(at: 0, into: &events)
        for step in profile.steps {
            engine.advance(to: step.at, into: &events)
            switch step.action {
            case .command(let command):
                engine.apply(command, at: step.at, into: &events)
            case .push(let push):
                var request = push.request
                request.to = target(push.target, sender: push.tokenOwner, engine: engine)
                engine.apply(.push(request), at: step.at, into: &events)
            case .expect(let expectation):
                positions.append(events.count)
                checks.append(check(expectation, step: step, events: events, claimed: &claimed))
            case .expectNone(let expectation):
                positions.append(events.count)
                checks.append(checkNone(expectation, step: step, events: events))
            }
        }
        let last = profile.steps.last?.at ?? 0
        let end = profile.end ?? (last + settleLimit)
        while let deadline = engine.nextDeadline, deadline <= end {
            engine.advance(to: deadline, into: &events)
        }
        if profile.end != nil { engine.advance(to: end, into: &events) }
        return ReplayResult(events: events, checks: checks, checkPositions: positions)
    }

    /// The token a push step names, as the device has issued them so far.
    public static func target(_ target: PushTarget, sender: String, engine: DeviceEngine) -> String? {
        let issued = engine.issuedTokens[sender] ?? []
        switch target {
        case .latest: return issued.last
        case .previous: return issued.count >= 2 ? issued[issued.count - 2] : nil
        case .literal(let text): return text
        }
    }

    static func check(_ expectation: Expectation, step: Step, events: [Event], claimed: inout Set<Int>) -> CheckResult {
        if let index = events.indices.first(where: { !claimed.contains($0) && expectation.matches(events[$0]) }) {
            claimed.insert(index)
            return CheckResult(step: step, expectation: expectation, negated: false, passed: true)
        }
        let sameName = events.filter { $0.name == expectation.event }
        let detail: String
        if sameName.isEmpty {
            detail = "no \(expectation.event) event happened by \(DurationText.stamp(step.at))"
        } else {
            let shown = sameName.suffix(3).map { "\(DurationText.stamp($0.at)) \(TranscriptFormatter.summary($0))" }
            detail = "what happened instead: " + shown.joined(separator: "; ")
        }
        return CheckResult(step: step, expectation: expectation, negated: false, passed: false, detail: detail)
    }

    static func checkNone(_ expectation: Expectation, step: Step, events: [Event]) -> CheckResult {
        guard let hit = events.first(where: expectation.matches) else {
            return CheckResult(step: step, expectation: expectation, negated: true, passed: true)
        }
        return CheckResult(
            step: step, expectation: expectation, negated: true, passed: false,
            detail: "it happened at \(DurationText.stamp(hit.at)): \(TranscriptFormatter.summary(hit))")
    }
}
