/// Which phones changed since a shell last asked, each once: what a store saves at its
/// next checkpoint instead of the whole fleet. A bit per phone, and the list of those
/// set, so noting a change costs a bit test and taking them costs what changed.
public struct ChangedPhones: Sendable {
    private var bits: [UInt64] = []
    private var list: [Int] = []

    public init() {}

    /// How many phones are noted.
    public var count: Int { list.count }

    public var isEmpty: Bool { list.isEmpty }

    public func contains(_ index: Int) -> Bool {
        let word = index >> 6
        return word < bits.count && bits[word] & (1 << UInt64(index & 63)) != 0
    }

    /// Notes the phone at `index` (again is nothing).
    @inline(__always)
    public mutating func insert(_ index: Int) {
        let word = index >> 6
        let bit: UInt64 = 1 << UInt64(index & 63)
        if word < bits.count, bits[word] & bit != 0 { return }
        if word >= bits.count { bits.append(contentsOf: repeatElement(0, count: word - bits.count + 1)) }
        bits[word] |= bit
        list.append(index)
    }

    /// Notes every phone below `count`.
    public mutating func insertAll(below count: Int) {
        for index in 0..<count { insert(index) }
    }

    /// The phones noted, in the order first noted; none are noted afterwards.
    public mutating func take() -> [Int] {
        defer { removeAll() }
        return list
    }

    public mutating func removeAll() {
        if list.count * 8 < bits.count {
            for index in list { bits[index >> 6] = 0 }
        } else {
            bits.removeAll(keepingCapacity: true)
        }
        list.removeAll(keepingCapacity: true)
    }
}
