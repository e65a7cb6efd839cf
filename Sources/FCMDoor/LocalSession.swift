import FCMEngine
import Foundation

/// A device the TUI runs itself, with no listeners (`tui --no-listen`, and a played
/// profile the user took over): the same front door as a served device (one
/// engine, every input taken through `handle`, recorded, its events handed to the
/// TUI's feed), with its time moved on by whoever owns it.
public final class LocalSession: DeviceDoor, @unchecked Sendable {
    private let lock = NSLock()
    private var engine: DeviceEngine
    private var feed: [Event] = []
    private var recorded = SessionRecording()

    /// Whether the device ran before this session took it (an engine as it stands).
    public let resumed: Bool

    /// A session on `engine` as it stands (it has started already).
    public init(engine: DeviceEngine) {
        self.engine = engine.recording(true)
        resumed = true
    }

    private init(new engine: DeviceEngine) {
        self.engine = engine.recording(true)
        resumed = false
    }

    /// A new device from `configuration`: its first tokens are its first events.
    public convenience init(starting configuration: EngineConfiguration) {
        var engine = DeviceEngine(configuration)
        var events: [Event] = []
        engine.handle(.start(at: 0), into: &events)
        self.init(new: engine)
        feed = events
    }

    public var summary: String? { nil }
    public var keepsItsOwnClock: Bool { false }

    @discardableResult
    public func submit(_ command: Input) -> [Event] {
        lock.withLock {
            let input = JournalEntry.input(command, at: engine.now)
            var events: [Event] = []
            engine.handle(input, into: &events)
            // A topic's copies all go out before the key's answer shows.
            while engine.hasPendingFanOut { engine.handle(.fanOut(at: engine.now), into: &events) }
            let taken = engine.takeRecorded()
            recorded.note(taken.inputs, refused: taken.refused)
            feed += events
            return events
        }
    }

    public func view() -> DeviceView { lock.withLock { DeviceView(engine) } }

    public func takeEvents() -> [Event] {
        lock.withLock {
            defer { feed = [] }
            return feed
        }
    }

    public func moveClock(by span: Millis) {
        lock.withLock { _ = advance(to: engine.now + span) }
    }

    public func tick(now time: Millis) -> Bool {
        lock.withLock {
            guard time > engine.now || engine.nextDeadline.map({ $0 <= time }) == true else { return false }
            return advance(to: time)
        }
    }

    /// Moves the engine's clock to `time` (under the lock); true when anything happened.
    @discardableResult
    private func advance(to time: Millis) -> Bool {
        var events: [Event] = []
        let second = engine.now / 1_000
        engine.handle(.advance(to: time), into: &events)
        feed += events
        return !events.isEmpty || engine.now / 1_000 != second
    }

    public var nextWake: Millis? { lock.withLock { engine.nextDeadline } }

    public func recording() -> [JournalEntry] { lock.withLock { recorded.inputs } }

    /// The session's time now.
    public var now: Millis { lock.withLock { engine.now } }
}
