/// Which side of the wire an event happens on.
public enum Side: String, Sendable {
    case device, server
    /// A profile's expectation, judged where it was reached.
    case check
}

/// One key and string value of a data or notification payload, kept in order.
public struct KeyValue: Sendable, Equatable, Hashable, Codable {
    public var key: String
    public var value: String

    public init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}

/// The value of one event field.
public enum FieldValue: Sendable, Equatable {
    case string(String)
    case int(Int64)
    case bool(Bool)
    case list([String])
    case map([KeyValue])

    /// The value as one line of text, as the human transcript shows it.
    public var text: String {
        switch self {
        case .string(let s): s
        case .int(let n): String(n)
        case .bool(let b): b ? "true" : "false"
        case .list(let items): items.joined(separator: ",")
        case .map(let pairs): "{" + pairs.map { "\($0.key):\($0.value)" }.joined(separator: ",") + "}"
        }
    }
}

/// A named field of an event.
public struct Field: Sendable, Equatable {
    public var name: String
    public var value: FieldValue

    public init(_ name: String, _ value: FieldValue) {
        self.name = name
        self.value = value
    }
}

/// Something that happened, on the device or on the connection server. The one
/// vocabulary of the transcript, the `serve` log and the TUI's event pane.
public struct Event: Sendable, Equatable {
    public var at: Millis
    public var side: Side
    public var kind: EventName
    public var fields: [Field]

    public init(at: Millis, side: Side, kind: EventName, fields: [Field] = []) {
        self.at = at
        self.side = side
        self.kind = kind
        self.fields = fields
    }

    /// The event's name as logs and profiles spell it.
    public var name: String { kind.rawValue }

    /// The value of the field with this name, if present.
    public subscript(field: String) -> FieldValue? {
        fields.first { $0.name == field }?.value
    }

    /// The field as a string, when it is one.
    public func string(_ field: String) -> String? {
        if case .string(let s)? = self[field] { return s }
        return nil
    }

    /// The field as a number, when it is one.
    public func int(_ field: String) -> Int64? {
        if case .int(let n)? = self[field] { return n }
        return nil
    }

    /// Whether this event reports a failure (it carries an `error` field).
    public var isError: Bool { self["error"] != nil }
}
