/// A set of phones by index, read in index order: a sorted list while it is small, a
/// bitmap of the fleet once the list would take more room than one bit a phone. A
/// topic with a million subscribers costs 125 KB and is read without hashing.
struct PhoneSet: Sendable, Equatable {
    private enum Storage: Sendable, Equatable {
        case sorted([Int32])
        case bits([UInt64])
    }

    private var storage = Storage.sorted([])
    private(set) var count = 0

    /// A list longer than this turns into a bitmap once a bitmap is no bigger.
    private static let smallest = 1_024

    var isEmpty: Bool { count == 0 }

    func contains(_ phone: Int) -> Bool {
        switch storage {
        case .sorted(let list): return Self.position(of: Int32(phone), in: list).found
        case .bits(let words):
            let word = phone >> 6
            return word < words.count && words[word] & (1 << UInt64(phone & 63)) != 0
        }
    }

    mutating func insert(_ phone: Int) {
        switch storage {
        case .sorted(var list):
            let value = Int32(phone)
            if let last = list.last, last >= value {
                let (at, found) = Self.position(of: value, in: list)
                if found { return }
                storage = .sorted([])
                list.insert(value, at: at)
            } else {
                storage = .sorted([])
                list.append(value)
            }
            count += 1
            // One bit a phone up to the highest index, against four bytes a member.
            if list.count > Self.smallest, Int(list[list.count - 1]) / 32 < list.count {
                storage = .bits(Self.bitmap(of: list))
            } else {
                storage = .sorted(list)
            }
        case .bits(var words):
            storage = .bits([])
            let word = phone >> 6
            if word >= words.count { words.append(contentsOf: repeatElement(0, count: word - words.count + 1)) }
            let bit: UInt64 = 1 << UInt64(phone & 63)
            if words[word] & bit == 0 {
                words[word] |= bit
                count += 1
            }
            storage = .bits(words)
        }
    }

    mutating func remove(_ phone: Int) {
        switch storage {
        case .sorted(var list):
            let (at, found) = Self.position(of: Int32(phone), in: list)
            guard found else { return }
            storage = .sorted([])
            list.remove(at: at)
            count -= 1
            storage = .sorted(list)
        case .bits(var words):
            let word = phone >> 6
            let bit: UInt64 = 1 << UInt64(phone & 63)
            guard word < words.count, words[word] & bit != 0 else { return }
            storage = .bits([])
            words[word] &= ~bit
            count -= 1
            storage = .bits(words)
        }
    }

    /// The phones, lowest index first.
    var phones: [Int] {
        var out: [Int] = []
        out.reserveCapacity(count)
        switch storage {
        case .sorted(let list):
            for phone in list { out.append(Int(phone)) }
        case .bits(let words):
            for (index, word) in words.enumerated() where word != 0 {
                var rest = word
                while rest != 0 {
                    out.append(index << 6 | rest.trailingZeroBitCount)
                    rest &= rest - 1
                }
            }
        }
        return out
    }

    private static func position(of value: Int32, in list: [Int32]) -> (at: Int, found: Bool) {
        var low = 0
        var high = list.count
        while low < high {
            let middle = (low + high) / 2
            if list[middle] < value { low = middle + 1 } else { high = middle }
        }
        return (low, low < list.count && list[low] == value)
    }

    private static func bitmap(of list: [Int32]) -> [UInt64] {
        var words = [UInt64](repeating: 0, count: Int(list[list.count - 1]) / 64 + 1)
        for phone in list { words[Int(phone) >> 6] |= 1 << UInt64(phone & 63) }
        return words
    }
}
