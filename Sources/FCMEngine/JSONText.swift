/// The one JSON writer: compact text with keys in order, for documents
/// (`JSONValue`) and for event fields (`FieldValue`).
public enum JSONText {
    public static func append(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): appendString(text, to: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                append(item, to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (index, member) in object.members.enumerated() {
                if index > 0 { out += "," }
                appendString(member.key, to: &out)
                out += ":"
                append(member.value, to: &out)
            }
            out += "}"
        }
    }

    public static func append(_ value: FieldValue, to out: inout String) {
        switch value {
        case .string(let s): appendString(s, to: &out)
        case .int(let n): out += String(n)
        case .bool(let b): out += b ? "true" : "false"
        case .list(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                appendString(item, to: &out)
            }
            out += "]"
        case .map(let pairs):
            out += "{"
            for (i, pair) in pairs.enumerated() {
                if i > 0 { out += "," }
                appendString(pair.key, to: &out)
                out += ":"
                appendString(pair.value, to: &out)
            }
            out += "}"
        }
    }

    /// Whether any byte needs an escape; scans the contiguous UTF-8 when it can.
    static func needsEscaping(_ text: String) -> Bool {
        let special = { (byte: UInt8) in byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 }
        if let found = text.utf8.withContiguousStorageIfAvailable({ $0.contains(where: special) }) { return found }
        return text.utf8.contains(where: special)
    }

    public static func appendString(_ text: String, to out: inout String) {
        out += "\""
        // Most text needs no escaping: copy it whole.
        if !needsEscaping(text) {
            out += text
            out += "\""
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
