/// A parsed JSON value. Numbers keep their text, so integers stay exact and a
/// value can be written back as it came.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var object: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// A whole number that fits 64 bits (`5`, `-3`, `1e3` is not one).
    public var int64: Int64? {
        if case .number(let text) = self { return Int64(text) }
        return nil
    }

    /// The value as text: strings as they are, anything else as compact JSON.
    public var text: String {
        if case .string(let text) = self { return text }
        return json
    }

    /// Compact JSON (written by `JSONText`, the one JSON writer, as UTF-8: appending
    /// bytes costs a fraction of appending to a string piece by piece).
    public var json: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128)
        JSONText.append(self, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func int(_ value: Int64) -> JSONValue { .number(String(value)) }
    public static func int(_ value: Int) -> JSONValue { .number(String(value)) }

    /// An object with these members, in this order.
    public static func members(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(JSONObject(members.map { (key: $0.key, value: $0.value) }))
    }

    /// An array of strings.
    public static func strings(_ items: [String]) -> JSONValue { .array(items.map { .string($0) }) }
}

/// A JSON object: members in document order; a repeated name keeps its last value
/// when looked up, as most parsers do.
public struct JSONObject: Equatable, Sendable {
    public var members: [(key: String, value: JSONValue)]

    public init(_ members: [(key: String, value: JSONValue)] = []) {
        self.members = members
    }

    public subscript(key: String) -> JSONValue? {
        members.last { $0.key == key }?.value
    }

    public var keys: [String] { members.map(\.key) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.count == rhs.members.count
            && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
}
