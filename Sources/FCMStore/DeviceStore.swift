import FCMEngine
import Foundation
import GRDB

/// The device's state in one SQLite file: a snapshot of the engine and a journal
/// of every call made on it since, written ahead of any acknowledgement. Opening it
/// restores the engine exactly (the engine is deterministic, so replaying the
/// journal on the snapshot gives the state it had); a new snapshot replaces the
/// journal every `snapshotEvery` inputs (20,000 by default) and at a clean stop.
public final class DeviceStore: @unchecked Sendable {
    public let path: String
    let database: DatabaseQueue
    let lock: StateLock
    let writer: JournalWriter
    private let closed = NSLock()
    private var isClosed = false

    /// What was in the file when it was opened.
    public enum Opening: Sendable {
        /// Nothing yet (or `fresh`): the caller starts this engine.
        case new(DeviceEngine)
        /// A saved device, restored: `inputs` calls were replayed on its snapshot.
        case resumed(DeviceEngine, inputs: Int)
    }

    /// Opens (or creates) the state at `path` for a device set up as `configuration`
    /// (`seedNamed`: its seed is the profile's, not a random one). `fresh` discards what the file held. Throws `StoreError` when another process
    /// has the file, when it holds a device with other settings, or when it cannot
    /// be read. `onFailure` hears of a failed write (after which nothing more is
    /// acknowledged). `commitDelay` plays a slow disk: each commit starts that much
    /// later (for crash tests).
    public static func open(
        path: String, configuration: EngineConfiguration, seedNamed: Bool, fresh: Bool = false,
        snapshotEvery: Int = 20_000, commitDelay: Duration = .zero,
        onFailure: @escaping @Sendable (StoreError) -> Void
    ) throws -> (DeviceStore, Opening) {
        let lock = try StateLock(path: path + ".lock", guarding: path)
        do {
            if fresh {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            }
            let database = try openDatabase(path)
            let (opening, lastSeq) = try load(database, path: path, configuration: configuration, seedNamed: seedNamed)
            // Decoding a big saved fleet leaves as much garbage as saving it.
            FreedMemory.release(
                after: (try? database.read { try Int.fetchOne($0, sql: "SELECT length(engine) FROM snapshot") }) ?? 0)
            let writer = JournalWriter(
                database: database, path: path, lastSeq: lastSeq, snapshotEvery: snapshotEvery,
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
                guard let (saved, seq) = try readSnapshot(db, path: path) else { return nil }
                var engine = saved
                try replayJournal(after: seq, on: &engine, in: db, path: path)
                return engine
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

    /// Queues calls made on the engine (and the engine they led to); returns the
    /// sequence number to wait for before acknowledging what they did.
    @discardableResult
    public func append(_ inputs: [EngineInput], engine: @autoclosure () -> DeviceEngine) -> Int64 {
        writer.append(inputs, engine: engine)
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

    /// Writes a last snapshot of `engine`, waits for the disk, and lets the file go.
    public func close(final engine: DeviceEngine) {
        closed.lock()
        defer { closed.unlock() }
        guard !isClosed else { return }
        isClosed = true
        writer.snapshot(engine)
        writer.stop()
        lock.release()
    }

    /// Stops writing without a last snapshot, as a killed process would (after what
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
