import FCMEngine
import Foundation
import GRDB

/// The file itself: its tables, its format, and migrations from older ones.
extension DeviceStore {
    /// The state format this version writes. Raised whenever what is saved changes
    /// shape, with a migration from the one before (`migrator(path:)`).
    /// 2: delivery receipts owed to app servers. 3: app-server connections.
    /// 4: topic subscriptions. 5: several phones. 6: web apps, message details.
    /// 7: each phone in a row of its own, beside the connection server's part.
    /// 8: phones saved in the compact coding (rows in JSON are still read).
    /// 9: a phone keeps its retired tokens, not every token issued and their owners.
    /// 10: an app server's send, topic, group and fault calls journaled as inputs.
    static let format = 10
    /// The oldest format this version migrates from.
    static let oldestMigratable = 2

    /// Brings a file of any format from `oldestMigratable` on up to `format`. Files
    /// written before GRDB's migrations were used say their format in `meta`; the
    /// first migration's statements change nothing in them.
    static func migrator(path: String) -> DatabaseMigrator {
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
        // The one snapshot of the whole engine becomes the connection server's part in
        // `server` and each phone in a row of `phones` (every field of it), so that
        // saving costs what changed.
        migrator.registerMigration("format 7: a row for each phone") { db in
            try db.execute(
                sql: """
                    CREATE TABLE server(id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL,
                        base_seq INTEGER NOT NULL, phones INTEGER NOT NULL, engine BLOB NOT NULL);
                    CREATE TABLE phones(idx INTEGER PRIMARY KEY, fields INTEGER NOT NULL, phone BLOB NOT NULL);
                    """)
            if let row = try Row.fetchOne(db, sql: "SELECT seq, engine FROM snapshot WHERE id = 1") {
                let engine: DeviceEngine
                do {
                    engine = try JSONDecoder().decode(DeviceEngine.self, from: row["engine"] as Data)
                } catch {
                    throw StoreError.unreadable(path: path, detail: "the saved device does not decode (\(error))")
                }
                let checkpoint = Checkpoint(
                    seq: row["seq"], baseSeq: 0, rebase: true, server: engine.withoutPhones,
                    phoneCount: engine.devices.count, phones: engine.devices.indices.map { ($0, .all) },
                    fleet: engine.devices)
                try checkpoint.write(in: db, coder: PhoneCoder())
            }
            try db.execute(sql: "DROP TABLE snapshot")
            try db.execute(sql: "UPDATE meta SET value = '7' WHERE key = 'format'")
        }
        // Rows saved in JSON stay as they are (each is read by its first byte) until
        // their phone changes; an older version is told this one is newer.
        migrator.registerMigration("format 8: compact phone rows") { db in
            try db.execute(sql: "UPDATE meta SET value = '8' WHERE key = 'format'")
        }
        // Rows saved with every token issued are read as the tokens retired
        // (`Phone.retired(issued:current:)`); their masks are renumbered
        // (`fieldsSavedBeforeFormat9`), so a later save of the phone keeps them.
        migrator.registerMigration("format 9: retired tokens") { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT idx, fields FROM phones")
            var renumbered: [(index: Int64, fields: Int64)] = []
            while let row = try rows.next() {
                let saved = Phone.Fields(rawValue: UInt32(truncatingIfNeeded: row["fields"] as Int64))
                let fields = fieldsSavedBeforeFormat9(saved)
                if fields != saved { renumbered.append((row["idx"], Int64(fields.rawValue))) }
            }
            for (index, fields) in renumbered {
                try db.execute(sql: "UPDATE phones SET fields = ? WHERE idx = ?", arguments: [fields, index])
            }
            try db.execute(sql: "UPDATE meta SET value = '9' WHERE key = 'format'")
        }
        // Journal lines of format 9 are read as they are (`InputCoding`); an older
        // version is told this one is newer.
        migrator.registerMigration("format 10: calls journaled as inputs") { db in
            try db.execute(sql: "UPDATE meta SET value = '10' WHERE key = 'format'")
        }
        return migrator
    }

    static func openDatabase(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.label = "fcm-device.state"
        // A connection closing (its last checkpoint of the WAL) holds the file a moment:
        // opening then waits for it instead of failing with "database is locked".
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            // WAL with NORMAL sync: a commit is in the file before `durable` moves,
            // so a killed process loses nothing acknowledged (a power cut may lose
            // the last commits).
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        let database = try DatabaseQueue(path: path, configuration: configuration)
        try database.read { db in try checkFormat(db, path: path) }
        try migrator(path: path).migrate(database)
        return database
    }

    /// A row's fields, saved before format 9, as this version numbers them. Fields are
    /// numbered by `Phone.CodingKeys`, which gained `retiredTokens` then: a whole
    /// phone (every field there was) is every field now, and a row that holds tokens
    /// holds the retired ones (read from the tokens it says were issued).
    static func fieldsSavedBeforeFormat9(_ saved: Phone.Fields) -> Phone.Fields {
        if saved.rawValue == Phone.Fields.retiredTokens.rawValue - 1 { return .all }
        if saved.isDisjoint(with: [.tokens, .tokenOwners, .issuedTokens]) { return saved }
        return saved.union(.retiredTokens)
    }

    /// The format a file says it was saved in, as written, or nil when it says none.
    static func formatText(_ db: Database) throws -> String? {
        guard try db.tableExists("meta") else { return nil }
        return try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'")
    }

    /// The format a file says it was saved in (this version's when it does not say).
    static func savedFormat(_ db: Database) throws -> Int {
        try formatText(db).flatMap { Int($0) } ?? format
    }

    /// Refuses a file this version cannot read or migrate, naming its format.
    static func checkFormat(_ db: Database, path: String) throws {
        guard let text = try formatText(db) else { return }
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
}
