import FCMEngine
import Foundation

/// The TUI's door on the one session type (`DeviceHost`), served or its own: it
/// hands the session's front door the TUI's inputs, shows the device read-only, and
/// takes in the events of every door from the session's log. Served, the session
/// keeps its clock and timer on its listeners' loop; the TUI's own session (`tui
/// --no-listen`, a fork of a played profile) runs on a `ManualLoop` that the TUI's
/// ticks run: the same timer, recording and batches of a topic's copies.
public final class SessionDoor: DeviceDoor, @unchecked Sendable {
    /// Events the session logged, whichever door caused them, waiting for the TUI.
    public final class Inbox: @unchecked Sendable {
        private let lock = NSLock()
        private var pending: [Event] = []

        public init() {}

        public func add(_ event: Event) { lock.withLock { pending.append(event) } }

        func take() -> [Event] {
            lock.withLock {
                defer { pending = [] }
                return pending
            }
        }
    }

    /// Where the TUI's own session takes its time from.
    public enum Time: Sendable {
        /// The real clock, which the session keeps (the runner reads it).
        case real
        /// A clock that moves only when the TUI's ticks move it (play mode's fork, tests).
        case moved
    }

    public let host: DeviceHost
    let inbox: Inbox
    public let summary: String?
    /// The loop the TUI's ticks run, for a session the TUI runs itself; nil when served.
    let ownLoop: ManualLoop?

    /// The door of a served session, whose log hands `inbox` every event; `summary`
    /// says where app servers connect. `w` saves what every door does from here on.
    public init(served host: DeviceHost, inbox: Inbox, summary: String?) {
        self.host = host
        self.inbox = inbox
        self.summary = summary
        ownLoop = nil
        host.box.startRecording()
    }

    private init(own host: DeviceHost, loop: ManualLoop, inbox: Inbox) {
        self.host = host
        self.inbox = inbox
        summary = nil
        ownLoop = loop
    }

    /// A session the TUI runs itself, with no listeners, on a new device from
    /// `configuration`: its first tokens are its first events.
    public static func own(starting configuration: EngineConfiguration, time: Time = .moved) -> SessionDoor {
        let door = own(DeviceEngine(configuration), resumed: false, time: time)
        door.host.start()
        door.host.box.startRecording()
        return door
    }

    /// A session the TUI runs itself on `engine` as it stands (it has started
    /// already: a played profile the user took over).
    public static func own(engine: DeviceEngine, time: Time = .moved) -> SessionDoor {
        let door = own(engine, resumed: true, time: time)
        door.host.box.startRecording()
        // Its timer is armed for what the engine has due.
        door.host.submit { _, now in [.advance(to: now)] }
        return door
    }

    private static func own(_ engine: DeviceEngine, resumed: Bool, time: Time) -> SessionDoor {
        let loop = ManualLoop(startingAt: engine.now, realTime: time == .real)
        let inbox = Inbox()
        let host = DeviceHost(engine: engine, loop: loop, resumed: resumed) { event in
            inbox.add(event)
            return 0
        }
        return SessionDoor(own: host, loop: loop, inbox: inbox)
    }

    @discardableResult
    public func submit(_ command: Input) -> [Event] {
        let produced = host.apply(command)
        // What the screen is about to show is on disk first.
        host.box.store.map { $0.waitUntilDurable($0.appendedSeq) }
        return produced
    }

    public func view() -> DeviceView { DeviceView(host.engine) }

    public func takeEvents() -> [Event] { inbox.take() }

    public func moveClock(by span: Millis) { host.moveClock(by: span) }

    public var keepsItsOwnClock: Bool { host.clock.isReal }

    public var resumed: Bool { host.resumed }

    /// Runs what the TUI's own session has due by `time` (a moved clock goes on to
    /// it); true when anything happened or the clock passed a second. A served
    /// session runs on its own loop: nothing to do.
    public func tick(now time: Millis) -> Bool {
        guard let ownLoop else { return false }
        let second = host.now / 1_000
        let ran = ownLoop.run(until: time)
        return ran || host.now / 1_000 != second
    }

    public var nextWake: Millis? { ownLoop?.nextDue }

    public var now: Millis { host.now }

    public func recording() -> [JournalEntry] { host.box.recorded }

    public var clock: SessionClock? { host.clock }
}
