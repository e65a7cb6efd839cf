import FCMEngine
import Foundation
import GRDB

/// The file itself: its tables, its format, snapshots, and reading it back.
extension DeviceStore {
    /// The state format this version writes. Raised whenever what is saved changes
    /// shape, with a migration from the one before (`migrator`).
    /// 2: delivery receipts owed to app servers. 3: app-server connections.
    /// 4: topic subscriptions. 5: several phones. 6: web apps, message details.
    static let format = 6
    /// The oldest format this version migrates from.
    static let oldestMigratable = 2

    /// Brings a file of any format from `oldestMigratable` on up to `format`. Files
    /// written before GRDB's migrations were used say their format in `meta`; the
    /// first migration's statements change nothing in them.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("format 2: snapshot, journal, grants") { db in
            try db.execute(
                sql: """
                    CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                    CREATE TABLE IF NOT EXISTS snapshot(id INTEGER PRIMARY KEY CHECK (id = 1),
                        seq INTEGER NOT NULL, engine BLOB NOT NULL);
                    CREATE TABLE IF NOT EXISTS journal(seq INTEGER PRIMARY KEY, input BLOB NOT NULL);
                    CREATE TABLE IF NOT EXISTS grants(digest BLOB PRIMARY KEY, project TEXT NOT NULL,
                        expires REAL NOT NULL);
                    INSERT OR IGNORE INTO meta(key, value) VALUES ('format', '2');
                    """)
        }
        // The saved device gained its app-server connections: a snapshot without
        // them decodes with none (DeviceEngine reads the key if present).
        migrator.registerMigration("format 3: app-server connections") { db in
            try db.execute(sql: "UPDATE meta SET value = '3' WHERE key = 'format'")
        }
        // The saved device gained topic subscriptions (a snapshot without them has
        // none) and the journal topic calls, which an older version cannot read.
        migrator.registerMigration("format 4: topic subscriptions") { db in
            try db.execute(sql: "UPDATE meta SET value = '4' WHERE key = 'format'")
        }
        // The saved device became a list of phones: a snapshot with one phone's
        // fields at its top decodes as that one phone (DeviceEngine reads either).
        migrator.registerMigration("format 5: several phones") { db in
            try db.execute(sql: "UPDATE meta SET value = '5' WHERE key = 'format'")
        }
        // A saved phone may be a web app (its permission, its tokens' issue times) and
        // a journaled message may carry its details (package, label, what is ignored):
        // a format-5 file reads as it is; an older version is told this one is newer.
        migrator.registerMigration("format 6: web apps, message details") { db in
            try db.execute(sql: "UPDATE meta SET value = '6' WHERE key = 'format'")
        }
        return migrator
    }

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
        try database.read { db in try checkFormat(db, path: path) }
        try migrator.migrate(database)
        return database
    }

    /// Refuses a file this version cannot read or migrate, naming its format.
    static func checkFormat(_ db: Database, path: String) throws {
        guard try db.tableExists("meta"),
            let text = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'")
        else { return }
        guard let format = Int(text), (oldestMigratable...Self.format).contains(format) else {
            let newer = Int(text).map { $0 > Self.format } ?? false
            throw StoreError.unreadable(
                path: path,
                detail: "it was saved in state format \(text), "
                    + (newer
                        ? "by a newer fcm-device; this version reads formats \(oldestMigratable) to \(Self.format)"
                        : "which this version cannot migrate (it reads formats \(oldestMigratable) to \(Self.format))"))
        }
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

    /// Replaces the snapshot; answers its size in bytes.
    @discardableResult
    static func writeSnapshot(_ engine: DeviceEngine, seq: Int64, in db: Database, encoder: JSONEncoder) throws
        -> Int
    {
        var image = engine
        image.inputs = InputRecord()
        let encoded = try encoder.encode(image)
        try db.execute(
            sql: "INSERT OR REPLACE INTO snapshot(id, seq, engine) VALUES (1, ?, ?)", arguments: [seq, encoded])
        try db.execute(sql: "DELETE FROM journal WHERE seq <= ?", arguments: [seq])
        return encoded.count
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
            let started = lastSeq > 0 || engine.hasIssuedTokens
            return (started ? .resumed(engine, inputs: replayed) : .new(engine), lastSeq)
        }
    }
}
