import FCMEngine
import FCMHTTPAPI
import FCMProfiles
import FCMStore
import FCMXMPP
import NIOCore

/// The one emulated device and its connection server, shared by every app-server
/// connection. It lives on one event loop: every method runs there. It hands the
/// engine what happens on connections, writes the effects the engine asks for,
/// logs its events, and keeps its timers (and a profile's steps) on the real clock.
/// It decides nothing: every rule is the engine's.
public final class DeviceHost: @unchecked Sendable {
    public let loop: any EventLoop
    /// The device's engine, shared with the TUI when it runs the listeners.
    public let box: EngineBox
    /// The device session's one clock: the real clock since start, plus whatever
    /// time the TUI's clock keys moved it on.
    public let clock: SessionClock
    /// Every event the emulator produces, for the `serve` log and the TUI.
    let log: @Sendable (Event) -> Void
    /// The open connections, by the id the engine knows them by.
    var connections: [ConnectionID: CCSConnection] = [:]
    var timer: Scheduled<Void>?
    /// The profile's timeline, when one plays.
    var scenario: ScenarioRunner?
    /// The server is stopping: no timer is armed any more (the loop is going away).
    var stopping = false

    /// Whether the engine came from a state file (its tokens exist already).
    let resumed: Bool

    public init(
        engine: DeviceEngine, loop: any EventLoop, store: DeviceStore? = nil, resumed: Bool = false,
        log: @escaping @Sendable (Event) -> Void
    ) {
        box = EngineBox(engine, store: store)
        // A resumed device's clock goes on from where it stopped.
        clock = SessionClock(startingAt: engine.now)
        self.loop = loop
        self.log = log
        self.resumed = resumed
    }

    public var now: Millis { clock.now }

    /// The engine as it stands (a copy, read under the box's lock).
    public var engine: DeviceEngine { box.withEngine { $0 } }

    /// Starts the device: its first tokens; or, resumed from its state, says so and
    /// names its tokens, forgets the connections it had, and sends on what it held.
    public func start() {
        loop.preconditionInEventLoop()
        var events: [Event] = []
        box.withEngine { engine in
            if resumed {
                events.append(engine.resumedEvent(at: now, state: box.store?.path ?? ""))
                events += engine.resumedTokenEvents(at: now)
                // App servers connected when the device stopped are gone now.
                engine.forgetAppServers(at: now, into: &events)
            } else {
                engine.start(at: 0, into: &events)
            }
        }
        finish(events)
    }

    /// Runs a command on the device at the session's time.
    public func apply(_ command: Command) {
        loop.preconditionInEventLoop()
        var events: [Event] = []
        box.withEngine { $0.apply(command, at: now, into: &events) }
        finish(events)
    }

    /// Logs events (and shows them to a playing scenario, unless it saw them
    /// already), writes the effects the engine produced, and re-arms the timer.
    /// `taken`: the effects and next deadline, when the caller took them from the
    /// engine under the same lock as the call that made them.
    func finish(
        _ events: [Event], logging: Bool = true, seenByScenario: Bool = false,
        taken: (effects: [LinkEffect], deadline: Millis?)? = nil
    ) {
        if logging { for event in events { log(event) } }
        if !seenByScenario { scenario?.observe(events) }
        let (effects, deadline) = taken ?? box.withEngine { engine in (engine.takeEffects(), engine.nextDeadline) }
        perform(effects)
        arm(deadline)
    }

    /// Acts on what another shell (the TUI) did on the shared engine and logged
    /// itself: the effects go out and the timer follows the engine.
    public func react(to events: [Event]) {
        loop.preconditionInEventLoop()
        finish(events, logging: false)
    }

    /// Stops the timers before the loop shuts down.
    public func stop() {
        loop.preconditionInEventLoop()
        stopping = true
        timer?.cancel()
        timer = nil
    }

    func arm(_ engineDeadline: Millis?) {
        guard !stopping else { return }
        let deadline = [engineDeadline, scenario?.nextAt].compactMap { $0 }.min()
        if deadline == box.armedDeadline, timer != nil || deadline == nil { return }
        timer?.cancel()
        timer = nil
        box.armedDeadline = deadline
        guard let deadline else { return }
        timer = loop.scheduleTask(in: .milliseconds(max(0, deadline - now))) { [self] in
            timer = nil
            box.armedDeadline = nil
            // The loop fired the timer for this deadline: it has been reached.
            let time = max(now, deadline)
            var events: [Event] = []
            box.withEngine { $0.advance(to: time, into: &events) }
            scenario?.observe(events)
            playDue(into: &events)
            finish(events, seenByScenario: true)
        }
    }

    /// Plays a profile's timeline on the real clock: each step at its time since
    /// start, `expect` steps judged as they are reached (`expectationHeld` or
    /// `expectationFailed` in the log). A resumed device has played the steps up to
    /// where its clock stood.
    public func play(_ steps: [Step]) {
        loop.preconditionInEventLoop()
        guard !steps.isEmpty else { return }
        scenario = ScenarioRunner(steps: steps, after: resumed ? box.withEngine { $0.now } : nil)
        box.scenarioPlaying = true
        var events: [Event] = []
        playDue(into: &events)
        finish(events, seenByScenario: true)
    }

    /// Runs the scenario's steps due by now (they see their own events).
    func playDue(into events: inout [Event]) {
        guard var runner = scenario else { return }
        let time = max(now, box.withEngine { $0.now })
        box.withEngine { engine in runner.play(until: time, on: &engine, into: &events) }
        scenario = runner
    }
}
