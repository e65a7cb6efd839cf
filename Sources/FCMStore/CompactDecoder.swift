import Foundation

/// Reads what `CompactEncoder` wrote. A keyed container lists where each of its
/// entries lies when it is opened (skipping nested containers by their length), so
/// fields are read in any order; reading them in the order written finds each at
/// once. Every read is checked against the bytes there are: a short or broken row is
/// a `DecodingError` naming where, never a crash.
final class CompactDecoder {
    let bytes: [UInt8]
    let userInfo: [CodingUserInfoKey: Any]
    /// Where the value `T(from: decoder)` reads next begins.
    @exclusivity(unchecked) var at = 0
    @exclusivity(unchecked) var path: [any CodingKey] = []

    init(_ bytes: [UInt8], userInfo: [CodingUserInfoKey: Any]) {
        self.bytes = bytes
        self.userInfo = userInfo
    }

    /// The value written from `offset` on; every byte after it must be its own.
    static func decode<T: Decodable>(
        _ type: T.Type, from bytes: [UInt8], at offset: Int = 0, userInfo: [CodingUserInfoKey: Any] = [:]
    ) throws -> T {
        let decoder = CompactDecoder(bytes, userInfo: userInfo)
        let value = try decoder.decodeValue(type, at: offset, key: nil)
        guard try decoder.end(ofValueAt: offset) == bytes.count else {
            throw decoder.corrupt("bytes follow the value")
        }
        return value
    }

    func corrupt(_ detail: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: path, debugDescription: detail))
    }

    // MARK: Reading bytes

    func tag(at offset: Int) throws -> CompactTag {
        guard offset < bytes.count else { throw corrupt("the row ends where a value should be") }
        guard let tag = CompactTag(rawValue: bytes[offset]) else {
            throw corrupt("byte \(offset) is no value (\(bytes[offset]))")
        }
        return tag
    }

    func expect(_ wanted: CompactTag, at offset: Int) throws {
        let found = try tag(at: offset)
        guard found == wanted else { throw corrupt("expected \(wanted) at byte \(offset), found \(found)") }
    }

    func varint(at offset: inout Int) throws -> UInt64 {
        var number: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 64 else { throw corrupt("a number runs past the row") }
            let byte = bytes[offset]
            offset += 1
            number |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return number }
            shift += 7
        }
    }

    func readSigned(at offset: Int) throws -> Int64 {
        let found = try tag(at: offset)
        var cursor = offset + 1
        let raw = try varint(at: &cursor)
        switch found {
        case .signed: return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
        case .unsigned:
            guard let number = Int64(exactly: raw) else { throw corrupt("\(raw) is too big at byte \(offset)") }
            return number
        default: throw corrupt("expected a number at byte \(offset), found \(found)")
        }
    }

    func readUnsigned(at offset: Int) throws -> UInt64 {
        let found = try tag(at: offset)
        if found == .signed {
            guard let number = UInt64(exactly: try readSigned(at: offset)) else {
                throw corrupt("a negative number at byte \(offset)")
            }
            return number
        }
        try expect(.unsigned, at: offset)
        var cursor = offset + 1
        return try varint(at: &cursor)
    }

    func readDouble(at offset: Int) throws -> Double {
        let found = try tag(at: offset)
        if found == .signed { return Double(try readSigned(at: offset)) }
        try expect(.double, at: offset)
        guard offset + 9 <= bytes.count else { throw corrupt("a number runs past the row") }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(bytes[offset + 1 + index]) << (8 * UInt64(index)) }
        return Double(bitPattern: bits)
    }

    func readBool(at offset: Int) throws -> Bool {
        switch try tag(at: offset) {
        case .yes: return true
        case .no: return false
        case let found: throw corrupt("expected true or false at byte \(offset), found \(found)")
        }
    }

    func readString(at offset: Int) throws -> String {
        try expect(.string, at: offset)
        var cursor = offset + 1
        let range = try text(at: &cursor)
        return String(decoding: bytes[range], as: UTF8.self)
    }

    /// A length and that many bytes: where the bytes are.
    func text(at cursor: inout Int) throws -> Range<Int> {
        let length = try varint(at: &cursor)
        guard cursor <= bytes.count, length <= UInt64(bytes.count - cursor) else {
            throw corrupt("a text runs past the row")
        }
        let range = cursor..<(cursor + Int(length))
        cursor = range.upperBound
        return range
    }

    func read32(at offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }

    /// A container's first entry, its end and its count.
    func containerBounds(_ wanted: CompactTag, at offset: Int) throws -> (first: Int, end: Int, count: Int) {
        try expect(wanted, at: offset)
        guard offset + 9 <= bytes.count else { throw corrupt("a container runs past the row") }
        let length = Int(read32(at: offset + 1))
        let count = Int(read32(at: offset + 5))
        let first = offset + 9
        guard length <= bytes.count - first else { throw corrupt("a container runs past the row") }
        // Every entry takes a byte at least: a count past that is a broken row, not a size.
        guard count <= length else { throw corrupt("a container counts \(count) entries in \(length) bytes") }
        return (first, first + length, count)
    }

    /// Where the value at `offset` ends.
    func end(ofValueAt offset: Int) throws -> Int {
        switch try tag(at: offset) {
        case .null, .no, .yes: return offset + 1
        case .signed, .unsigned:
            var cursor = offset + 1
            _ = try varint(at: &cursor)
            return cursor
        case .double:
            guard offset + 9 <= bytes.count else { throw corrupt("a number runs past the row") }
            return offset + 9
        case .string:
            var cursor = offset + 1
            return try text(at: &cursor).upperBound
        case .keyed: return try containerBounds(.keyed, at: offset).end
        case .unkeyed: return try containerBounds(.unkeyed, at: offset).end
        }
    }
}

extension CompactDecoder: Decoder {
    var codingPath: [any CodingKey] { path }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(try CompactKeyedDecoder<Key>(decoder: self, at: at))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try CompactUnkeyedDecoder(decoder: self, at: at)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        CompactSingleDecoder(decoder: self, at: at)
    }
}

struct CompactKeyedDecoder<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: CompactDecoder
    let entries: CompactEntries
    var codingPath: [any CodingKey] { decoder.path }

    init(decoder: CompactDecoder, at offset: Int) throws {
        self.decoder = decoder
        entries = try CompactEntries(decoder: decoder, at: offset)
    }

    var allKeys: [Key] {
        entries.list.compactMap { Key(stringValue: String(decoding: decoder.bytes[$0.name], as: UTF8.self)) }
    }

    private func find(_ key: Key) -> Int? { entries.find(key.stringValue) }

    private func value(_ key: Key) throws -> Int {
        guard let offset = find(key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no such field saved"))
        }
        return offset
    }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { try decoder.tag(at: value(key)) == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decodeValue(type, at: value(key), key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        KeyedDecodingContainer(try CompactKeyedDecoder<NestedKey>(decoder: decoder, at: value(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try CompactUnkeyedDecoder(decoder: decoder, at: value(key))
    }

    func superDecoder() throws -> any Decoder { throw decoder.corrupt("superDecoder is not supported") }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw decoder.corrupt("superDecoder is not supported") }
}

/// A keyed container's entries: where each one's name is, and where its value begins.
final class CompactEntries {
    let bytes: [UInt8]
    let list: [(name: Range<Int>, value: Int)]
    /// The entry after the one last found: fields read in the order written are found here.
    @exclusivity(unchecked) var next = 0

    init(decoder: CompactDecoder, at offset: Int) throws {
        bytes = decoder.bytes
        let (first, end, count) = try decoder.containerBounds(.keyed, at: offset)
        var list: [(name: Range<Int>, value: Int)] = []
        list.reserveCapacity(count)
        var cursor = first
        for _ in 0..<count {
            let name = try decoder.text(at: &cursor)
            list.append((name, cursor))
            cursor = try decoder.end(ofValueAt: cursor)
        }
        guard cursor == end else { throw decoder.corrupt("a container's entries do not fill it") }
        self.list = list
    }

    /// Where the value named `name` begins, or nil.
    func find(_ name: String) -> Int? {
        var name = name
        return name.withUTF8 { wanted in
            func matches(_ index: Int) -> Bool {
                let range = list[index].name
                return range.count == wanted.count && bytes[range].elementsEqual(wanted)
            }
            // The next entry, or the one just found (`decodeIfPresent` asks three times).
            let found =
                next < list.count && matches(next)
                ? next : next > 0 && matches(next - 1) ? next - 1 : list.indices.first(where: matches)
            guard let found else { return nil }
            next = found + 1
            return list[found].value
        }
    }
}

struct CompactUnkeyedDecoder: UnkeyedDecodingContainer {
    let decoder: CompactDecoder
    let end: Int
    let total: Int
    var cursor: Int
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.path }
    var count: Int? { total }
    var isAtEnd: Bool { currentIndex >= total }

    init(decoder: CompactDecoder, at offset: Int) throws {
        self.decoder = decoder
        let (first, end, count) = try decoder.containerBounds(.unkeyed, at: offset)
        self.end = end
        total = count
        cursor = first
    }

    /// The next item's offset; the cursor moves past it.
    private mutating func take() throws -> Int {
        guard !isAtEnd, cursor < end else { throw decoder.corrupt("a list has no item \(currentIndex)") }
        let offset = cursor
        cursor = try decoder.end(ofValueAt: offset)
        guard cursor <= end else { throw decoder.corrupt("item \(currentIndex) runs past its list") }
        currentIndex += 1
        return offset
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, try decoder.tag(at: cursor) == .null else { return false }
        _ = try take()
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeValue(type, at: take(), key: nil)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        KeyedDecodingContainer(try CompactKeyedDecoder<NestedKey>(decoder: decoder, at: take()))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try CompactUnkeyedDecoder(decoder: decoder, at: take())
    }

    mutating func superDecoder() throws -> any Decoder { throw decoder.corrupt("superDecoder is not supported") }
}

struct CompactSingleDecoder: SingleValueDecodingContainer {
    let decoder: CompactDecoder
    let at: Int
    var codingPath: [any CodingKey] { decoder.path }

    func decodeNil() -> Bool { (try? decoder.tag(at: at)) == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type, at: at, key: nil) }
}

extension CompactDecoder {
    func integer<T: FixedWidthInteger>(_ type: T.Type, at offset: Int) throws -> T {
        if T.isSigned {
            let number = try readSigned(at: offset)
            guard let fitted = T(exactly: number) else { throw corrupt("\(number) does not fit \(T.self)") }
            return fitted
        }
        let number = try readUnsigned(at: offset)
        guard let fitted = T(exactly: number) else { throw corrupt("\(number) does not fit \(T.self)") }
        return fitted
    }

    /// The value at `offset`: a scalar read directly, or a nested value read by its own
    /// `init(from:)` (with `key` on the coding path while it reads).
    func decodeValue<T: Decodable>(_ type: T.Type, at offset: Int, key: (any CodingKey)?) throws -> T {
        do {
            if let scalar = try readScalar(type, at: offset) { return scalar }
        } catch let error as DecodingError {
            // Named where it is: the path goes in only when something is wrong.
            guard let key, case .dataCorrupted(let context) = error else { throw error }
            throw DecodingError.dataCorrupted(
                .init(codingPath: path + [key], debugDescription: context.debugDescription))
        }
        if let key { path.append(key) }
        defer { if key != nil { path.removeLast() } }
        let saved = at
        at = offset
        defer { at = saved }
        return try T(from: self)
    }

    /// The number, flag or text at `offset` when `T` is one; nil otherwise. Types are
    /// compared, not cast: a cast that fails costs more than the read.
    func readScalar<T>(_ type: T.Type, at offset: Int) throws -> T? {
        func bitCast<U>(_ value: U) -> T { unsafeBitCast(value, to: T.self) }
        if T.self == String.self { return bitCast(try readString(at: offset)) }
        if T.self == Int.self { return bitCast(try integer(Int.self, at: offset)) }
        if T.self == Int64.self { return bitCast(try readSigned(at: offset)) }
        if T.self == Bool.self { return bitCast(try readBool(at: offset)) }
        if T.self == Double.self { return bitCast(try readDouble(at: offset)) }
        if T.self == Int32.self { return bitCast(try integer(Int32.self, at: offset)) }
        if T.self == UInt64.self { return bitCast(try integer(UInt64.self, at: offset)) }
        if T.self == UInt.self { return bitCast(try integer(UInt.self, at: offset)) }
        if T.self == UInt32.self { return bitCast(try integer(UInt32.self, at: offset)) }
        if T.self == Int16.self { return bitCast(try integer(Int16.self, at: offset)) }
        if T.self == UInt16.self { return bitCast(try integer(UInt16.self, at: offset)) }
        if T.self == Int8.self { return bitCast(try integer(Int8.self, at: offset)) }
        if T.self == UInt8.self { return bitCast(try integer(UInt8.self, at: offset)) }
        if T.self == Float.self { return bitCast(Float(try readDouble(at: offset))) }
        return nil
    }
}
