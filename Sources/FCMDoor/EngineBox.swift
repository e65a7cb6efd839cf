import FCMEngine
import FCMStore
import Foundation
import Synchronization

/// The one engine of a running device, behind a lock: the event loops and the
/// threads of every door reach it through the host's front door (`DeviceHost.submit`),
/// and read it through `read`. The lock is recursive because a subscriber to the
/// events may read the device while they are handed out. With a store (or a
/// recorder), every input the engine handled is handed on before the lock is let
/// go, so the journal has them in the order they ran.
public final class EngineBox: @unchecked Sendable {
    let lock = NSRecursiveLock()
    // Read and changed under `lock` by rules that call out to nothing: no access can
    // overlap another, and the runtime's check of each (several a message) is left out.
    @exclusivity(unchecked) var engine: DeviceEngine
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
    /// Whether any fault was in scope when the lock was last let go: the HTTP send
    /// path asks before every request, and taking the lock for it made two event
    /// loops queue for the engine twice per send.
    private let faultsInScope: Atomic<Bool>
    /// The engine's answer to who may act as an app server, as of the last access:
    /// every HTTP request and CCS login asks it, and taking the engine's lock for it
    /// made the event loops queue for the engine once more per send.
    private let senders: Mutex<AppServerSenders>
    /// The engine's `appServerSendersRevision` that `senders` holds (read and written
    /// under the engine's lock).
    private var sendersRevision: Int

    /// Every input submitted and taken since the TUI asked for a recording (`w` saves it).
    private var recording: SessionRecording?

    init(_ engine: DeviceEngine, store: DeviceStore?) {
        self.engine = engine.recording(store != nil)
        self.store = store
        faultsInScope = Atomic(!engine.server.faults.isEmpty)
        senders = Mutex(engine.appServerSenders)
        sendersRevision = engine.appServerSendersRevision
    }

    /// Keeps every input the engine takes from now on, whichever door it came through
    /// (the timeline's too): the engine records them, `settle` takes them.
    public func startRecording() {
        lock.withLock {
            guard recording == nil else { return }
            recording = SessionRecording()
            if !engine.isRecording { engine = engine.recording(true) }
        }
    }

    /// The inputs submitted since recording started, oldest first.
    public var recorded: [JournalEntry] { lock.withLock { recording?.inputs ?? [] } }

    /// Ends an access to the engine (under the lock): hands the calls recorded since
    /// the last one to the store, and notes whether faults are in scope now and who
    /// may act as an app server, if that changed.
    func settle() {
        faultsInScope.store(!engine.server.faults.isEmpty, ordering: .releasing)
        if engine.appServerSendersRevision != sendersRevision {
            sendersRevision = engine.appServerSendersRevision
            let now = engine.appServerSenders
            senders.withLock { $0 = now }
        }
        guard store != nil || recording != nil else { return }
        let (inputs, refused, changed) = engine.takeRecorded()
        recording?.note(inputs, refused: refused)
        guard let store else { return }
        if !inputs.isEmpty || !changed.isEmpty { store.append(inputs, changedPhones: changed, engine: engine) }
    }

    /// Whether any fault is in scope, read without the lock (as of the last access).
    public var hasFaults: Bool { faultsInScope.load(ordering: .acquiring) }

    /// Who may act as an app server, read without the engine's lock (as of the last
    /// access: a sender added or removed is answered by the next request).
    public var appServerSenders: AppServerSenders { senders.withLock { $0 } }

    /// The sender a request names, looked up in place (every send asks: no copy of
    /// the senders is made for it).
    public func findSender(_ lookup: SenderLookup) -> SenderConfig? { senders.withLock { $0.find(lookup) } }
}

extension EngineBox {
    /// Runs `body` on the engine under the lock, and hands on the inputs it handled
    /// (the host's front door is the one caller that changes the device).
    func withEngine<T>(_ body: (inout DeviceEngine) -> T) -> T {
        lock.withLock {
            defer { settle() }
            return body(&engine)
        }
    }

    /// Reads the device as it stands, under the lock.
    public func read<T>(_ body: (DeviceEngine) -> T) -> T {
        lock.withLock { body(engine) }
    }

    /// The point of the journal that holds everything that has run so far (0 without a store).
    public var durablePoint: Int64 { store?.appendedSeq ?? 0 }

    /// Returns once the journal is on disk up to `point` (at once without a store).
    public func durable(_ point: Int64) async {
        guard let store else { return }
        await store.durable(point)
    }

    /// Returns once everything that has run so far is on disk (at once without a store).
    public func durable() async {
        await durable(durablePoint)
    }
}
