/// Strings → values, in an open-addressing table probed linearly: each slot holds the
/// string, a 32-bit hash of its bytes and the value. A probe compares the hashes
/// first, so a lookup reads the bytes of the one string it finds, not of every string
/// it passes; the hash reads a string eight bytes at a time, and growing moves each
/// slot with its hash, made once. (A `Dictionary` or `Set` of strings hashes every
/// character with SipHash, again on every growth, and compares a string at every
/// occupied slot it passes: in a fleet of a million, most of a topic call's and a
/// resume's time; in a replay, a tenth of every upstream send.) Strings compare byte
/// for byte, as FCM compares tokens and message ids.
struct StringTable<Value: Sendable>: Sendable {
    private struct Slot: Sendable {
        var key: String
        /// 0 while the slot is empty (a string's hash is never 0).
        var hash: UInt32
        var value: Value
    }

    private var slots: [Slot] = []
    /// What an empty slot holds in place of a value.
    private let placeholder: Value
    /// How many strings it holds.
    private(set) var count = 0

    init(placeholder: Value) {
        self.placeholder = placeholder
    }

    var isEmpty: Bool { count == 0 }

    private var empty: Slot { Slot(key: "", hash: 0, value: placeholder) }

    /// The value of `key`; nil removes it.
    subscript(key: String) -> Value? {
        get { slot(of: key, hash: Self.hash(key)).map { slots[$0].value } }
        set {
            if let newValue { update(key, newValue) } else { remove(key) }
        }
    }

    func contains(_ key: String) -> Bool { slot(of: key, hash: Self.hash(key)) != nil }

    /// Every string it holds, in no particular order.
    var keys: [String] { slots.filter { $0.hash != 0 }.map(\.key) }

    /// Room for `capacity` strings without growing.
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity > slots.count / 4 * 3 { grow(toHold: capacity) }
    }

    mutating func removeAll(keepingCapacity: Bool = false) {
        count = 0
        slots = keepingCapacity ? [Slot](repeating: empty, count: slots.count) : []
    }

    /// Sets the value of `key`, whether or not it was there.
    private mutating func update(_ key: String, _ value: Value) {
        let hash = Self.hash(key)
        if let found = slot(of: key, hash: hash) {
            slots[found].value = value
        } else {
            add(key, hash: hash, value)
        }
    }

    /// Adds `key` with `value` unless it is there already: whether it was added.
    @discardableResult
    mutating func insert(_ key: String, _ value: Value) -> Bool {
        let hash = Self.hash(key)
        guard slot(of: key, hash: hash) == nil else { return false }
        add(key, hash: hash, value)
        return true
    }

    private mutating func add(_ key: String, hash: UInt32, _ value: Value) {
        if count + 1 > slots.count / 4 * 3 { grow(toHold: count + 1) }
        var index = home(of: hash)
        while slots[index].hash != 0 { index = (index + 1) & (slots.count - 1) }
        slots[index] = Slot(key: key, hash: hash, value: value)
        count += 1
    }

    /// Takes the string out, moving back the slots after it that probed past it (a
    /// linear probe's deletion: no tombstones).
    mutating func remove(_ key: String) {
        guard var hole = slot(of: key, hash: Self.hash(key)) else { return }
        let mask = slots.count - 1
        slots[hole] = empty
        count -= 1
        var next = (hole + 1) & mask
        while slots[next].hash != 0 {
            let home = home(of: slots[next].hash)
            // The slot stays unless its home lies cyclically outside (hole, next].
            let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if !stays {
                slots.swapAt(hole, next)
                hole = next
            }
            next = (next + 1) & mask
        }
    }

    /// The slot holding `key`, if any.
    private func slot(of key: String, hash: UInt32) -> Int? {
        guard !slots.isEmpty else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var index = home(of: hash)
            while slots[index].hash != 0 {
                if slots[index].hash == hash, Self.sameBytes(slots[index].key, key) { return index }
                index = (index + 1) & mask
            }
            return nil
        }
    }

    private func home(of hash: UInt32) -> Int { Int(hash) & (slots.count - 1) }

    /// A table of a power of two slots at most three quarters full with `capacity`
    /// strings; every string moved to its place in it (its hash kept, not made again).
    private mutating func grow(toHold capacity: Int) {
        var size = max(16, slots.count)
        while capacity > size / 4 * 3 { size *= 2 }
        let empty = self.empty
        var old: [Slot] = []
        swap(&old, &slots)
        slots = [Slot](repeating: empty, count: size)
        // Each slot is moved, not copied: its string is neither retained nor released
        // (unless a copy of the table shares the old slots: then they are copied first).
        old.withUnsafeMutableBufferPointer { old in
            guard let first = old.baseAddress else { return }
            for position in old.indices where old[position].hash != 0 {
                var index = home(of: old[position].hash)
                while slots[index].hash != 0 { index = (index + 1) & (size - 1) }
                slots[index] = (first + position).move()
                (first + position).initialize(to: empty)
            }
        }
    }

    /// A hash of the string's UTF-8 bytes, eight at a time; never 0.
    static func hash(_ key: String) -> UInt32 {
        var text = key
        let hash = text.withUTF8 { bytes -> UInt64 in
            var hash = SeededGenerator.step ^ UInt64(bytes.count)
            let raw = UnsafeRawBufferPointer(bytes)
            var offset = 0
            while offset + 8 <= raw.count {
                hash = SeededGenerator.mix(hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
            }
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while offset < raw.count {
                tail |= UInt64(raw[offset]) << shift
                shift += 8
                offset += 1
            }
            return SeededGenerator.mix(hash ^ tail)
        }
        let folded = UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
        return folded == 0 ? 1 : folded
    }

    /// Whether two strings are the same bytes (not merely the same text to Unicode).
    static func sameBytes(_ first: String, _ second: String) -> Bool {
        guard first.utf8.count == second.utf8.count else { return false }
        var first = first
        var second = second
        return first.withUTF8 { left in
            second.withUTF8 { right in
                let (left, right) = (UnsafeRawBufferPointer(left), UnsafeRawBufferPointer(right))
                var offset = 0
                while offset + 8 <= left.count {
                    if left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                        != right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    {
                        return false
                    }
                    offset += 8
                }
                return left[offset...].elementsEqual(right[offset...])
            }
        }
    }
}

/// A set of strings (a phone's used message ids, by sender).
typealias StringSet = StringTable<Void>

extension StringTable where Value == Void {
    /// An empty set.
    init() { self.init(placeholder: ()) }

    /// Adds `key`: whether it was not there before.
    @discardableResult
    mutating func insert(_ key: String) -> Bool { insert(key, ()) }
}

/// A text that names one phone → that phone's index: every token issued in the fleet
/// (the phone it was issued on), and every phone's name. A million of either are
/// indexed at every start and resume.
struct PhoneMap: Sendable, ExpressibleByDictionaryLiteral {
    private var table = StringTable<Int32>(placeholder: 0)

    var count: Int { table.count }
    var isEmpty: Bool { table.isEmpty }

    init() {}

    init(dictionaryLiteral elements: (String, Int)...) {
        for (key, phone) in elements { self[key] = phone }
    }

    /// The phone `key` names; nil removes it.
    subscript(key: String) -> Int? {
        get { table[key].map(Int.init) }
        set { table[key] = newValue.map(Int32.init) }
    }

    /// Room for `capacity` keys without growing.
    mutating func reserveCapacity(_ capacity: Int) { table.reserveCapacity(capacity) }

    mutating func removeAll(keepingCapacity: Bool = false) { table.removeAll(keepingCapacity: keepingCapacity) }

}
