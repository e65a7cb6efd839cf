import FCMEngine

/// Where a session's work runs after an input: its timer, a topic's next batch of
/// copies, and the effects written to connections. A served session runs on an event
/// loop of its listeners; the session the TUI runs itself (no listeners, or a fork)
/// runs on a `ManualLoop`, whose time its owner moves on.
public protocol SessionLoop: AnyObject, Sendable {
    /// Whether the caller runs on the loop (so work for the loop may run at once).
    var inLoop: Bool { get }
    /// Runs `task` on the loop, soon.
    func execute(_ task: @escaping @Sendable () -> Void)
    /// Runs `task` on the loop once `span` of the session's time has passed.
    func schedule(in span: Millis, _ task: @escaping @Sendable () -> Void) -> any SessionTimer
    /// The session's clock on this loop, reading `start` now.
    func clock(startingAt start: Millis) -> SessionClock
}

extension SessionLoop {
    /// A loop on the real time: its sessions' clocks run on the real clock.
    public func clock(startingAt start: Millis) -> SessionClock { SessionClock(startingAt: start) }
}

/// A task a `SessionLoop` will run later, until it is cancelled.
public protocol SessionTimer: Sendable {
    func cancel()
}

/// A connection the session writes what the engine asks for (an app server's XMPP
/// stream, a real client's MCS stream): the listeners make them, the session knows
/// them by the id the engine knows them by.
public protocol SessionLink: AnyObject {
    /// Writes (or does) what the engine asked for on this connection, unflushed.
    func perform(_ effect: LinkEffect)
    /// Sends on what `perform` wrote.
    func flush()
}
