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
    private var queued: [(seq: Int64, input: EngineInput)] = []
    private var snapshot: (seq: Int64, engine: DeviceEngine)?
    private var waiters: [(seq: Int64, action: @Sendable () -> Void)] = []
    private var stopping = false
    /// Tests hold commits back to see that nothing is acknowledged meanwhile.
    private var paused = false
    private var stopped = false
    private(set) var appended: Int64
    private(set) var durable: Int64
    private var sinceSnapshot = 0
    /// Called once, on the writer's thread, when a write fails: nothing after it is durable.
    private let onFailure: @Sendable (StoreError) -> Void

    static let smallBatch = 64
    static let gatherMicroseconds: UInt32 = 200

    /// A snapshot replaces the journal after this many inputs.
    let snapshotEvery: Int

    /// Added before every commit, to play a slow disk (crash testing).
    let commitDelayMicroseconds: UInt32

    init(
        database: DatabaseQueue, path: String, lastSeq: Int64, snapshotEvery: Int, commitDelayMicroseconds: UInt32,
        onFailure: @escaping @Sendable (StoreError) -> Void
    ) {
        self.database = database
        self.snapshotEvery = snapshotEvery
        self.commitDelayMicroseconds = commitDelayMicroseconds
        self.path = path
        appended = lastSeq
        durable = lastSeq
        self.onFailure = onFailure
        let thread = Thread { [self] in run() }
        thread.name = "fcm-device.journal"
        thread.start()
    }

    /// Queues inputs (with the engine they led to, for the next snapshot); returns
    /// the sequence number of the last.
    func append(_ inputs: [EngineInput], engine: () -> DeviceEngine) -> Int64 {
        condition.lock()
        defer { condition.unlock() }
        // Once the journal stops (a close, or a kill simulated by `abandon`) nothing more
        // reaches the file: an input then is not counted, so nothing waits for it forever
        // (a server stopping after a simulated kill waited for its connections' closes).
        guard !stopping else { return appended }
        for input in inputs {
            appended += 1
            queued.append((appended, input))
        }
        sinceSnapshot += inputs.count
        if sinceSnapshot >= snapshotEvery {
            sinceSnapshot = 0
            snapshot = (appended, engine())
        }
        condition.signal()
        return appended
    }

    /// Writes a snapshot of `engine` (the state after every input appended so far).
    func snapshot(_ engine: DeviceEngine) {
        condition.lock()
        sinceSnapshot = 0
        snapshot = (appended, engine)
        condition.signal()
        condition.unlock()
    }

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
            while (queued.isEmpty && snapshot == nil && !stopping) || (paused && !stopping) { condition.wait() }
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
            let image = snapshot
            queued.removeAll(keepingCapacity: true)
            snapshot = nil
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

    private func write(
        _ batch: [(seq: Int64, input: EngineInput)], _ image: (seq: Int64, engine: DeviceEngine)?,
        encoder: JSONEncoder
    ) throws {
        // The transaction's statements are prepared once, like the insert: GRDB's
        // `write` parses BEGIN and COMMIT anew for every commit, and with one commit
        // for each handful of sends that was a tenth of the writer's time.
        let snapshotBytes = try database.writeWithoutTransaction { db in
            try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
            do {
                let insert = try db.cachedStatement(sql: "INSERT INTO journal(seq, input) VALUES (?, ?)")
                for (seq, input) in batch {
                    try insert.execute(arguments: [seq, Data(try InputCoding.encode(input, json: encoder))])
                }
                let written = try image.map {
                    try DeviceStore.writeSnapshot($0.engine, seq: $0.seq, in: db, encoder: encoder)
                }
                try db.cachedStatement(sql: "COMMIT").execute()
                return written ?? 0
            } catch {
                if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
                throw error
            }
        }
        // After the transaction, when the encoded snapshot is gone too.
        FreedMemory.release(after: snapshotBytes)
    }
}
