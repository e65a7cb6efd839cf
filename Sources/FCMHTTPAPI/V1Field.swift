import FCMJSON

/// One field of a v1 schema as Google's discovery document gives it: its JSON type
/// (`string`, `boolean`, `integer`, `number`, `object`, `array`, `any`) or the name of
/// the schema it holds; its format (`int32`, `float`, `google-duration`,
/// `google-datetime`); the enum values it takes; and what each element of an array,
/// or each value of a map (`object`), holds.
final class V1Field: Sendable {
    let type: String
    let format: String?
    let values: [String]?
    let element: V1Field?
    /// `type`, read once.
    let kind: Kind

    enum Kind {
        case string, boolean, integer, number, array, map, any, schema
    }

    init(_ type: String, format: String? = nil, values: [String]? = nil, element: V1Field? = nil) {
        self.type = type
        kind =
            switch type {
            case "string": .string
            case "boolean": .boolean
            case "integer": .integer
            case "number": .number
            case "array": .array
            case "object": .map
            case "any": .any
            default: .schema
            }
        self.format = format
        self.values = values
        self.element = element
    }

    /// The enum value `value` names, canonical (upper case): Google's JSON takes an
    /// enum by its name in any case, or by its number. Nil if it names none.
    func enumValue(_ value: JSONValue) -> String? {
        guard let values else { return nil }
        switch value {
        case .string(let text):
            let upper = text.uppercased()
            if values.contains(upper) { return upper }
            if let index = Int(text), values.indices.contains(index) { return values[index] }
            return nil
        case .number:
            guard let index = value.int64, let at = Int(exactly: index), values.indices.contains(at) else {
                return nil
            }
            return values[at]
        default: return nil
        }
    }
}

extension V1Schema {
    /// `AndroidConfig.priority`, whose values the reader turns into the device's.
    static let androidPriority = fields["AndroidConfig"]!["priority"]!
}
