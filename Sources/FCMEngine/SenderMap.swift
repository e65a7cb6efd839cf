/// Sender ID → a value, for the senders of one phone (a few, at most 100): a list
/// searched in order, in the order the senders were added. A phone's tokens, its used
/// message ids and its retired tokens are read by sender on every upstream send and
/// every push; a `Dictionary` hashed the sender's ID with SipHash for each read (a
/// twelfth of a replay's instructions), where comparing a few short IDs costs a few
/// instructions. Saved as a JSON object, as the dictionary was.
public struct SenderMap<Value> {
    public typealias Element = (key: String, value: Value)

    private var entries: [Element] = []

    public init() {}

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }
    /// The senders, in the order they were added (read where they lie: no list is made).
    public var keys: LazyMapSequence<[Element], String> { entries.lazy.map(\.key) }
    public var values: LazyMapSequence<[Element], Value> { entries.lazy.map(\.value) }

    private func position(of sender: String) -> Int? {
        entries.firstIndex { $0.key == sender }
    }

    /// The sender's value; nil removes it.
    public subscript(sender: String) -> Value? {
        get { position(of: sender).map { entries[$0].value } }
        set {
            switch (position(of: sender), newValue) {
            case (let found?, let value?): entries[found].value = value
            case (let found?, nil): entries.remove(at: found)
            case (nil, let value?): entries.append((sender, value))
            case (nil, nil): break
            }
        }
    }

    /// The sender's value, added as `value` first if it has none: changed in place.
    public subscript(sender: String, default value: @autoclosure () -> Value) -> Value {
        get { position(of: sender).map { entries[$0].value } ?? value() }
        _modify {
            let found: Int
            if let existing = position(of: sender) {
                found = existing
            } else {
                entries.append((sender, value()))
                found = entries.count - 1
            }
            yield &entries[found].value
        }
    }

    public mutating func removeAll() { entries.removeAll() }

    /// The same senders, each value changed by `transform`.
    public func mapValues<T>(_ transform: (Value) throws -> T) rethrows -> SenderMap<T> {
        var mapped = SenderMap<T>()
        mapped.entries = try entries.map { ($0.key, try transform($0.value)) }
        return mapped
    }
}

extension SenderMap: Sequence {
    public func makeIterator() -> IndexingIterator<[Element]> { entries.makeIterator() }
    public var underestimatedCount: Int { entries.count }
}

extension SenderMap: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, Value)...) {
        for (sender, value) in elements { self[sender] = value }
    }
}

extension SenderMap {
    /// The map of a dictionary's entries, sorted by sender ID (a saved phone's: the
    /// order it was saved in is not kept, and no rule reads it).
    init(_ dictionary: [String: Value]) {
        for (sender, value) in dictionary.sorted(by: { $0.key < $1.key }) { self[sender] = value }
    }
}

extension SenderMap: Sendable where Value: Sendable {}

extension SenderMap: Equatable where Value: Equatable {
    /// The same senders with the same values, in any order.
    public static func == (left: Self, right: Self) -> Bool {
        left.count == right.count && left.entries.allSatisfy { right[$0.key] == $0.value }
    }
}

extension SenderMap: Codable where Value: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try [String: Value](from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last }).encode(to: encoder)
    }
}
