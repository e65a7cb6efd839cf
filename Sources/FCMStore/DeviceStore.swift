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
                guard let row = try Row.fetchOne(db, sql: "SELECT seq, engine FROM snapshot WHERE id = 1") else {
                    return nil
                }
                var engine = try JSONDecoder().decode(DeviceEngine.self, from: row["engine"] as Data)
                try replayJournal(after: row["seq"], on: &engine, in: db, path: path)
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

    /// A bearer token the HTTP v1 API issued: its SHA-256 digest, its project, and
    /// when it expires (seconds since 1970).
    public struct SavedGrant: Sendable, Equatable {
        public var digest: Data
        public var project: String
        public var expires: Double

        public init(digest: Data, project: String, expires: Double) {
            self.digest = digest
            self.project = project
            self.expires = expires
        }
    }

    /// Keeps a bearer token's grant (written at once, before the token is handed
    /// out); grants expired more than a day are dropped.
    public func save(_ grant: SavedGrant) throws {
        try database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO grants(digest, project, expires) VALUES (?, ?, ?)",
                arguments: [grant.digest, grant.project, grant.expires])
            try db.execute(sql: "DELETE FROM grants WHERE expires < ?", arguments: [grant.expires - 90_000])
        }
    }

    /// The grants kept, for a restarted emulator to honour.
    public func savedGrants() throws -> [SavedGrant] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT digest, project, expires FROM grants").map {
                SavedGrant(digest: $0["digest"], project: $0["project"], expires: $0["expires"])
            }
        }
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

extension DeviceStore {
    /// Raised whenever the engine's saved state changes shape (there is no migration:
    /// an older file is refused with its format named, and `--fresh` starts over).
    /// 2: delivery receipts owed to app servers.
    static let format = 2

    static func openDatabase(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = "fcm-device.state"
        configuration.prepareDatabase { db in
            // WAL with NORMAL sync: a commit is in the file before `durable` moves,
            // so a killed process loses nothing acknowledged (a power cut may lose
            // the last commits).
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let database = try DatabaseQueue(path: path, configuration: configuration)
        try database.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                    CREATE TABLE IF NOT EXISTS snapshot(id INTEGER PRIMARY KEY CHECK (id = 1),
                        seq INTEGER NOT NULL, engine BLOB NOT NULL);
                    CREATE TABLE IF NOT EXISTS journal(seq INTEGER PRIMARY KEY, input BLOB NOT NULL);
                    CREATE TABLE IF NOT EXISTS grants(digest BLOB PRIMARY KEY, project TEXT NOT NULL,
                        expires REAL NOT NULL);
                    """)
            let format = try checkFormat(db, path: path)
            if format == nil {
                try db.execute(
                    sql: "INSERT INTO meta(key, value) VALUES ('format', ?)", arguments: [String(Self.format)])
            }
        }
        return database
    }

    /// The file's state format (nil for a new file); an error naming both formats
    /// when it is not this version's.
    @discardableResult
    static func checkFormat(_ db: Database, path: String) throws -> String? {
        let format = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'")
        if let format, format != String(Self.format) {
            throw StoreError.unreadable(
                path: path,
                detail: "it was saved in state format \(format) and this version of fcm-device reads \(Self.format)")
        }
        return format
    }

    /// Replays the journal's entries after `seq` on `engine`: how many, and the last seq.
    @discardableResult
    static func replayJournal(after seq: Int64, on engine: inout DeviceEngine, in db: Database, path: String) throws
        -> (Int, Int64)
    {
        let decoder = JSONDecoder()
        var lastSeq = seq
        let rows = try Row.fetchCursor(
            db, sql: "SELECT seq, input FROM journal WHERE seq > ? ORDER BY seq", arguments: [seq])
        var replayed = 0
        var ignored: [Event] = []
        while let entry = try rows.next() {
            let entrySeq: Int64 = entry["seq"]
            let input: EngineInput
            do {
                input = try InputCoding.decode(Array(entry["input"] as Data), json: decoder)
            } catch {
                throw StoreError.unreadable(path: path, detail: "journal entry \(entrySeq) does not decode (\(error))")
            }
            engine.replay(input, into: &ignored)
            ignored.removeAll(keepingCapacity: true)
            lastSeq = entrySeq
            replayed += 1
        }
        return (replayed, lastSeq)
    }

    static func writeSnapshot(_ engine: DeviceEngine, seq: Int64, in db: Database, encoder: JSONEncoder) throws {
        var image = engine
        image.inputs = InputRecord()
        try db.execute(
            sql: "INSERT OR REPLACE INTO snapshot(id, seq, engine) VALUES (1, ?, ?)",
            arguments: [seq, try encoder.encode(image)])
        try db.execute(sql: "DELETE FROM journal WHERE seq <= ?", arguments: [seq])
    }

    /// The saved engine and the last sequence number, or a new engine.
    static func load(_ database: DatabaseQueue, path: String, configuration: EngineConfiguration, seedNamed: Bool)
        throws
        -> (Opening, Int64)
    {
        try database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT seq, engine FROM snapshot WHERE id = 1") else {
                let engine = DeviceEngine(configuration)
                try writeSnapshot(engine, seq: 0, in: db, encoder: JSONEncoder())
                return (.new(engine), 0)
            }
            let decoder = JSONDecoder()
            var engine: DeviceEngine
            do {
                engine = try decoder.decode(DeviceEngine.self, from: row["engine"] as Data)
            } catch {
                throw StoreError.unreadable(path: path, detail: "the saved device does not decode (\(error))")
            }
            if let difference = ConfigurationDifference.between(
                saved: engine.configuration, current: configuration, seedNamed: seedNamed)
            {
                throw StoreError.configurationChanged(path: path, detail: difference)
            }
            engine.useAppServer(configuration.appServer)
            let (replayed, lastSeq) = try replayJournal(after: row["seq"], on: &engine, in: db, path: path)
            let started = lastSeq > 0 || !engine.tokens.isEmpty
            return (started ? .resumed(engine, inputs: replayed) : .new(engine), lastSeq)
        }
    }
}
