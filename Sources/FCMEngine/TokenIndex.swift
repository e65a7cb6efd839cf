/// Every token issued in the fleet → the index of the phone it was issued on.
///
/// An open-addressing table probed linearly, each slot holding the token, a 32-bit
/// hash of its bytes and the phone (24 bytes, as a dictionary's key and value). A probe compares the hashes first, so a lookup
/// reads the bytes of the one token it finds, not of every token it passes; and the
/// hash reads a token eight bytes at a time. (A `Dictionary` of strings hashed all 152
/// characters with SipHash and compared a token at every occupied slot it passed: in
/// a fleet of a million, most of a topic call's and a resume's time.) Tokens compare
/// byte for byte, as FCM compares them.
struct TokenIndex: Sendable {
    private struct Slot: Sendable {
        var token: String
        /// 0 while the slot is empty (a token's hash is never 0).
        var hash: UInt32
        var phone: Int32

        static let empty = Slot(token: "", hash: 0, phone: 0)
    }

    private var slots: [Slot] = []
    /// How many tokens it holds.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The phone `token` was issued on; nil removes it.
    subscript(token: String) -> Int? {
        get { slot(of: token, hash: Self.hash(token)).map { Int(slots[$0].phone) } }
        set {
            if let newValue { insert(token, phone: newValue) } else { remove(token) }
        }
    }

    /// Room for `capacity` tokens without growing.
    mutating func reserveCapacity(_ capacity: Int) {
        if capacity > slots.count / 4 * 3 { grow(toHold: capacity) }
    }

    mutating func removeAll(keepingCapacity: Bool = false) {
        count = 0
        slots = keepingCapacity ? [Slot](repeating: .empty, count: slots.count) : []
    }

    private mutating func insert(_ token: String, phone: Int) {
        let hash = Self.hash(token)
        if let found = slot(of: token, hash: hash) {
            slots[found].phone = Int32(phone)
            return
        }
        if count + 1 > slots.count / 4 * 3 { grow(toHold: count + 1) }
        var index = home(of: hash)
        while slots[index].hash != 0 { index = (index + 1) & (slots.count - 1) }
        slots[index] = Slot(token: token, hash: hash, phone: Int32(phone))
        count += 1
    }

    /// Takes the token out, moving back the slots after it that probed past it (a
    /// linear probe's deletion: no tombstones).
    private mutating func remove(_ token: String) {
        guard var hole = slot(of: token, hash: Self.hash(token)) else { return }
        let mask = slots.count - 1
        slots[hole] = .empty
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

    /// The slot holding `token`, if any.
    private func slot(of token: String, hash: UInt32) -> Int? {
        guard !slots.isEmpty else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var index = home(of: hash)
            while slots[index].hash != 0 {
                if slots[index].hash == hash, Self.sameBytes(slots[index].token, token) { return index }
                index = (index + 1) & mask
            }
            return nil
        }
    }

    private func home(of hash: UInt32) -> Int { Int(hash) & (slots.count - 1) }

    /// A table of a power of two slots at most three quarters full with `capacity`
    /// tokens; every token moved to its place in it (its hash kept, not made again).
    private mutating func grow(toHold capacity: Int) {
        var size = max(16, slots.count)
        while capacity > size / 4 * 3 { size *= 2 }
        let old = slots
        slots = [Slot](repeating: .empty, count: size)
        for slot in old where slot.hash != 0 {
            var index = home(of: slot.hash)
            while slots[index].hash != 0 { index = (index + 1) & (size - 1) }
            slots[index] = slot
        }
    }

    /// A hash of the token's UTF-8 bytes, eight at a time; never 0.
    static func hash(_ token: String) -> UInt32 {
        var text = token
        let hash = text.withUTF8 { bytes -> UInt64 in
            var hash = SeededGenerator.step ^ UInt64(bytes.count)
            let raw = UnsafeRawBufferPointer(bytes)
            var offset = 0
            while offset + 8 <= raw.count {
                hash = SeededGenerator.mix(hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                offset += 8
            }
            var tail: UInt64 = 0
            for (shift, byte) in raw[offset...].enumerated() { tail |= UInt64(byte) << UInt64(shift * 8) }
            return SeededGenerator.mix(hash ^ tail)
        }
        let folded = UInt32(truncatingIfNeeded: hash ^ (hash >> 32))
        return folded == 0 ? 1 : folded
    }

    /// Whether two tokens are the same bytes (not merely the same text to Unicode).
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
