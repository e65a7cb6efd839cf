import FCMEngine
import FCMProfiles
import FCMStore
import Foundation

/// The running session: the fleet and its connection server, shared by every door
/// (the TUI's keys, app servers' connections and requests, the control API, a
/// profile's timeline). Served, it lives on an event loop of its listeners; run by
/// the TUI alone (no listeners, a fork), on a `ManualLoop` whose time the TUI moves.
/// Either way it is this one type: one front door (`submit`), one clock, one timer,
/// one recording, a topic's copies in the same batches. It hands the engine what
/// happens, writes the effects the engine asks for to its links, logs the events,
/// and keeps the engine's timers (and a profile's steps) on its clock. It decides
/// nothing: every rule is the engine's.
public final class DeviceHost: @unchecked Sendable {
    public let loop: any SessionLoop
    /// The device's engine, shared with the TUI when it runs the listeners.
    public let box: EngineBox
    /// The device session's one clock: the real clock since start, plus whatever
    /// time the TUI's clock keys moved it on.
    public let clock: SessionClock
    /// Every event the emulator produces, for the `serve` log and the TUI.
    /// Logs an event to every subscriber: its sequence number in the session's event
    /// log (0 without one).
    let log: @Sendable (Event) -> Int64
    /// The open connections (app servers', real clients'), by the id the engine
    /// knows them by. Read and written on the loop only.
    var links: [ConnectionID: any SessionLink] = [:]
    var timer: (any SessionTimer)?
    /// The profile's timeline, when one plays. Read and written under the engine's
    /// lock only: it sees every door's events in engine order, on whatever thread.
    var scenario: ScenarioRunner?
    /// The server is stopping: no timer is armed any more (the loop is going away).
    var stopping = false
    /// A task for a topic's next batch of copies is on the loop (read and written on
    /// the loop only): one at a time, however many accesses end while it waits.
    var fanOutQueued = false

    /// Whether the engine was there before this session took it (from a state file,
    /// or a fork of a played profile): its tokens exist already.
    public let resumed: Bool

    public init(
        engine: DeviceEngine, loop: any SessionLoop, store: DeviceStore? = nil, resumed: Bool = false,
        log: @escaping @Sendable (Event) -> Int64
    ) {
        box = EngineBox(engine, store: store)
        // A resumed device's clock goes on from where it stopped.
        clock = loop.clock(startingAt: engine.now)
        self.loop = loop
        self.log = log
        self.resumed = resumed
    }

    public var now: Millis { clock.now }

    /// The engine as it stands (a copy, read under the box's lock).
    public var engine: DeviceEngine { box.read { $0 } }

    /// Starts the device: its first tokens; or, resumed from its state, says so and
    /// names its tokens, forgets the connections it had, and sends on what it held.
    /// Through the front door, as every input.
    public func start() {
        precondition(loop.inLoop)
        submit(
            saying: { [resumed, box] engine, time in
                guard resumed else { return [] }
                return [engine.resumedEvent(at: time, state: box.store?.path ?? "")]
                    + engine.resumedTokenEvents(at: time)
            },
            { [resumed, clock] _, time in
                // App servers connected when the device stopped are gone now.
                var inputs: [JournalEntry] = [resumed ? .resume(at: time) : .start(at: 0)]
                // A session on the real clock: the engine reads app servers' absolute
                // times (`apns-expiration`) against the wall clock.
                if let wall = clock.unixMillis { inputs.append(.input(.setWallClock(unixMillis: wall), at: time)) }
                return inputs
            })
    }

    /// What the engine made of what a door submitted: the events, in engine order,
    /// and its reply to each input.
    public struct Submission: Sendable {
        public var events: [Event]
        public var replies: [EngineReply]
        /// The sequence number of the first event in the session's event log: the
        /// events follow it one by one (nothing else is logged between them).
        public var firstSeq: Int64
        /// The reply to the first input.
        public var reply: EngineReply { replies.first ?? .done }
    }

    /// The running device's front door, the one way anything reaches the engine:
    /// every door (the TUI's keys, CCS and MCS connections, the HTTP APIs, the control
    /// API) hands its inputs here, on its own thread, and so does the session itself
    /// (its start, its timer, a topic's next batch, the clock keys' time, a
    /// timeline). `make` reads the device as it stands and the session's time, and
    /// makes the inputs (a door resolves the names it was given here, once). Under
    /// the engine's lock, a playing timeline's steps due by now are played first (as
    /// they would have been on time), then the inputs are handled; the journal (and a
    /// recording) takes them, every subscriber sees the events in engine order
    /// (`saying`'s first: what the session says of itself, such as a resumed device's
    /// state), and what needs the loop (stanzas to connections, the timer, a topic's
    /// next batch) is handed to it. The submission answers the inputs' own events.
    @discardableResult
    public func submit(
        saying: (DeviceEngine, Millis) -> [Event] = { _, _ in [] }, _ make: (DeviceEngine, Millis) -> [JournalEntry]
    ) -> Submission {
        box.lock.lock()
        defer { box.lock.unlock() }
        var events: [Event] = []
        var replies: [EngineReply] = []
        let own = take(saying, make, on: &box.engine, into: &events, replies: &replies)
        box.settle()
        var firstSeq: Int64 = 0
        for (index, event) in events.enumerated() {
            let seq = log(event)
            if index == own { firstSeq = seq }
        }
        // A playing timeline always re-arms: its next step may have moved.
        if box.engine.hasEffects || box.engine.nextDeadline != box.armedDeadline || box.scenarioPlaying
            || box.engine.hasPendingFanOut
        {
            if loop.inLoop {
                afterwards()
            } else {
                loop.execute { [self] in afterwards() }
            }
        }
        // Most submissions say nothing first and play no step: their events go as they are.
        return Submission(events: own == 0 ? events : Array(events[own...]), replies: replies, firstSeq: firstSeq)
    }

    /// The engine's part of a submission, on the engine lent to it (read through the
    /// parameter, the engine is not copied for `saying` and `make`, as it would be read
    /// from the box): answers where the submission's own events begin.
    private func take(
        _ saying: (DeviceEngine, Millis) -> [Event], _ make: (DeviceEngine, Millis) -> [JournalEntry],
        on engine: inout DeviceEngine, into events: inout [Event], replies: inout [EngineReply]
    ) -> Int {
        // The time is read under the lock: inputs are stamped in the order they run.
        let time = now
        events = saying(engine, time)
        playDue(on: &engine, into: &events)
        let own = events.count
        for input in make(engine, time) {
            replies.append(engine.handle(input, into: &events))
        }
        scenario?.observe(events[own...])
        return own
    }

    /// Submits one command at the session's time (on any thread).
    @discardableResult
    public func apply(_ command: Input) -> [Event] {
        submit { _, time in [.input(command, at: time)] }.events
    }

    /// What follows an engine access on the loop: the effects go out and the timer is
    /// armed for the engine's next deadline.
    private func afterwards() {
        let (effects, deadline, fanOut) = box.withEngine { engine in
            (engine.takeEffects(), engine.nextDeadline, engine.hasPendingFanOut)
        }
        perform(effects)
        arm(deadline)
        // A topic's next batch of copies is a task of its own on the loop, due a moment
        // later: what other doors submit meanwhile is handled between batches. A task
        // queued to run at once runs in the same turn of the loop as the one that
        // queued it, so the loop would read no socket until the last batch; and a door
        // on another thread, woken when the engine is let go, needs a moment to get the
        // CPU on a busy machine before the next batch takes the engine again.
        guard fanOut, !stopping, !fanOutQueued else { return }
        fanOutQueued = true
        // Weakly: a session dropped with a task pending (a fork the TUI let go) is freed.
        _ = loop.schedule(in: Self.fanOutPause) { [weak self] in
            guard let self else { return }
            fanOutQueued = false
            submit { _, time in [.fanOut(at: time)] }
        }
    }

    /// How long other doors have the engine between two batches of a topic's copies
    /// (measured: at most 0.1 s more for a million copies, within their spread; a
    /// request meanwhile is answered in tens of milliseconds, not after the last copy).
    static let fanOutPause: Millis = 1

    /// Moves the session's clock on by `span` (the TUI's clock keys): what falls due
    /// happens now, and the timer is armed again on the clock as it now reads.
    public func moveClock(by span: Millis) {
        clock.moveOn(by: span)
        submit { _, time in [.advance(to: time)] }
        loop.execute { [self] in
            timer?.cancel()
            timer = nil
            box.armedDeadline = nil
            arm(box.read { $0.nextDeadline })
        }
    }

    /// Stops the timers before the loop shuts down.
    public func stop() {
        precondition(loop.inLoop)
        stopping = true
        timer?.cancel()
        timer = nil
    }

    func arm(_ engineDeadline: Millis?) {
        guard !stopping else { return }
        let deadline = [engineDeadline, box.lock.withLock { scenario?.nextAt }].compactMap { $0 }.min()
        if deadline == box.armedDeadline, timer != nil || deadline == nil { return }
        timer?.cancel()
        timer = nil
        box.armedDeadline = deadline
        guard let deadline else { return }
        timer = loop.schedule(in: max(0, deadline - now)) { [weak self] in
            guard let self else { return }
            timer = nil
            box.armedDeadline = nil
            // The loop fired the timer for this deadline: what was due then happens at
            // its own time (the loop may be a little late); anything due since is next.
            submit { _, _ in [.advance(to: deadline)] }
        }
    }

    /// The timeline's expectations not reached yet, and the session's time now.
    public var unreachedExpectations: (steps: [Step], now: Millis) {
        box.lock.withLock { (scenario?.unplayedExpectations ?? [], now) }
    }

    /// Ends a session whose loop is down and whose doors are closed: the stop goes to
    /// the engine past the front door on purpose (`submit` could hand nothing to
    /// the loop, and the stop's events would reach no one); the box still journals it
    /// as it settles. Answers the engine as it stopped.
    public func stopAfterItsLoop() -> DeviceEngine {
        box.withEngine { engine in
            var ignored: [Event] = []
            engine.handle(.stop(at: now), into: &ignored)
            return engine
        }
    }

    /// Plays a profile's timeline on the real clock: each step at its time since
    /// start, `expect` steps judged as they are reached (`expectationHeld` or
    /// `expectationFailed` in the log). A resumed device has played the steps up to
    /// where its clock stood.
    public func play(_ steps: [Step]) {
        precondition(loop.inLoop)
        guard !steps.isEmpty else { return }
        box.lock.withLock {
            scenario = ScenarioRunner(steps: steps, after: resumed ? box.engine.now : nil)
            box.scenarioPlaying = true
        }
        // The steps due already (a profile's first, at +0) play now.
        submit { _, _ in [] }
    }

    /// Runs the scenario's steps due by now (they see their own events); a scenario
    /// whose steps are all played stops watching.
    func playDue(on engine: inout DeviceEngine, into events: inout [Event]) {
        // Asked on every submission: the clock is read only when a timeline plays.
        guard let next = scenario?.nextAt else { return }
        let time = max(now, engine.now)
        guard next <= time, var runner = scenario else { return }
        runner.play(until: time, on: &engine, into: &events)
        scenario = runner.finished ? nil : runner
        box.scenarioPlaying = scenario != nil
    }
}

extension DeviceHost {
    /// A connection the engine knows by `id` is open: what the engine asks to be
    /// written to it goes to `link` (on the loop).
    public func attach(_ link: any SessionLink, as id: ConnectionID) {
        precondition(loop.inLoop)
        links[id] = link
    }

    /// The connection `id` closed: nothing more is written to it. False when it was
    /// not attached.
    @discardableResult
    public func detach(_ id: ConnectionID) -> Bool {
        precondition(loop.inLoop)
        return links.removeValue(forKey: id) != nil
    }

    /// Writes what the engine asked for, then flushes each link written to once.
    func perform(_ effects: [LinkEffect]) {
        guard !effects.isEmpty else { return }
        var touched: [any SessionLink] = []
        for effect in effects {
            guard let link = links[effect.connection] else { continue }
            link.perform(effect)
            if touched.last !== link { touched.append(link) }
        }
        for link in touched { link.flush() }
    }
}
