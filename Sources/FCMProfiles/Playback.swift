import FCMEngine

/// A profile played on a virtual clock that can also go back: the TUI's play mode.
/// The engine is deterministic, so any earlier moment is rebuilt by playing the
/// timeline again from the nearest checkpoint before it (one every
/// `checkpointSpacing` steps); events only ever grow, so going back cuts the event
/// list instead of keeping copies of it.
public struct Playback: Sendable {
    public let profile: Profile
    public private(set) var engine: DeviceEngine
    var runner: ScenarioRunner
    /// Every event so far, the expectations' results among them, oldest first.
    public private(set) var events: [Event] = []
    /// The virtual clock: where the profile stands.
    public private(set) var time: Millis = 0
    var checkpoints: [Checkpoint] = []

    public static let checkpointSpacing = 64

    /// A moment to rebuild from: right after step `position` played, at its time.
    struct Checkpoint: Sendable {
        var engine: DeviceEngine
        /// The runner without the events it saw (they are `events`' first `eventCount`).
        var runner: ScenarioRunner
        var eventCount: Int
        var time: Millis
    }

    /// The profile at +0, before its first step: the device has started.
    public init(profile: Profile) {
        self.profile = profile
        engine = DeviceEngine(profile.configuration)
        runner = ScenarioRunner(steps: profile.steps)
        engine.handle(.start(at: 0), into: &events)
        runner.observe(events)
        saveCheckpoint()
    }

    public var steps: [Step] { profile.steps }

    /// How many steps have played (the current step is the last of them).
    public var position: Int { runner.position }

    /// The step that played last, whose note is the caption; nil at the start.
    public var currentStep: Step? { position > 0 ? steps[position - 1] : nil }

    /// What to show under the screen now: the current step's note, or the profile's
    /// description before the first step.
    public var caption: String? {
        guard let step = currentStep else { return profile.description }
        return step.note
    }

    /// When the next step is due, if one is left.
    public var nextAt: Millis? { runner.nextAt }

    /// Whether every step has played.
    public var finished: Bool { runner.finished }

    /// The expectations judged so far.
    public var checks: [CheckResult] { runner.checks }

    /// The profile's expectations in all.
    public var expectationCount: Int { profile.expectationCount }

    /// Plays the next step (the clock moves on to its time first).
    public mutating func stepForward() {
        guard !finished else { return }
        runner.playNext(on: &engine, into: &events)
        time = max(time, engine.now)
        if position % Self.checkpointSpacing == 0 { saveCheckpoint() }
    }

    /// Goes back to just after the step before the current one played, at its time;
    /// from the first step, back to the start.
    public mutating func stepBack() {
        guard position > 0 else { return }
        let target = position - 1
        rebuild(toPosition: target, time: target == 0 ? 0 : steps[target - 1].at)
    }

    /// Back to +0, before the first step.
    public mutating func restart() {
        rebuild(toPosition: 0, time: 0)
    }

    /// Moves the virtual clock on by `span`: every step due by then plays, and timers
    /// fire at their own times.
    public mutating func run(for span: Millis) {
        guard span > 0 else { return }
        go(to: time + span)
    }

    /// Goes to a moment of the profile, earlier or later than now: every step due by
    /// `target` has played and the clock stands at `target`.
    public mutating func go(to target: Millis) {
        let target = max(0, target)
        if target < time {
            let steps = steps.prefix { $0.at <= target }.count
            rebuild(toPosition: steps, time: target)
            return
        }
        while let next = nextAt, next <= target {
            stepForward()
        }
        advanceClock(to: target)
    }

    mutating func advanceClock(to target: Millis) {
        guard target > engine.now else {
            time = max(time, target)
            return
        }
        let before = events.count
        engine.handle(.advance(to: target), into: &events)
        runner.observe(Array(events[before...]))
        time = target
    }

    /// Plays again from the nearest checkpoint at or before `target` steps, then lets
    /// the clock run on to `clock`.
    mutating func rebuild(toPosition target: Int, time clock: Millis) {
        let index = min(target / Self.checkpointSpacing, checkpoints.count - 1)
        let checkpoint = checkpoints[index]
        events.removeSubrange(checkpoint.eventCount...)
        engine = checkpoint.engine
        runner = checkpoint.runner
        runner.restore(seen: events)
        time = checkpoint.time
        while position < target {
            stepForward()
        }
        advanceClock(to: clock)
    }

    mutating func saveCheckpoint() {
        let index = position / Self.checkpointSpacing
        guard index == checkpoints.count else { return }
        checkpoints.append(
            Checkpoint(engine: engine, runner: runner.forgettingSeen(), eventCount: events.count, time: time))
    }
}
