import FCMEngine

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
        var out = ""
        write(to: &out)
        return out
    }

    /// Compact JSON.
    public func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): JSONText.appendString(text, to: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (index, member) in object.members.enumerated() {
                if index > 0 { out += "," }
                JSONText.appendString(member.key, to: &out)
                out += ":"
                member.value.write(to: &out)
            }
            out += "}"
        }
    }
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
