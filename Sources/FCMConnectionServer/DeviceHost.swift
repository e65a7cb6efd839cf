import FCMEngine
import FCMHTTPAPI
import FCMProfiles
import FCMStore
import FCMXMPP
import Foundation
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
    /// Replies and stanzas held until the journal is on disk, gathered per event loop.
    let releases: DurableReleases

    public init(
        engine: DeviceEngine, loop: any EventLoop, store: DeviceStore? = nil, resumed: Bool = false,
        log: @escaping @Sendable (Event) -> Void
    ) {
        box = EngineBox(engine, store: store)
        releases = DurableReleases(store: store)
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
        let time = now
        run { engine, events in
            if resumed {
                events.append(engine.resumedEvent(at: time, state: box.store?.path ?? ""))
                events += engine.resumedTokenEvents(at: time)
                // App servers connected when the device stopped are gone now.
                engine.forgetAppServers(at: time, into: &events)
            } else {
                engine.start(at: 0, into: &events)
            }
            // This session runs on the real clock: the engine reads app servers'
            // absolute times (`apns-expiration`) against it.
            engine.apply(.setWallClock(unixMillis: Self.unixMillisNow), at: time, into: &events)
        }
    }

    static var unixMillisNow: Int64 { Int64((Date().timeIntervalSince1970 * 1_000).rounded()) }

    /// Runs a command on the device at the session's time.
    public func apply(_ command: Command) {
        loop.preconditionInEventLoop()
        let time = now
        run { engine, events in engine.apply(command, at: time, into: &events) }
    }

    /// The one way the host works on the engine: `body` runs under the engine's lock,
    /// and what it produced (effects, the next deadline) is taken under the same lock.
    /// Then the events are logged (and shown to a playing scenario, unless it saw
    /// them itself), the effects written, and the timer re-armed.
    func run(
        logging: Bool = true, seenByScenario: Bool = false, _ body: (inout DeviceEngine, inout [Event]) -> Void
    ) {
        var events: [Event] = []
        let (effects, deadline) = box.withEngine { engine in
            body(&engine, &events)
            return (engine.takeEffects(), engine.nextDeadline)
        }
        if logging { for event in events { log(event) } }
        if !seenByScenario { scenario?.observe(events) }
        perform(effects)
        arm(deadline)
    }

    /// Acts on what another shell (the TUI, an HTTP thread) did on the shared engine
    /// and logged itself: the effects go out and the timer follows the engine.
    public func react(to produced: [Event]) {
        loop.preconditionInEventLoop()
        run(logging: false) { _, events in events = produced }
    }

    /// Logs an event that changes nothing on the device (a refused HTTP request).
    public func report(_ event: Event) {
        log(event)
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
            // The loop fired the timer for this deadline: what was due then happens at
            // its own time (the loop may be a little late); anything due since is next.
            let time = deadline
            run(seenByScenario: true) { engine, events in
                engine.advance(to: time, into: &events)
                scenario?.observe(events)
                playDue(on: &engine, into: &events)
            }
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
        run(seenByScenario: true) { engine, events in playDue(on: &engine, into: &events) }
    }

    /// Runs the scenario's steps due by now (they see their own events); a scenario
    /// whose steps are all played stops watching.
    func playDue(on engine: inout DeviceEngine, into events: inout [Event]) {
        guard var runner = scenario else { return }
        runner.play(until: max(now, engine.now), on: &engine, into: &events)
        scenario = runner.finished ? nil : runner
        box.scenarioPlaying = scenario != nil
    }
}
