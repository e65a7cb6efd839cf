import FCMConnectionServer
import FCMDoor
import FCMEngine
import FCMProfiles
import Foundation

/// The TUI's door into a served device: the host's front door, shared with app
/// servers and the control API; the events of every door come to the TUI through
/// the session's inbox, and the session's one clock and timer drive its time.
public final class TUILink: DeviceDoor, SessionClocked, @unchecked Sendable {
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

    let server: ConnectionServer
    let events: Inbox
    public let summary: String?

    public init(server: ConnectionServer, events: Inbox) {
        self.server = server
        self.events = events
        var parts: [String] = []
        if let port = server.ccsPort { parts.append("CCS :\(port)") }
        if let port = server.ccsPlainPort { parts.append(server.ccsPort == nil ? "CCS plain :\(port)" : ":\(port)") }
        if let port = server.httpPort { parts.append("HTTP :\(port)") }
        // MCS is a segment of its own (after two spaces): the header drops it first
        // when the line is narrow.
        summary = parts.joined(separator: " ") + (server.mcsPort.map { "  MCS :\($0)" } ?? "")
        // `w` saves what every door did from here on.
        server.host.box.startRecording()
    }

    @discardableResult
    public func submit(_ command: Input) -> [Event] {
        let host = server.host
        let produced = host.apply(command)
        // What the screen is about to show is on disk first.
        host.box.store.map { $0.waitUntilDurable($0.appendedSeq) }
        return produced
    }

    public func view() -> DeviceView { DeviceView(server.host.engine) }

    public func takeEvents() -> [Event] { events.take() }

    public func moveClock(by span: Millis) { server.host.moveClock(by: span) }

    public var keepsItsOwnClock: Bool { true }
    public var resumed: Bool { server.host.resumed }

    public func tick(now time: Millis) -> Bool { false }

    public var nextWake: Millis? { nil }

    public var now: Millis { server.host.now }

    public func recording() -> [JournalEntry] { server.host.box.recorded }

    public var clock: SessionClock { server.host.clock }
}
