import FCMEngine
import Foundation
import GRDB

/// The file itself: its tables, its format, snapshots, and reading it back.
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

    /// The saved engine and the sequence number it stands at; nil when none is saved.
    static func readSnapshot(_ db: Database, path: String) throws -> (DeviceEngine, Int64)? {
        guard let row = try Row.fetchOne(db, sql: "SELECT seq, engine FROM snapshot WHERE id = 1") else { return nil }
        do {
            return (try JSONDecoder().decode(DeviceEngine.self, from: row["engine"] as Data), row["seq"])
        } catch {
            throw StoreError.unreadable(path: path, detail: "the saved device does not decode (\(error))")
        }
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
            guard let (saved, snapshotSeq) = try readSnapshot(db, path: path) else {
                let engine = DeviceEngine(configuration)
                try writeSnapshot(engine, seq: 0, in: db, encoder: JSONEncoder())
                return (.new(engine), 0)
            }
            var engine = saved
            if let difference = ConfigurationDifference.between(
                saved: engine.configuration, current: configuration, seedNamed: seedNamed)
            {
                throw StoreError.configurationChanged(path: path, detail: difference)
            }
            engine.useAppServer(configuration.appServer)
            let (replayed, lastSeq) = try replayJournal(after: snapshotSeq, on: &engine, in: db, path: path)
            let started = lastSeq > 0 || !engine.tokens.isEmpty
            return (started ? .resumed(engine, inputs: replayed) : .new(engine), lastSeq)
        }
    }
}
