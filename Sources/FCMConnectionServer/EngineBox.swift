import FCMEngine
import FCMStore
import Foundation

/// The one engine of a running device, behind a lock: the server's event loop and,
/// when the TUI runs the listeners, the TUI's thread both work on it. The lock is
/// recursive because the server's log callback may run inside an engine access.
/// With a store, every call made on the engine is handed to it before the lock is
/// let go, so the journal has them in the order they ran.
public final class EngineBox: @unchecked Sendable {
    public let lock = NSRecursiveLock()
    var engine: DeviceEngine
    /// The deadline the host's timer is armed for.
    var armedDeadline: Millis? {
        get { lock.withLock { armed } }
        set { lock.withLock { armed = newValue } }
    }
    private var armed: Millis?
    /// A profile's timeline plays: every event must reach the loop, where it is judged.
    var scenarioPlaying: Bool {
        get { lock.withLock { playing } }
        set { lock.withLock { playing = newValue } }
    }
    private var playing = false
    public let store: DeviceStore?

    init(_ engine: DeviceEngine, store: DeviceStore?) {
        self.engine = engine
        self.store = store
        self.engine.inputs.isOn = store != nil
    }

    /// Hands the calls recorded since the last time to the store (under the lock).
    func journal() {
        guard let store else { return }
        let inputs = engine.inputs.take()
        if !inputs.isEmpty { store.append(inputs, engine: engine) }
    }
}

extension EngineBox {
    /// Runs `body` on the engine under the lock.
    public func withEngine<T>(_ body: (inout DeviceEngine) -> T) -> T {
        lock.withLock {
            defer { journal() }
            return body(&engine)
        }
    }

    /// Calls `action` once everything that has run so far is on disk (at once, here,
    /// without a store; otherwise on the journal's thread).
    public func whenDurable(_ action: @escaping @Sendable () -> Void) {
        guard let store else { return action() }
        store.whenDurable(store.appendedSeq, action)
    }

    /// Returns once everything that has run so far is on disk (at once without a store).
    public func durable() async {
        guard let store else { return }
        await store.durable(store.appendedSeq)
    }
}
