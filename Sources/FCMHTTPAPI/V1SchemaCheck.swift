import FCMJSON

/// A v1 body checked against Google's schemas (`V1Schema`, generated from the
/// discovery document): a name the schema does not have, in either spelling
/// (`collapse_key` or `collapseKey`), or a value of the wrong JSON type is refused
/// with Google's words, never ignored.
enum V1SchemaCheck {
    /// Refuses what `schema` does not allow in `object`, found at `path`.
    static func check(_ object: JSONObject, against schema: String, at path: String) throws {
        guard let fields = V1Schema.fields[schema] else { return }
        for member in object.members {
            guard let type = fields[lowerCamel(member.key)] else {
                let place = path.isEmpty ? "" : " at '\(path)'"
                throw V1Error.invalidArgument(
                    "Invalid JSON payload received. Unknown name \"\(member.key)\"\(place): Cannot find field.")
            }
            guard !fits(member.value, type) else { continue }
            let field = path.isEmpty ? member.key : "\(path).\(member.key)"
            throw V1Error.invalidArgument("Invalid value at '\(field)' (\(protoType(type))), \(member.value.text)")
        }
    }

    /// The member named `snake` or its lowerCamelCase spelling (Google's JSON takes both).
    static func member(_ object: JSONObject, _ snake: String) -> JSONValue? {
        object[snake] ?? object[lowerCamel(snake)]
    }

    static func lowerCamel(_ name: String) -> String {
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return name }
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static func fits(_ value: JSONValue, _ type: String) -> Bool {
        switch (type, value) {
        case ("string", .string), ("boolean", .bool), ("array", .array): true
        // 64-bit integers travel as strings in Google's JSON; smaller ones as numbers.
        case ("integer", .number), ("integer", .string): true
        case ("string", _), ("boolean", _), ("array", _), ("integer", _): false
        default: value.object != nil  // `object` (a map) or a schema of its own
        }
    }

    static func protoType(_ type: String) -> String {
        switch type {
        case "string": "TYPE_STRING"
        case "boolean": "TYPE_BOOL"
        case "integer": "TYPE_INT32"
        case "array", "object": type
        default: "type.googleapis.com/google.firebase.fcm.v1.\(type)"
        }
    }
}
