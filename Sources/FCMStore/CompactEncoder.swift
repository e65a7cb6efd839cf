import Foundation

/// The compact coding of a saved phone: any `Encodable` as tagged binary values,
/// written straight into one buffer (no tree of values on the way, which is what
/// makes JSON slow for a million rows). A value is a tag byte (`CompactTag`) and its
/// payload: integers as variable-length numbers, strings with their length, and
/// containers with their length in bytes and their count (so a reader skips one
/// whole) then their entries (a keyed entry is its key's name and its value).
///
/// Containers are written in the order they are made: a value's containers are
/// finished before its parent's next entry (as synthesized and this project's own
/// `Codable` code do). A write to a container already finished throws.
final class CompactEncoder {
    // Checked by hand (one writer, one thread): the runtime's exclusivity checks on a
    // class's fields cost more than the writes.
    @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
    let userInfo: [CodingUserInfoKey: Any]
    /// The containers open, outermost first.
    @exclusivity(unchecked) private var open: [Frame] = []
    /// What went wrong in a call that cannot throw (a nested container): thrown at the end.
    var failure: (any Error)?
    /// A value is being encoded and has not made its container yet.
    @exclusivity(unchecked) private var valuePending = false
    /// Moves on with every container made, so a finished one is told from a new one
    /// at the same depth.
    private var made = 0

    struct Frame {
        var header: Int
        var count: UInt32 = 0
        var id: Int
        var key: (any CodingKey)?
    }

    init(userInfo: [CodingUserInfoKey: Any] = [:]) {
        self.userInfo = userInfo
    }

    /// `value` coded compactly, after `header`.
    static func encode<T: Encodable>(_ value: T, header: [UInt8] = [], userInfo: [CodingUserInfoKey: Any] = [:])
        throws -> [UInt8]
    {
        let encoder = CompactEncoder(userInfo: userInfo)
        encoder.bytes.reserveCapacity(512)
        encoder.bytes += header
        try encoder.encodeValue(value, key: nil)
        encoder.close(to: 0)
        if let failure = encoder.failure { throw failure }
        return encoder.bytes
    }

    func encodeValue<T: Encodable>(_ value: T, key: (any CodingKey)?) throws {
        if writeScalar(value) { return }
        valuePending = true
        pendingKey = key
        let depth = open.count
        // A second `container(…)` for this value is its own container, whatever
        // nested one is open.
        let outerValue = valueDepth
        valueDepth = depth
        defer { valueDepth = outerValue }
        try value.encode(to: self)
        if valuePending {
            // It made no container: an empty keyed one stands for it.
            valuePending = false
            _ = openFrame(.keyed)
        }
        close(to: depth)
    }

    /// Writes `value` when it is a number, a flag or a text; false otherwise. Types
    /// are compared, not cast: a cast that fails costs more than the write.
    func writeScalar<T>(_ value: T) -> Bool {
        func bitCast<U>(_ type: U.Type) -> U { unsafeBitCast(value, to: type) }
        if T.self == String.self {
            write(bitCast(String.self))
        } else if T.self == Int.self {
            write(signed: Int64(bitCast(Int.self)))
        } else if T.self == Int64.self {
            write(signed: bitCast(Int64.self))
        } else if T.self == Bool.self {
            write(bitCast(Bool.self))
        } else if T.self == Double.self {
            write(bitCast(Double.self))
        } else if T.self == Int32.self {
            write(signed: Int64(bitCast(Int32.self)))
        } else if T.self == UInt64.self {
            write(unsigned: bitCast(UInt64.self))
        } else if T.self == UInt.self {
            write(unsigned: UInt64(bitCast(UInt.self)))
        } else if T.self == UInt32.self {
            write(unsigned: UInt64(bitCast(UInt32.self)))
        } else if T.self == Int16.self {
            write(signed: Int64(bitCast(Int16.self)))
        } else if T.self == UInt16.self {
            write(unsigned: UInt64(bitCast(UInt16.self)))
        } else if T.self == Int8.self {
            write(signed: Int64(bitCast(Int8.self)))
        } else if T.self == UInt8.self {
            write(unsigned: UInt64(bitCast(UInt8.self)))
        } else if T.self == Float.self {
            write(Double(bitCast(Float.self)))
        } else {
            return false
        }
        return true
    }

    private var pendingKey: (any CodingKey)?
    /// The depth of the container of the value being encoded.
    @exclusivity(unchecked) private var valueDepth = 0

    /// Finishes the containers deeper than `depth`: their lengths and counts go in.
    func close(to depth: Int) {
        while open.count > depth {
            let frame = open.removeLast()
            let length = UInt32(bytes.count - frame.header - 9)
            put(length, at: frame.header + 1)
            put(frame.count, at: frame.header + 5)
        }
    }

    private func put(_ number: UInt32, at offset: Int) {
        for shift in 0..<4 { bytes[offset + shift] = UInt8(truncatingIfNeeded: number >> (8 * UInt32(shift))) }
    }

    /// Opens a container for the pending value (or for the entry `key`); answers its
    /// depth and id.
    func openFrame(_ tag: CompactTag, key: (any CodingKey)? = nil) -> (depth: Int, id: Int) {
        made += 1
        let frame = Frame(header: bytes.count, id: made, key: key ?? pendingKey)
        pendingKey = nil
        bytes.append(tag.rawValue)
        bytes.append(contentsOf: repeatElement(0, count: 8))
        open.append(frame)
        return (open.count - 1, made)
    }

    /// A container at `depth` takes an entry: deeper ones are finished. Throws when
    /// the container itself was finished already.
    func entry(depth: Int, id: Int, key: (any CodingKey)?) throws {
        close(to: depth + 1)
        guard depth < open.count, open[depth].id == id else {
            throw EncodingError.invalidValue(
                key?.stringValue ?? "",
                .init(codingPath: codingPath, debugDescription: "a container written after it was finished"))
        }
        open[depth].count += 1
    }

    /// The container to make for `encoder.container(…)`: a new one for the pending
    /// value, or the one already made for it.
    func container(_ tag: CompactTag) -> (depth: Int, id: Int) {
        if valuePending {
            valuePending = false
            return openFrame(tag)
        }
        guard valueDepth < open.count, bytes[open[valueDepth].header] == tag.rawValue else {
            failure =
                failure
                ?? EncodingError.invalidValue(
                    "", .init(codingPath: codingPath, debugDescription: "a value asked for a second kind of container"))
            return openFrame(tag)
        }
        return (valueDepth, open[valueDepth].id)
    }

    // MARK: Scalars

    func write(_ text: String) {
        bytes.append(CompactTag.string.rawValue)
        var text = text
        text.withUTF8 { utf8 in
            writeLength(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    func write(_ flag: Bool) { bytes.append(flag ? CompactTag.yes.rawValue : CompactTag.no.rawValue) }

    func write(signed number: Int64) {
        bytes.append(CompactTag.signed.rawValue)
        writeVarint(UInt64(bitPattern: (number << 1) ^ (number >> 63)))
    }

    func write(unsigned number: UInt64) {
        bytes.append(CompactTag.unsigned.rawValue)
        writeVarint(number)
    }

    func write(_ number: Double) {
        bytes.append(CompactTag.double.rawValue)
        var bits = number.bitPattern
        for _ in 0..<8 {
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bits >>= 8
        }
    }

    func writeNil() { bytes.append(CompactTag.null.rawValue) }

    /// A keyed entry's name: its length and bytes, no tag.
    func writeKey(_ name: String) {
        var name = name
        name.withUTF8 { utf8 in
            writeLength(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    func writeLength(_ length: Int) { writeVarint(UInt64(length)) }

    func writeVarint(_ number: UInt64) {
        var rest = number
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }
}

/// The tag byte before each compact value.
enum CompactTag: UInt8 {
    case null = 0, no, yes, signed, unsigned, double, string, keyed, unkeyed
}

extension CompactEncoder: Encoder {
    var codingPath: [any CodingKey] { open.compactMap(\.key) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let (depth, id) = container(.keyed)
        return KeyedEncodingContainer(CompactKeyedEncoder<Key>(encoder: self, depth: depth, id: id))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let (depth, id) = container(.unkeyed)
        return CompactUnkeyedEncoder(encoder: self, depth: depth, id: id)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        valuePending = false
        return CompactSingleEncoder(encoder: self, depth: open.count)
    }
}

struct CompactKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: CompactEncoder
    let depth: Int
    let id: Int
    var codingPath: [any CodingKey] { encoder.codingPath }

    private func begin(_ key: Key) throws {
        try encoder.entry(depth: depth, id: id, key: key)
        encoder.writeKey(key.stringValue)
    }

    mutating func encodeNil(forKey key: Key) throws {
        try begin(key)
        encoder.writeNil()
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try begin(key)
        try encoder.encodeValue(value, key: key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder.noting { try begin(key) }
        let (depth, id) = encoder.openFrame(.keyed, key: key)
        return KeyedEncodingContainer(CompactKeyedEncoder<NestedKey>(encoder: encoder, depth: depth, id: id))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.noting { try begin(key) }
        let (depth, id) = encoder.openFrame(.unkeyed, key: key)
        return CompactUnkeyedEncoder(encoder: encoder, depth: depth, id: id)
    }

    mutating func superEncoder() -> any Encoder { encoder.unsupported("superEncoder") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder.unsupported("superEncoder") }
}

struct CompactUnkeyedEncoder: UnkeyedEncodingContainer {
    let encoder: CompactEncoder
    let depth: Int
    let id: Int
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { depth < encoder.openCount ? encoder.entryCount(depth) : 0 }

    private func begin() throws { try encoder.entry(depth: depth, id: id, key: nil) }

    mutating func encodeNil() throws {
        try begin()
        encoder.writeNil()
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try begin()
        try encoder.encodeValue(value, key: nil)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder.noting { try begin() }
        let (depth, id) = encoder.openFrame(.keyed)
        return KeyedEncodingContainer(CompactKeyedEncoder<NestedKey>(encoder: encoder, depth: depth, id: id))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.noting { try begin() }
        let (depth, id) = encoder.openFrame(.unkeyed)
        return CompactUnkeyedEncoder(encoder: encoder, depth: depth, id: id)
    }

    mutating func superEncoder() -> any Encoder { encoder.unsupported("superEncoder") }
}

extension CompactEncoder {
    /// Runs `body`, keeping its error for the end (for calls that cannot throw).
    func noting(_ body: () throws -> Void) {
        do { try body() } catch { failure = failure ?? error }
    }

    var openCount: Int { open.count }
    func entryCount(_ depth: Int) -> Int { Int(open[depth].count) }

    /// A call the compact coding does not take (no type saved in a row makes it):
    /// the encoding fails, naming it.
    func unsupported(_ call: String) -> any Encoder {
        failure =
            failure
            ?? EncodingError.invalidValue(
                call, .init(codingPath: codingPath, debugDescription: "\(call) is not supported by the compact coding"))
        return self
    }
}

struct CompactSingleEncoder: SingleValueEncodingContainer {
    let encoder: CompactEncoder
    let depth: Int
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func encodeNil() throws { encoder.writeNil() }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value, key: nil) }
}
