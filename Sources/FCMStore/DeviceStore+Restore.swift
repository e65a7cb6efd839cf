import FCMEngine
import Foundation
import GRDB

/// Reading a saved fleet back a phone at a time: the connection server's part, the
/// fleet made again from its start configuration and the journal's first entries,
/// each saved phone laid over its place as it is read, then the journal since the
/// last checkpoint. Memory holds the fleet and one row, never an encoded fleet.
extension DeviceStore {
    /// A saved device read back, and where its journal stands.
    struct Restored {
        var engine: DeviceEngine
        var lastSeq: Int64
        var baseSeq: Int64
        /// The fleet started after the last checkpoint: the rows saved are older than it.
        var rebase: Bool
        /// Phones the journal's replay changed (and which fields): not in their rows yet.
        var changedPhones: [(index: Int, fields: Phone.Fields)]
        /// Each saved phone's fields that differ from the fleet as started.
        var savedFields: [(index: Int, fields: Phone.Fields)]
        var replayed: Int
        /// Phones the replayed journal changed, counted for each call.
        var replayedPhoneChanges: Int
        var rowBytes: Int
    }

    /// The device saved in `db`, or nil when none is. `prepare` sees the connection
    /// server's part before any phone is made (to refuse other settings early).
    static func restore(_ db: Database, path: String, prepare: (inout DeviceEngine) throws -> Void) throws
        -> Restored?
    {
        guard let row = try Row.fetchOne(db, sql: "SELECT seq, base_seq, phones, engine FROM server WHERE id = 1")
        else { return nil }
        let coder = PhoneCoder()
        var engine: DeviceEngine
        do {
            engine = try coder.decodeServer(row["engine"])
        } catch {
            throw StoreError.unreadable(path: path, detail: "the saved connection server does not decode (\(error))")
        }
        try prepare(&engine)
        let seq: Int64 = row["seq"]
        let baseSeq: Int64 = row["base_seq"]
        let count: Int = row["phones"]
        let (fleet, savedFields, rowBytes) = try savedPhones(
            db, path: path, server: engine, baseSeq: baseSeq, count: count)
        // Consumed, so the engine holds the only reference and changes its phones in place.
        // The journal since the checkpoint is replayed recording, to learn which phones
        // it changed: their rows are older than they are.
        engine = DeviceEngine(server: consume engine, fleet: consume fleet).recording(true)
        var started: Int64?
        var changedByReplay = ChangedPhones()
        var phoneChanges = 0
        let (replayed, lastSeq) = try replayJournal(
            after: seq, through: nil, in: db, path: path,
            onStart: { seq in
                // The fleet started again: what changed before is the fleet as started.
                started = seq
                changedByReplay.removeAll()
            },
            handle: { input in
                // Nobody reads the replay's events: none are made.
                engine.handleSilently(input)
                let changed = engine.takeRecorded().changedPhones
                phoneChanges += changed.count
                for (index, fields) in changed { changedByReplay.insert(index, fields) }
            })
        let changed = changedByReplay.take()
        engine = engine.recording(false)
        return Restored(
            engine: engine, lastSeq: lastSeq, baseSeq: started ?? baseSeq, rebase: started != nil,
            changedPhones: changed, savedFields: started == nil ? savedFields : [], replayed: replayed,
            replayedPhoneChanges: phoneChanges, rowBytes: rowBytes)
    }

    /// The saved fleet: made again as it started (the start configuration and the
    /// journal up to `baseSeq`), each saved row laid over its phone as it is read;
    /// with each row's fields and how many bytes were read.
    static func savedPhones(_ db: Database, path: String, server: DeviceEngine, baseSeq: Int64, count: Int) throws
        -> (fleet: SavedFleet, fields: [(index: Int, fields: Phone.Fields)], rowBytes: Int)
    {
        let coder = PhoneCoder()
        var rebuilt = SavedFleet(rebuilding: server)
        try replayJournal(after: 0, through: baseSeq, in: db, path: path) { rebuilt.handle($0) }
        var rowBytes = 0
        var savedFields: [(index: Int, fields: Phone.Fields)] = []
        // A file read as it stands (`peek`), not migrated: its rows numbered as they were.
        let renumber = try savedFormat(db) < 9
        let rows = try Row.fetchCursor(
            db, sql: "SELECT idx, fields, phone FROM phones WHERE idx < ? ORDER BY idx", arguments: [count])
        while let saved = try rows.next() {
            let index: Int = saved["idx"]
            var fields = Phone.Fields(rawValue: UInt32(truncatingIfNeeded: saved["fields"] as Int64))
            if renumber { fields = fieldsSavedBeforeFormat9(fields) }
            let data: Data = saved["phone"]
            rowBytes += data.count
            savedFields.append((index, fields))
            let phone: Phone
            do {
                let base = rebuilt.phone(at: index)
                if fields != .all && base == nil {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: [], debugDescription: "some fields of a phone the fleet did not start with"))
                }
                phone = try coder.decode(data, fields: fields, over: base)
            } catch {
                throw StoreError.unreadable(path: path, detail: "saved phone \(index) does not decode (\(error))")
            }
            guard rebuilt.lay(phone, at: index) else {
                throw StoreError.unreadable(path: path, detail: "saved phone \(index) follows no phone \(index - 1)")
            }
        }
        guard rebuilt.count == count else {
            throw StoreError.unreadable(
                path: path, detail: "it holds \(count) phones, but \(rebuilt.count) could be read")
        }
        return (rebuilt, savedFields, rowBytes)
    }

    /// Hands `handle` the journal's entries after `seq` (through `last`, when given),
    /// in order: how many, and the last seq. `onStart` hears where the fleet started.
    @discardableResult
    static func replayJournal(
        after seq: Int64, through last: Int64?, in db: Database, path: String,
        onStart: (Int64) -> Void = { _ in }, handle: (JournalEntry) -> Void
    ) throws -> (Int, Int64) {
        let decoder = JSONDecoder()
        var lastSeq = seq
        let rows = try Row.fetchCursor(
            db, sql: "SELECT seq, input FROM journal WHERE seq > ? AND seq <= ? ORDER BY seq",
            arguments: [seq, last ?? Int64.max])
        var replayed = 0
        while let entry = try rows.next() {
            let entrySeq: Int64 = entry["seq"]
            let input: JournalEntry
            do {
                input = try InputCoding.decode(Array(entry["input"] as Data), json: decoder)
            } catch {
                throw StoreError.unreadable(path: path, detail: "journal entry \(entrySeq) does not decode (\(error))")
            }
            if input.startsFleet { onStart(entrySeq) }
            handle(input)
            lastSeq = entrySeq
            replayed += 1
        }
        return (replayed, lastSeq)
    }

    /// A file of format 6 or older, not migrated (read without taking it): its one
    /// snapshot of the whole engine and the journal after it.
    static func readOlderFormat(_ db: Database, path: String) throws -> DeviceEngine? {
        guard try db.tableExists("snapshot"),
            let row = try Row.fetchOne(db, sql: "SELECT seq, engine FROM snapshot WHERE id = 1")
        else { return nil }
        var engine: DeviceEngine
        do {
            engine = try JSONDecoder().decode(DeviceEngine.self, from: row["engine"] as Data)
        } catch {
            throw StoreError.unreadable(path: path, detail: "the saved device does not decode (\(error))")
        }
        try replayJournal(after: row["seq"], through: nil, in: db, path: path) { engine.handleSilently($0) }
        return engine
    }
}
