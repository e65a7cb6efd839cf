/// The one JSON writer: compact text with keys in order, for documents
/// (`JSONValue`) and, through the engine's extension, for event fields. It writes into a `String`, or
/// into UTF-8 bytes where the text goes to a socket or a file (a busy server writes
/// thousands of lines a second, and appending bytes costs a fraction of appending
/// to a string piece by piece).
public enum JSONText {
    public static func append(_ value: JSONValue, to out: inout String) { write(value, to: &out) }
    public static func append(_ value: JSONValue, to out: inout [UInt8]) { write(value, to: &out) }
    public static func appendString(_ text: String, to out: inout String) { writeString(text, to: &out) }
    public static func appendString(_ text: String, to out: inout [UInt8]) { writeString(text, to: &out) }

    /// A whole number, in decimal.
    public static func appendInt(_ number: Int64, to out: inout [UInt8]) { out.add(number) }

    @inlinable
    public static func write<Out: JSONOutput>(_ value: JSONValue, to out: inout Out) {
        switch value {
        case .null: out.add("null")
        case .bool(let flag): out.add(flag ? "true" : "false")
        case .number(let text): out.add(text)
        case .string(let text): writeString(text, to: &out)
        case .array(let items):
            out.add(ascii: UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.add(ascii: UInt8(ascii: ",")) }
                write(item, to: &out)
            }
            out.add(ascii: UInt8(ascii: "]"))
        case .object(let object):
            out.add(ascii: UInt8(ascii: "{"))
            for (index, member) in object.members.enumerated() {
                if index > 0 { out.add(ascii: UInt8(ascii: ",")) }
                writeString(member.key, to: &out)
                out.add(ascii: UInt8(ascii: ":"))
                write(member.value, to: &out)
            }
            out.add(ascii: UInt8(ascii: "}"))
        }
    }

    /// Whether any byte needs an escape.
    @inlinable
    public static func needsEscaping(_ text: String) -> Bool {
        text.containsUTF8 { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }
    }

    @inlinable
    public static func writeString<Out: JSONOutput>(_ text: String, to out: inout Out) {
        out.add(ascii: UInt8(ascii: "\""))
        // Most text needs no escaping: copy it whole.
        if !needsEscaping(text) {
            out.add(text)
            out.add(ascii: UInt8(ascii: "\""))
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out.add("\\\"")
            case "\\": out.add("\\\\")
            case "\n": out.add("\\n")
            case "\r": out.add("\\r")
            case "\t": out.add("\\t")
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out.add("\\u" + String(repeating: "0", count: 4 - hex.count) + hex)
            default: out.add(scalar)
            }
        }
        out.add(ascii: UInt8(ascii: "\""))
    }
}

/// Where `JSONText` writes: a string, or UTF-8 bytes.
public protocol JSONOutput {
    mutating func add(_ text: String)
    mutating func add(ascii byte: UInt8)
    mutating func add(_ scalar: Unicode.Scalar)
    mutating func add(_ number: Int64)
}

extension String: JSONOutput {
    @inlinable public mutating func add(_ text: String) { self += text }
    @inlinable public mutating func add(ascii byte: UInt8) { unicodeScalars.append(Unicode.Scalar(byte)) }
    @inlinable public mutating func add(_ scalar: Unicode.Scalar) { unicodeScalars.append(scalar) }
    @inlinable public mutating func add(_ number: Int64) { self += String(number) }
}

extension Array: JSONOutput where Element == UInt8 {
    @inlinable public mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }

    @inlinable public mutating func add(ascii byte: UInt8) { append(byte) }
    @inlinable public mutating func add(_ scalar: Unicode.Scalar) { append(contentsOf: UTF8.encode(scalar)!) }

    /// Digits made on the stack, least significant first, and added in one go.
    @inlinable public mutating func add(_ number: Int64) {
        if number < 0 { append(UInt8(ascii: "-")) }
        var magnitude = number.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}

extension String {
    /// Whether any UTF-8 byte matches, scanning the contiguous storage when there is one
    /// (the escapes of every line and stanza written ask this first).
    @inlinable
    public func containsUTF8(where matches: (UInt8) -> Bool) -> Bool {
        if let found = utf8.withContiguousStorageIfAvailable({ $0.contains(where: matches) }) { return found }
        return utf8.contains(where: matches)
    }
}
