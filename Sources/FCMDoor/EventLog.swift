import FCMEngine
import Foundation

/// Every event the emulator produced, numbered from 1 in the order it happened, for
/// the control API: read after a sequence number, filtered, or waited for. Keeps the
/// newest `capacity` events.
public final class EventLog: @unchecked Sendable {
    public struct Entry: Sendable, Equatable {
        public var seq: Int64
        public var event: Event

        public init(seq: Int64, event: Event) {
            self.seq = seq
            self.event = event
        }
    }

    public let capacity: Int
    private let lock = NSLock()
    // Under `lock`, each access whole: the runtime's check of each (every event) is left
    // out. The same for `card`.
    @exclusivity(unchecked) private var entries: [Entry] = []
    private var nextSeq: Int64 = 1
    private var waiters: [Int: Waiter] = [:]
    private var nextWaiter = 0
    private var closed = false
    /// Reads every event as it is appended: one writer, `report` its reader.
    @exclusivity(unchecked) private var card = ReportCard()

    struct Waiter {
        var after: Int64
        var matches: @Sendable (Event) -> Bool
        var continuation: CheckedContinuation<[Entry], Never>
    }

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// Ends every wait (each answers what it has, nothing) and makes later ones return
    /// at once: the server is stopping.
    public func close() {
        let pending: [Waiter] = lock.withLock {
            closed = true
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        for waiter in pending { waiter.continuation.resume(returning: []) }
    }

    /// How many waits are pending.
    public var waiting: Int { lock.withLock { waiters.count } }

    /// Whether `close()` was called.
    public var isClosed: Bool { lock.withLock { closed } }

    /// The sequence number of the newest event (0 before any).
    public var lastSeq: Int64 { lock.withLock { nextSeq - 1 } }

    /// The app server's report card, as the events so far make it (a reset starts a
    /// new one). Sequence numbers of its evidence are this log's.
    public var report: AppServerReport { lock.withLock { card.report } }

    /// The report of the whole run, resets and all (`exec` and `serve` at the end).
    public var runReport: AppServerReport { lock.withLock { card.runReport } }

    /// Adds an event; its sequence number (what serve's and exec's log lines say).
    @discardableResult
    public func append(_ event: Event) -> Int64 {
        var woken: [(CheckedContinuation<[Entry], Never>, Entry)] = []
        let seq: Int64 = lock.withLock {
            card.observe(event)
            let entry = Entry(seq: nextSeq, event: event)
            nextSeq += 1
            entries.append(entry)
            // Trimmed in chunks, so a busy log does not shift on every event.
            if entries.count >= capacity + capacity / 4 { entries.removeFirst(entries.count - capacity) }
            for (id, waiter) in waiters where entry.seq > waiter.after && waiter.matches(event) {
                waiters[id] = nil
                woken.append((waiter.continuation, entry))
            }
            return entry.seq
        }
        for (continuation, entry) in woken { continuation.resume(returning: [entry]) }
        return seq
    }

    /// The events after `after` that match, oldest first, at most `limit`.
    public func entries(after: Int64, limit: Int = 1_000, matching: (Event) -> Bool) -> [Entry] {
        lock.withLock { entriesLocked(after: after, limit: limit, matching: matching) }
    }

    /// The events after `after` that match; when there are none yet, waits up to
    /// `timeout` for the first one, and answers empty if none came.
    public func wait(
        after: Int64, limit: Int = 1_000, timeout: Duration, matching: @escaping @Sendable (Event) -> Bool
    ) async -> [Entry] {
        let id: Int = lock.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let (present, waiting): ([Entry], Bool) = lock.withLock {
                    let present = entriesLocked(after: after, limit: limit, matching: matching)
                    guard present.isEmpty, !closed else { return (present, false) }
                    waiters[id] = Waiter(after: after, matches: matching, continuation: continuation)
                    return (present, true)
                }
                guard waiting else {
                    continuation.resume(returning: present)
                    return
                }
                Task { [weak self] in
                    try? await Task.sleep(for: timeout)
                    self?.expire(id)
                }
            }
        } onCancel: {
            expire(id)
        }
    }

    private func expire(_ id: Int) {
        let waiter = lock.withLock { waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(returning: [])
    }

    private func entriesLocked(after: Int64, limit: Int, matching: (Event) -> Bool) -> [Entry] {
        var found: [Entry] = []
        // Sequence numbers are consecutive, so the first one after `after` is found by arithmetic.
        let first = entries.first?.seq ?? nextSeq
        let start = Int(max(0, min(Int64(entries.count), after + 1 - first)))
        for entry in entries[start...] where matching(entry.event) {
            found.append(entry)
            if found.count >= limit { break }
        }
        return found
    }
}
