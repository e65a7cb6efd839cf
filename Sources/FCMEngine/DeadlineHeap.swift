/// A sender's upstream message, as the connection server keys what it holds. Its
/// sender and id compare as bytes, as a phone's used ids do (`StringSet`): two ids that
/// differ in their bytes are two messages, held apart.
struct MessageKey: Hashable, Sendable, Codable {
    var sender: String
    var id: String

    static func == (left: Self, right: Self) -> Bool {
        StringSet.sameBytes(left.id, right.id) && StringSet.sameBytes(left.sender, right.sender)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(StringSet.hash(sender))
        hasher.combine(StringSet.hash(id))
    }
}

/// Where a deadline heap keeps each key's current deadline: a dictionary, or for
/// keys that are small numbers (the phones), a list by number that hashes nothing.
protocol DeadlineTable {
    associatedtype Key: Hashable
    init()
    subscript(key: Key) -> Millis? { get set }
    /// How many keys have a deadline.
    var count: Int { get }
}

extension Dictionary: DeadlineTable where Value == Millis {}

/// The phones' deadlines by index: a phone's timers are set after every change of
/// its queue, store or batch, and a dictionary hashed its index three times a change.
struct PhoneDeadlineTable: DeadlineTable, Sendable {
    /// `none` where a phone has no deadline.
    private var deadlines: [Millis] = []
    private(set) var count = 0
    private static let none = Millis.min

    subscript(phone: Int) -> Millis? {
        get { phone < deadlines.count && deadlines[phone] != Self.none ? deadlines[phone] : nil }
        set {
            if phone >= deadlines.count {
                guard newValue != nil else { return }
                deadlines.append(contentsOf: repeatElement(Self.none, count: phone - deadlines.count + 1))
            }
            let had = deadlines[phone] != Self.none
            deadlines[phone] = newValue ?? Self.none
            count += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
        }
    }
}

/// The earliest of many deadlines without scanning them all (the upstream messages
/// awaiting an app server's ack, the connections' timers, the phones' own timers):
/// a binary min-heap of (deadline, key) entries with lazy deletion. An entry is
/// current while `deadlines[key]` still equals its deadline; stale ones are dropped
/// when they reach the top.
struct DeadlineHeap<Table: DeadlineTable & Sendable>: Sendable where Table.Key: Sendable {
    typealias Key = Table.Key
    private var entries: [(deadline: Millis, key: Key)] = []
    private var deadlines = Table()

    /// The earliest current deadline.
    var earliest: Millis? { entries.first?.deadline }

    /// The deadline set for `key`, if any.
    func deadline(of key: Key) -> Millis? { deadlines[key] }
    /// How many entries the heap holds, stale ones included.
    var entryCount: Int { entries.count }
    /// Whose deadline is the earliest.
    var earliestKey: Key? { entries.first?.key }

    /// Sets (or replaces) the deadline of one key.
    mutating func set(_ key: Key, _ deadline: Millis) {
        deadlines[key] = deadline
        entries.append((deadline, key))
        siftUp(entries.count - 1)
        dropStale()
        // Stale entries below the top wait until they reach it; when they outnumber
        // the current ones, start over from the current ones, in the heap's own order
        // (a dictionary's order differs from run to run, and ties must not).
        if entries.count > 2 * deadlines.count + 64 { compact() }
    }

    mutating func remove(_ key: Key) {
        deadlines[key] = nil
        dropStale()
    }

    /// Sets, replaces or (with nil) removes one key's deadline; nothing when it is
    /// already that.
    mutating func update(_ key: Key, _ deadline: Millis?) {
        guard deadlines[key] != deadline else { return }
        if let deadline { set(key, deadline) } else { remove(key) }
    }

    /// The keys whose deadline is `time` or earlier, in no particular order. Only the
    /// part of the heap at or before `time` is visited.
    func due(by time: Millis) -> [Key] {
        var found: [Key] = []
        collect(from: 0, by: time, into: &found)
        // A key may have two current-looking entries: an old one becomes current again
        // when its key gets the same deadline back. (Nearly always one key is due: no
        // set is made for it.)
        guard found.count > 1 else { return found }
        var seen: Set<Key> = []
        return found.filter { seen.insert($0).inserted }
    }

    /// The current keys due by `time` in the subtree at `index` (the heap's depth deep
    /// at most: no list of places to visit is made).
    private func collect(from index: Int, by time: Millis, into found: inout [Key]) {
        guard index < entries.count, entries[index].deadline <= time else { return }
        if deadlines[entries[index].key] == entries[index].deadline { found.append(entries[index].key) }
        collect(from: 2 * index + 1, by: time, into: &found)
        collect(from: 2 * index + 2, by: time, into: &found)
    }

    /// Starts over from `items` (after a pass that changed many deadlines).
    mutating func rebuild(_ items: [(Key, Millis)]) {
        deadlines = Table()
        for (key, deadline) in items { deadlines[key] = deadline }
        entries = items.map { (deadline: $0.1, key: $0.0) }
        for index in stride(from: entries.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    private mutating func compact() {
        var seen: Set<Key> = []
        let current = entries.filter { deadlines[$0.key] == $0.deadline && seen.insert($0.key).inserted }
        rebuild(current.map { ($0.key, $0.deadline) })
    }

    private mutating func dropStale() {
        while let top = entries.first, deadlines[top.key] != top.deadline {
            popTop()
        }
    }

    private mutating func popTop() {
        let last = entries.removeLast()
        guard !entries.isEmpty else { return }
        entries[0] = last
        siftDown(0)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { return }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            var smallest = left
            if left + 1 < entries.count, entries[left + 1].deadline < entries[left].deadline { smallest = left + 1 }
            guard entries[smallest].deadline < entries[parent].deadline else { return }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

extension HeldUpstream {
    var heapKey: MessageKey { MessageKey(sender: message.sender, id: message.id) }
    /// When this message next needs the engine: a retry, or its expiry.
    var deadline: Millis { min(nextRetryAt, message.expiresAt) }
}

extension DeadlineHeap: Codable where Table == [MessageKey: Millis] {
    private struct Entry: Codable {
        var sender: String
        var id: String
        var deadline: Millis
    }

    /// Only the current deadlines are kept; the heap is rebuilt from them.
    init(from decoder: any Decoder) throws {
        let items = try [Entry](from: decoder)
        self.init()
        rebuild(items.map { (MessageKey(sender: $0.sender, id: $0.id), $0.deadline) })
    }

    func encode(to encoder: any Encoder) throws {
        let items = deadlines.map { Entry(sender: $0.key.sender, id: $0.key.id, deadline: $0.value) }
        try items.sorted { ($0.deadline, $0.sender, $0.id) < ($1.deadline, $1.sender, $1.id) }.encode(to: encoder)
    }
}
