import FCMEngine
import Foundation

/// The one engine of a running device, behind a lock: the server's event loop and,
/// when the TUI runs the listeners, the TUI's thread both work on it. The lock is
/// recursive because the server's log callback may run inside an engine access.
public final class EngineBox: @unchecked Sendable {
    public let lock = NSRecursiveLock()
    var engine: DeviceEngine
    var clockOffset: Millis = 0
    var armedDeadline: Millis?

    init(_ engine: DeviceEngine) {
        self.engine = engine
    }
}

extension EngineBox {
    /// Runs `body` on the engine under the lock.
    public func withEngine<T>(_ body: (inout DeviceEngine) -> T) -> T {
        lock.withLock { body(&engine) }
    }
}
