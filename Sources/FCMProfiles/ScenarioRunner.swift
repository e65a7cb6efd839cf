import FCMEngine

/// Plays a profile's timeline on whatever clock its shell keeps: `replay` hands it
/// virtual time, `serve` the real clock. Each step runs at its time; `expect` and
/// `expect_none` are judged against every event seen so far, wherever the profile
/// plays. The runner never reads a clock.
public struct ScenarioRunner: Sendable {
    public let steps: [Step]
    /// The next step to play.
    public private(set) var position = 0
    /// Every event seen so far, for judging expectations; once no expectation is left
    /// to play, nothing more is kept.
    public private(set) var seen: [Event] = []
    /// The index of the last `expect` or `expect_none` step, -1 when there is none.
    let lastExpectation: Int
    var judge = ExpectationJudge()
    /// Every expectation judged so far, in order.
    public private(set) var checks: [CheckResult] = []

    /// A runner at the start of `steps`; with `after`, the steps at or before that
    /// time count as played (a resumed device played them before it stopped).
    public init(steps: [Step], after: Millis? = nil) {
        self.steps = steps
        lastExpectation =
            steps.lastIndex {
                switch $0.action {
                case .expect, .expectNone: true
                default: false
                }
            } ?? -1
        if let after { position = steps.firstIndex { $0.at > after } ?? steps.count }
    }

    /// When the next step is due, if any is left.
    public var nextAt: Millis? { position < steps.count ? steps[position].at : nil }

    /// Whether every step has been played.
    public var finished: Bool { position >= steps.count }

    /// The `expect` and `expect_none` steps not played yet: their time has not come.
    public var unplayedExpectations: [Step] {
        steps[min(position, steps.count)...].filter {
            switch $0.action {
            case .expect, .expectNone: true
            default: false
            }
        }
    }

    /// Whether an expectation is still to be played, so events must be kept to judge it.
    var judging: Bool { position <= lastExpectation }

    /// Shows the runner events that happened outside its own steps (app servers,
    /// timers, the TUI), in the order they happened. Once no expectation is left to
    /// play there is nothing to judge, and nothing is kept.
    public mutating func observe(_ events: some Collection<Event>) {
        if judging { seen += events }
    }

    /// Plays every step due by `time` on `engine`, in order. Events the steps cause
    /// are appended to `out` (and seen); the checks judged are returned and logged
    /// as `expectationHeld` / `expectationFailed` events.
    @discardableResult
    public mutating func play(until time: Millis, on engine: inout DeviceEngine, into out: inout [Event])
        -> [CheckResult]
    {
        var judged: [CheckResult] = []
        while let next = nextAt, next <= time {
            if let result = playNext(on: &engine, into: &out) { judged.append(result) }
        }
        return judged
    }

    /// Plays the next step alone, whenever it is due: the engine's clock first moves
    /// on to the step's time (timers due by then fire). Returns the step's check when
    /// it is an expectation.
    @discardableResult
    public mutating func playNext(on engine: inout DeviceEngine, into out: inout [Event]) -> CheckResult? {
        guard position < steps.count else { return nil }
        // Read in place: a step's action can be large, and copying it shows in replay.
        let index = position
        position += 1
        let at = max(steps[index].at, engine.now)
        var start = out.count
        engine.handle(.advance(to: at), into: &out)
        var result: CheckResult?
        // Switched on in place (a step's action is large): a push goes by
        // `PushStep.inputs`, the one mapping `StepAction.inputs` uses too.
        switch steps[index].action {
        case .command(let command):
            engine.handle(.input(command, at: at), into: &out)
        case .push(let push):
            push.play(on: &engine, at: at, into: &out)
            // A profile's topic push reaches every subscriber before its next step.
            while engine.hasPendingFanOut { engine.handle(.fanOut(at: engine.now), into: &out) }
        case .expect(let expectation), .expectNone(let expectation):
            // Judged after what this step's time brought is seen.
            seen += out[start...]
            start = out.count
            let step = steps[index]
            let negated = if case .expectNone = step.action { true } else { false }
            let judged = judge(expectation, step: step, negated: negated)
            checks.append(judged)
            out.append(judged.event(at: at))
            result = judged
        }
        if judging { seen += out[start...] }
        return result
    }

    /// The runner without the events it has seen, for a checkpoint that keeps them
    /// elsewhere (`restore(seen:)` gives them back).
    func forgettingSeen() -> ScenarioRunner {
        var copy = self
        copy.seen = []
        return copy
    }

    /// Gives a checkpoint's runner back the events it had seen.
    mutating func restore(seen events: [Event]) {
        seen = events
    }

    mutating func judge(_ expectation: Expectation, step: Step, negated: Bool) -> CheckResult {
        let events = seen
        let verdict = judge.judge(
            expectation, negated: negated, among: events.indices.lazy.map { (key: Int64($0), event: events[$0]) })
        let detail = ExpectationJudge.detail(
            verdict, expectation, negated: negated, by: DurationText.stamp(step.at),
            label: { _, event in DurationText.stamp(event.at) },
            happened: { _, event in "it happened at \(DurationText.stamp(event.at)): " })
        return CheckResult(step: step, expectation: expectation, negated: negated, passed: verdict.held, detail: detail)
    }
}

extension CheckResult {
    /// The check as an event of the log: `expectationHeld` or `expectationFailed`.
    func event(at time: Millis) -> Event {
        var fields = [Field("expect", .string(expectation.label(negated: negated)))]
        if let detail { fields.append(Field("detail", .string(detail))) }
        fields.append(Field("step_at", .int(step.at)))
        return Event(at: time, side: .check, kind: passed ? .expectationHeld : .expectationFailed, fields: fields)
    }
}
