import FCMEngine
import Foundation
import GRDB

/// Writes the journal on a thread of its own, in group commits: whatever the
/// shells appended while the last transaction ran goes into the next one. Callers
/// wait for `durable` to pass their sequence number before they acknowledge
/// anything (an ack stanza, an HTTP 200, a line on the screen).
final class JournalWriter: @unchecked Sendable {
    private let database: DatabaseQueue
    private let path: String
    private let condition = NSCondition()
    private var queued: [(seq: Int64, input: JournalEntry)] = []
    private var checkpoint: Checkpoint?
    /// Phones changed since the last checkpoint was made.
    private var changedPhones = ChangedPhones()
    /// Each phone's fields that differ from the fleet as started (what its row holds).
    private var sinceBase: [Phone.Fields] = []
    /// Journal entries up to this one make the fleet as started (`Checkpoint.baseSeq`).
    private var baseSeq: Int64
    /// The fleet started since the last checkpoint was made.
    private var rebase: Bool
    private var waiters: [(seq: Int64, action: @Sendable () -> Void)] = []
    private var stopping = false
    /// Tests hold commits back to see that nothing is acknowledged meanwhile.
    private var paused = false
    private var stopped = false
    private(set) var appended: Int64
    private(set) var durable: Int64
    /// Inputs journaled since the last checkpoint was made.
    private var sinceCheckpoint: Int
    /// Phones changed since then, counted for each call that changed them: what a
    /// replay of the journal since then costs.
    private var phoneChangesSinceCheckpoint: Int
    /// Called once, on the writer's thread, when a write fails: nothing after it is durable.
    private let onFailure: @Sendable (StoreError) -> Void
    private let coder = PhoneCoder()

    static let smallBatch = 64
    static let gatherMicroseconds: UInt32 = 200

    /// A checkpoint replaces the journal after this many inputs.
    let checkpointEvery: Int

    /// Added before every commit, to play a slow disk (crash testing).
    let commitDelayMicroseconds: UInt32

    /// A clean stop saves at most this many phones (`finalCheckpoint`).
    let finalCheckpointPhones: Int
    /// The journal since the last checkpoint is quick to replay while its calls changed
    /// at most this many phones in all (a few seconds of replay); past it, a checkpoint.
    let replayablePhoneChanges: Int

    init(
        database: DatabaseQueue, path: String, restored: DeviceStore.Restored, checkpointEvery: Int,
        finalCheckpointPhones: Int, replayablePhoneChanges: Int, commitDelayMicroseconds: UInt32,
        onFailure: @escaping @Sendable (StoreError) -> Void
    ) {
        self.database = database
        self.checkpointEvery = checkpointEvery
        self.finalCheckpointPhones = finalCheckpointPhones
        self.replayablePhoneChanges = replayablePhoneChanges
        self.commitDelayMicroseconds = commitDelayMicroseconds
        self.path = path
        appended = restored.lastSeq
        durable = restored.lastSeq
        baseSeq = restored.baseSeq
        rebase = restored.rebase
        for (index, fields) in restored.savedFields { Self.add(fields, at: index, to: &sinceBase) }
        for (index, fields) in restored.changedPhones { changedPhones.insert(index, fields) }
        // The journal replayed at opening is still the journal since the last checkpoint.
        sinceCheckpoint = restored.replayed
        phoneChangesSinceCheckpoint = restored.replayedPhoneChanges
        self.onFailure = onFailure
        let thread = Thread { [self] in run() }
        thread.name = "fcm-device.journal"
        thread.start()
    }

    /// Queues inputs and notes the phones they changed (`engine`, the engine they led
    /// to, is read for the next checkpoint); returns the sequence number of the last.
    func append(
        _ inputs: [JournalEntry], changedPhones changed: [(index: Int, fields: Phone.Fields)],
        engine: () -> DeviceEngine
    ) -> Int64 {
        condition.lock()
        defer { condition.unlock() }
        // Once the journal stops (a close, or a kill simulated by `abandon`) nothing more
        // reaches the file: an input then is not counted, so nothing waits for it forever
        // (a server stopping after a simulated kill waited for its connections' closes).
        guard !stopping else { return appended }
        for input in inputs {
            appended += 1
            queued.append((appended, input))
            if input.startsFleet {
                // The fleet as started is made again from the journal up to here: the
                // phones changed before are not saved, and rows saved before are dropped.
                baseSeq = appended
                rebase = true
                changedPhones.removeAll()
                sinceBase.removeAll()
            }
        }
        for (index, fields) in changed { changedPhones.insert(index, fields) }
        sinceCheckpoint += inputs.count
        phoneChangesSinceCheckpoint += changed.count
        // A journal long to replay is replaced, by its calls or by the phones they changed.
        if sinceCheckpoint >= checkpointEvery || phoneChangesSinceCheckpoint >= replayablePhoneChanges {
            makeCheckpoint(engine())
        }
        condition.signal()
        return appended
    }

    /// At a clean stop: a last checkpoint of `engine`, unless it would save more than
    /// `finalCheckpointPhones` phones while the journal since the last one is quick to
    /// replay (after a topic message to a million phones, writing a million rows takes
    /// longer than replaying the message). The journal is on disk either way, the
    /// engine's clock as it stopped included (`DeviceEngine.stop`).
    func finalCheckpoint(_ engine: DeviceEngine) {
        condition.lock()
        defer { condition.unlock() }
        // Over the limit only when the journal replayed at opening already was (a call
        // past it makes a checkpoint in `append`).
        let quickToReplay = phoneChangesSinceCheckpoint <= replayablePhoneChanges
        guard changedPhones.count <= finalCheckpointPhones || !quickToReplay else { return }
        makeCheckpoint(engine)
        condition.signal()
    }

    /// The checkpoint of `engine` as things stand (under the lock): the phones changed
    /// since the last one, taken from it now; encoding them is the writer's. When many
    /// changed, the fleet is shared with the engine instead of copied phone by phone
    /// (a copy of a million phones costs a second; the engine copies the array once,
    /// at its next change).
    private func makeCheckpoint(_ engine: DeviceEngine) {
        sinceCheckpoint = 0
        phoneChangesSinceCheckpoint = 0
        let count = engine.devices.count
        let changed = changedPhones.take().filter { $0.index < count }
        for (index, fields) in changed { Self.add(fields, at: index, to: &sinceBase) }
        // A checkpoint not written yet is merged in: each phone once, with its fields now.
        var phones: [(index: Int, fields: Phone.Fields)] = []
        var listed = [Bool](repeating: false, count: count)
        for (index, _) in (checkpoint?.phones ?? []) + changed where index < count && !listed[index] {
            listed[index] = true
            phones.append((index, sinceBase[index]))
        }
        var copies = checkpoint?.copies ?? [:]
        var fleet = checkpoint?.fleet ?? []
        if changed.count * Self.sharedFleetShare >= count {
            // The fleet now is as new as any copy taken before.
            fleet = engine.devices
            copies = [:]
        } else {
            for (index, _) in changed { copies[index] = engine.devices[index] }
            // A phone the last one listed and no longer holds (a reset made fewer, then
            // more): unchanged since, it is read as it is now.
            for (index, _) in phones where copies[index] == nil && index >= fleet.count {
                copies[index] = engine.devices[index]
            }
        }
        checkpoint = Checkpoint(
            seq: appended, baseSeq: baseSeq, rebase: rebase || checkpoint?.rebase == true,
            server: engine.withoutPhones, phoneCount: count, phones: phones, copies: copies, fleet: fleet)
        rebase = false
    }

    /// A checkpoint that saves at least one phone in this many shares the fleet.
    static let sharedFleetShare = 8

    var appendedSeq: Int64 { condition.withLock { appended } }
    var durableSeq: Int64 { condition.withLock { durable } }

    /// Runs `action` once every input up to `seq` is durable: at once if it is.
    func whenDurable(_ seq: Int64, _ action: @escaping @Sendable () -> Void) {
        condition.lock()
        if durable >= seq {
            condition.unlock()
            action()
            return
        }
        waiters.append((seq, action))
        condition.unlock()
    }

    /// Holds commits back until `resume()` (for tests of write-ahead).
    func pause() { condition.withLock { paused = true } }

    func resume() {
        condition.withLock {
            paused = false
            condition.signal()
        }
    }

    /// Writes what is queued, then stops the thread.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        while !stopped { condition.wait() }
        condition.unlock()
    }

    private func run() {
        let encoder = JSONEncoder()
        while true {
            condition.lock()
            while (queued.isEmpty && checkpoint == nil && !stopping) || (paused && !stopping) { condition.wait() }
            // A few inputs alone: wait a moment for the rest of the burst, so that one
            // transaction takes many (a commit costs the same for one or a hundred).
            if queued.count < Self.smallBatch && !stopping {
                condition.unlock()
                usleep(Self.gatherMicroseconds)
                condition.lock()
                // A pause that came while the burst gathered holds it back too.
                while paused && !stopping { condition.wait() }
            }
            let batch = queued
            let image = checkpoint
            queued.removeAll(keepingCapacity: true)
            checkpoint = nil
            let finishing = stopping && batch.isEmpty && image == nil
            condition.unlock()
            if finishing { break }
            if commitDelayMicroseconds > 0 { usleep(commitDelayMicroseconds) }
            do {
                try write(batch, image, encoder: encoder)
            } catch {
                onFailure(.writeFailed(path: path, detail: "\(error)"))
                break
            }
            condition.lock()
            if let last = batch.last?.seq { durable = last }
            let ready = waiters.filter { $0.seq <= durable }
            waiters.removeAll { $0.seq <= durable }
            condition.unlock()
            for waiter in ready { waiter.action() }
        }
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private static func add(_ fields: Phone.Fields, at index: Int, to masks: inout [Phone.Fields]) {
        if index >= masks.count { masks.append(contentsOf: repeatElement([], count: index - masks.count + 1)) }
        masks[index].formUnion(fields)
    }

    private func write(
        _ batch: [(seq: Int64, input: JournalEntry)], _ image: Checkpoint?, encoder: JSONEncoder
    ) throws {
        // The transaction's statements are prepared once, like the insert: GRDB's
        // `write` parses BEGIN and COMMIT anew for every commit, and with one commit
        // for each handful of sends that was a tenth of the writer's time.
        let checkpointBytes = try database.writeWithoutTransaction { db in
            try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
            do {
                let insert = try db.cachedStatement(sql: "INSERT INTO journal(seq, input) VALUES (?, ?)")
                for (seq, input) in batch {
                    try insert.execute(arguments: [seq, Data(try InputCoding.encode(input, json: encoder))])
                }
                let written = try image?.write(in: db, coder: coder)
                try db.cachedStatement(sql: "COMMIT").execute()
                return written ?? 0
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                throw error
            }
        }
        // After the transaction, when the encoded phones are gone too.
        FreedMemory.release(after: checkpointBytes)
    }
}
