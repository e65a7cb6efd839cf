import FCMConnectionServer
import FCMEngine
import FCMProfiles
import FCMTerminalUI
import Foundation

/// The TUI's side of a running connection server: one engine, shared under the
/// engine box's lock, and the session's one clock; what the TUI does reaches app
/// servers through the host.
public final class TUILink: DeviceLink, @unchecked Sendable {
    /// Events the connection server logged, waiting for the TUI to take them.
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
    public let summary: String

    public init(server: ConnectionServer, events: Inbox) {
        self.server = server
        self.events = events
        var parts: [String] = []
        if let port = server.ccsPort { parts.append("CCS :\(port)") }
        if let port = server.ccsPlainPort { parts.append(server.ccsPort == nil ? "CCS plain :\(port)" : ":\(port)") }
        if let port = server.httpPort { parts.append("HTTP :\(port)") }
        summary = parts.joined(separator: " ")
    }

    public func exchange(_ body: (inout DeviceEngine, [Event]) -> [Event]) {
        let host = server.host
        let (produced, effects) = host.box.withEngine { engine in (body(&engine, events.take()), engine.hasEffects) }
        if !produced.isEmpty || effects {
            // What the screen is about to show is on disk first.
            host.box.store.map { $0.waitUntilDurable($0.appendedSeq) }
            host.loop.execute { host.react(to: produced) }
        }
    }

    public var clock: SessionClock { server.host.clock }

    public func currentEngine() -> DeviceEngine {
        server.host.box.withEngine { $0 }
    }
}
