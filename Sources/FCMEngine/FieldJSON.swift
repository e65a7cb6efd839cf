import FCMJSON

/// Event fields written by the one JSON writer (`JSONText`): the serve log and the
/// control API's events are written this way, without a document in between.
extension JSONText {
    public static func append(_ value: FieldValue, to out: inout String) { write(value, to: &out) }
    public static func append(_ value: FieldValue, to out: inout [UInt8]) { write(value, to: &out) }

    @inlinable
    public static func write<Out: JSONOutput>(_ value: FieldValue, to out: inout Out) {
        switch value {
        case .string(let text): writeString(text, to: &out)
        case .int(let number): out.add(number)
        case .bool(let flag): out.add(flag ? "true" : "false")
        case .list(let items):
            out.add(ascii: UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.add(ascii: UInt8(ascii: ",")) }
                writeString(item, to: &out)
            }
            out.add(ascii: UInt8(ascii: "]"))
        case .map(let pairs):
            out.add(ascii: UInt8(ascii: "{"))
            for (index, pair) in pairs.enumerated() {
                if index > 0 { out.add(ascii: UInt8(ascii: ",")) }
                writeString(pair.key, to: &out)
                out.add(ascii: UInt8(ascii: ":"))
                writeString(pair.value, to: &out)
            }
            out.add(ascii: UInt8(ascii: "}"))
        }
    }
}

extension JSONValue {
    /// An object of string values, in order.
    public static func strings(_ pairs: [KeyValue]) -> JSONValue {
        .object(JSONObject(pairs.map { (key: $0.key, value: .string($0.value)) }))
    }
}
