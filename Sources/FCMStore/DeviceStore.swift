import FCMEngine
import Foundation
import GRDB

/// The device's state in one SQLite file: the connection server's part, each phone
/// changed since the fleet started in a row of its own, and a journal of every call
/// made on the engine since the last checkpoint, written ahead of any
/// acknowledgement. Opening it restores the engine exactly (the engine is
/// deterministic: the fleet is made again from its configuration, the saved phones
/// are laid over it, and the journal replayed on that gives the state it had). A
/// checkpoint every `checkpointEvery` inputs (20,000 by default) and at a clean stop
/// writes the phones changed since the last one and replaces the journal.
public final class DeviceStore: @unchecked Sendable {
    public let path: String
    let database: DatabaseQueue
    let lock: StateLock
    let writer: JournalWriter
    private let closed = NSLock()
    private var isClosed = false

    /// Past this many phones to save, a clean stop leaves them to the journal (when it
    /// is quick to replay): about a tenth of a second of rows.
    public static let finalCheckpointPhones = 20_000
    /// A checkpoint is made once the calls journaled since the last one changed this
    /// many phones in all (counted per call), so that replaying them stays a matter of
    /// seconds; a clean stop leaves phones to a journal below it.
    public static let replayablePhoneChanges = 4_000_000

    /// What was in the file when it was opened.
    public enum Opening: Sendable {
        /// Nothing yet (or `fresh`): the caller starts this engine.
        case new(DeviceEngine)
        /// A saved device, restored: `inputs` calls were replayed on its last checkpoint.
        case resumed(DeviceEngine, inputs: Int)
    }

    /// Opens (or creates) the state at `path` for a device set up as `configuration`
    /// (`seedNamed`: its seed is the profile's, not a random one). `fresh` discards what the file held. Throws `StoreError` when another process
    /// has the file, when it holds a device with other settings, or when it cannot
    /// be read. `onFailure` hears of a failed write (after which nothing more is
    /// acknowledged). `commitDelay` plays a slow disk: each commit starts that much
    /// later (for crash tests). A clean stop saves at most `finalCheckpointPhones`
    /// phones (more are left to the journal while it is quick to replay); a checkpoint
    /// is made every `checkpointEvery` calls or `replayablePhoneChanges` phone changes.
    public static func open(
        path: String, configuration: EngineConfiguration, seedNamed: Bool, fresh: Bool = false,
        checkpointEvery: Int = 20_000, finalCheckpointPhones: Int = DeviceStore.finalCheckpointPhones,
        replayablePhoneChanges: Int = DeviceStore.replayablePhoneChanges, commitDelay: Duration = .zero,
        onFailure: @escaping @Sendable (StoreError) -> Void
    ) throws -> (DeviceStore, Opening) {
        let lock = try StateLock(path: path + ".lock", guarding: path)
        do {
            if fresh {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            let database = try openDatabase(path)
            let (opening, restored) = try load(
                database, path: path, configuration: configuration, seedNamed: seedNamed)
            // Making a fleet again and reading its rows leaves garbage behind.
            FreedMemory.release(afterOpening: restored.engine.devices.count, rowBytes: restored.rowBytes)
            let writer = JournalWriter(
                database: database, path: path, restored: restored, checkpointEvery: checkpointEvery,
                finalCheckpointPhones: finalCheckpointPhones, replayablePhoneChanges: replayablePhoneChanges,
                commitDelayMicroseconds: UInt32(
                    clamping: commitDelay.components.seconds * 1_000_000
                        + commitDelay.components.attoseconds / 1_000_000_000_000),
                onFailure: onFailure)
            return (DeviceStore(path: path, database: database, lock: lock, writer: writer), opening)
        } catch {
            lock.release()
            if let error = error as? StoreError { throw error }
            throw StoreError.unreadable(path: path, detail: "\(error)")
        }
    }

    /// The saved engine, or a new one (with the checkpoint it starts from written).
    static func load(_ database: DatabaseQueue, path: String, configuration: EngineConfiguration, seedNamed: Bool)
        throws -> (Opening, Restored)
    {
        try database.write { db in
            let saved = try restore(db, path: path) { engine in
                if let difference = ConfigurationDifference.between(
                    saved: engine.configuration, current: configuration, seedNamed: seedNamed)
                {
                    throw StoreError.configurationChanged(path: path, detail: difference)
                }
                // The run switches (`withRunSwitches`) are not set here: the journal
                // replays under the switches each run had, and a session sets this
                // run's through its front door, journaled (`DeviceSession.start`).
            }
            guard let saved else {
                // A new fleet is made again from its configuration: no phone is saved.
                let engine = DeviceEngine(configuration)
                try Checkpoint(
                    seq: 0, baseSeq: 0, rebase: true, server: engine.withoutPhones,
                    phoneCount: engine.devices.count, phones: []
                ).write(in: db, coder: PhoneCoder())
                let restored = Restored(
                    engine: engine, lastSeq: 0, baseSeq: 0, rebase: false, changedPhones: [], savedFields: [],
                    replayed: 0, replayedPhoneChanges: 0, rowBytes: 0)
                return (.new(engine), restored)
            }
            let started = saved.lastSeq > 0 || saved.engine.hasIssuedTokens
            return (started ? .resumed(saved.engine, inputs: saved.replayed) : .new(saved.engine), saved)
        }
    }

    /// The device saved at `path` as it stands, read without taking the file (an
    /// emulator may be running on it); nil when there is none.
    public static func peek(path: String) throws -> DeviceEngine? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let database = try DatabaseQueue(path: path, configuration: configuration)
            return try database.read { db in
                try checkFormat(db, path: path)
                guard try db.tableExists("server") else { return try readOlderFormat(db, path: path) }
                return try restore(db, path: path) { _ in }?.engine
            }
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.unreadable(path: path, detail: "\(error)")
        }
    }

    init(path: String, database: DatabaseQueue, lock: StateLock, writer: JournalWriter) {
        self.path = path
        self.database = database
        self.lock = lock
        self.writer = writer
    }

    /// Queues calls made on the engine, and the phones they changed
    /// (`InputRecord.changedPhones`, taken with them); returns the sequence number to
    /// wait for before acknowledging what they did. `engine` (the engine they led
    /// to) is read when a checkpoint is due.
    @discardableResult
    public func append(
        _ inputs: [JournalEntry], changedPhones: [(index: Int, fields: Phone.Fields)] = [],
        engine: @autoclosure () -> DeviceEngine
    ) -> Int64 {
        writer.append(inputs, changedPhones: changedPhones, engine: engine)
    }

    /// The sequence number of the last input appended.
    public var appendedSeq: Int64 { writer.appendedSeq }

    /// Whether everything up to `seq` is on disk.
    public func isDurable(_ seq: Int64) -> Bool { writer.durableSeq >= seq }

    /// The sequence number of the last input on disk.
    public var durableSeq: Int64 { writer.durableSeq }

    /// Runs `action` once everything up to `seq` is on disk (at once if it is).
    public func whenDurable(_ seq: Int64, _ action: @escaping @Sendable () -> Void) {
        writer.whenDurable(seq, action)
    }

    /// Returns once everything up to `seq` is on disk.
    public func durable(_ seq: Int64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            writer.whenDurable(seq) { continuation.resume() }
        }
    }

    /// Blocks the calling thread until everything up to `seq` is on disk.
    public func waitUntilDurable(_ seq: Int64) {
        let done = DispatchSemaphore(value: 0)
        writer.whenDurable(seq) { done.signal() }
        done.wait()
    }

    /// Writes a last checkpoint of `engine` (the phones changed since the one before;
    /// left to the journal when they are many and it is quick to replay), waits for
    /// the disk, and lets the file go.
    public func close(final engine: DeviceEngine) {
        closed.lock()
        defer { closed.unlock() }
        guard !isClosed else { return }
        isClosed = true
        writer.finalCheckpoint(engine)
        writer.stop()
        lock.release()
    }

    /// Stops writing without a last checkpoint, as a killed process would (after what
    /// was durable); for tests of what a restart finds.
    func abandon() {
        closed.lock()
        defer { closed.unlock() }
        guard !isClosed else { return }
        isClosed = true
        writer.stop()
        lock.release()
    }
}
