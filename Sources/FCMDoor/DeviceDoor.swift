import FCMEngine

/// A person's door into the running device (the TUI's): the session's front door,
/// which every other door (app servers, the control API) shares. The TUI hands it commands and
/// renders what it is shown: the device, read-only, and the events of every door.
/// It keeps no engine of its own and, but for a session it runs itself, drives no
/// time.
public protocol DeviceDoor: AnyObject, Sendable {
    /// One line for the header: where app servers connect; nil when nothing listens.
    var summary: String? { get }
    /// Hands the session one command at the session's time; answers the events it
    /// made (which reach every subscriber, the TUI's feed among them).
    @discardableResult
    func submit(_ command: Input) -> [Event]
    /// The device as it stands.
    func view() -> DeviceView
    /// The events every door caused since the last call, oldest first.
    func takeEvents() -> [Event]
    /// Moves the session's clock on by `span`: what falls due happens.
    func moveClock(by span: Millis)
    /// Whether the session's clock runs by itself (on the real time: a served
    /// session's, or the TUI's own on `tui --no-listen`), which the TUI reads and never
    /// moves; otherwise (a fork on play mode's clock) its owner moves it with
    /// `tick(now:)`.
    var keepsItsOwnClock: Bool { get }
    /// Runs what the TUI's own session has due by `time` (a clock the owner moves goes
    /// on to it); true when anything happened. A served session runs on its own loop
    /// and ignores it. The TUI ticks every door alike.
    func tick(now time: Millis) -> Bool
    /// The session's time now (a served session's clock runs between events).
    var now: Millis { get }
    /// When the session next has something to do, for a session the TUI runs.
    var nextWake: Millis? { get }
    /// Whether the session's device was resumed from its saved state (it was there
    /// before the TUI opened it).
    var resumed: Bool { get }
    /// What every door did since the TUI opened, as the inputs the device took
    /// (`w` saves them as a profile).
    func recording() -> [JournalEntry]
    /// The session's clock, which the TUI's header and keys read; nil for a door
    /// without one (the TUI then keeps a real clock for its header).
    var clock: SessionClock? { get }
}
