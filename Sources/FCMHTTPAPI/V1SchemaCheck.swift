import FCMHTTPPort
import FCMJSON

/// A v1 body read against Google's schemas (`V1Schema`, generated from the discovery
/// document), all the way down: a name the schema does not have, in either spelling
/// (`collapse_key` or `collapseKey`), a value of the wrong JSON type, an enum value
/// the schema does not list, or a duration or timestamp in the wrong form is refused
/// with Google's words and a `google.rpc.BadRequest` field violation, never ignored.
/// Every violation in the body is reported, one line each. `null` stands for the
/// field's default, as in Google's JSON.
enum V1SchemaCheck {
    /// One thing the schema does not allow: where (the proto path of the value, or of
    /// the object holding an unknown name; none at the root) and what.
    typealias Violation = FieldViolation

    /// Refuses `object` if anything in it breaks `schema` (it sits at `path`), one of
    /// `schemas` (the v1 API's, unless another Google API's are given).
    static func validate(
        _ object: JSONObject, against schema: String, at path: String = "",
        in schemas: [String: [String: V1Field]] = V1Schema.fields
    ) throws {
        var violations: [Violation] = []
        check(object, against: schema, at: path, in: schemas, into: &violations)
        guard !violations.isEmpty else { return }
        throw V1Error.schema(violations)
    }

    static func check(
        _ object: JSONObject, against schema: String, at path: String,
        in schemas: [String: [String: V1Field]] = V1Schema.fields, into violations: inout [Violation]
    ) {
        guard let fields = schemas[schema] else { return }
        for member in object.members {
            guard let field = field(named: member.key, in: fields) else {
                let place = path.isEmpty ? "" : " at '\(path)'"
                violations.append(
                    Violation(
                        field: path.isEmpty ? nil : path,
                        description:
                            "Invalid JSON payload received. Unknown name \"\(member.key)\"\(place): Cannot find field.")
                )
                continue
            }
            check(member.value, field, at: Place(parent: path, key: member.key), in: schemas, into: &violations)
        }
    }

    /// Where a value sits: the key it has in an object at `parent`, and its index when
    /// it is an element of a list or a map there. Its path is spelled only when needed.
    struct Place {
        var parent: String
        var key: String
        var element: Element = .none

        enum Element {
            case none
            case item(Int)
            case mapValue(Int)
        }

        var name: String { V1SchemaCheck.protoName(key) }

        /// The object holding the field (a map's value: the map itself).
        var holder: String {
            guard case .mapValue = element else { return parent }
            return field
        }

        /// The field's own path, as `parent.name`.
        var field: String { parent.isEmpty ? name : "\(parent).\(name)" }

        var path: String {
            switch element {
            case .none: field
            case .item(let index): "\(field)[\(index)]"
            case .mapValue(let index): "\(field)[\(index)].value"
            }
        }
    }

    /// A member's field, by its lowerCamelCase name or its proto (snake_case) name.
    static func field(named name: String, in fields: [String: V1Field]) -> V1Field? {
        if let field = fields[name] { return field }
        let camel = lowerCamel(name)
        guard camel != name, protoName(camel) == name else { return nil }
        return fields[camel]
    }

    private static func check(
        _ value: JSONValue, _ field: V1Field, at place: Place, in schemas: [String: [String: V1Field]],
        into violations: inout [Violation]
    ) {
        if case .null = value { return }
        func invalid(_ kind: String, _ reason: String? = nil) {
            let path = place.path
            let shown = reason.map { "Field '\(place.name)', \($0)" } ?? Self.shown(value)
            violations.append(Violation(field: path, description: "Invalid value at '\(path)' (\(kind)), \(shown)"))
        }
        if case .array = value, field.kind != .array, field.kind != .any {
            let holder = place.holder
            let at = holder.isEmpty ? "" : " at '\(holder)'"
            violations.append(
                Violation(
                    field: holder.isEmpty ? nil : holder,
                    description:
                        "Invalid JSON payload received. Unknown name \"\(place.name)\"\(at): Proto field is not repeating, cannot start list."
                ))
            return
        }
        switch field.kind {
        case .any: return
        case .string:
            if field.values != nil {
                if field.enumValue(value) == nil { invalid("TYPE_ENUM") }
                return
            }
            guard case .string(let text) = value else { return invalid("TYPE_STRING") }
            switch field.format {
            case "google-duration":
                if let reason = ProtobufDuration.problem(text) {
                    invalid("type.googleapis.com/google.protobuf.Duration", reason)
                }
            case "google-datetime":
                if let reason = ProtobufTimestamp.problem(text) {
                    invalid("type.googleapis.com/google.protobuf.Timestamp", reason)
                }
            default: break
            }
        case .boolean:
            guard case .bool = value else { return invalid("TYPE_BOOL") }
        case .integer:
            guard Self.isInt32(value) else { return invalid("TYPE_INT32") }
        case .number:
            guard Self.isNumber(value) else { return invalid("TYPE_FLOAT") }
        case .array:
            guard case .array(let items) = value else { return invalid("list") }
            guard let element = field.element else { return }
            for (index, item) in items.enumerated() {
                var at = place
                at.element = .item(index)
                check(item, element, at: at, in: schemas, into: &violations)
            }
        case .map:
            guard case .object(let map) = value else { return invalid("map") }
            guard let element = field.element, element.kind != .any else { return }
            for (index, entry) in map.members.enumerated() {
                var at = place
                at.element = .mapValue(index)
                check(entry.value, element, at: at, in: schemas, into: &violations)
            }
        case .schema:
            guard case .object(let object) = value else {
                return invalid("type.googleapis.com/google.firebase.fcm.v1.\(field.type)")
            }
            check(object, against: field.type, at: place.path, in: schemas, into: &violations)
        }
    }

    /// A value as Google's error prints it: JSON, cut short when long.
    static func shown(_ value: JSONValue) -> String {
        let json = value.json
        return json.count > 100 ? String(json.prefix(99)) + "…" : json
    }

    static func isInt32(_ value: JSONValue) -> Bool {
        switch value {
        case .number(let text), .string(let text): Int32(text) != nil
        default: false
        }
    }

    static func isNumber(_ value: JSONValue) -> Bool {
        switch value {
        case .number: true
        case .string(let text): Double(text) != nil
        default: false
        }
    }

    /// The member named `snake` or `camel` (Google's JSON takes both spellings).
    static func member(_ object: JSONObject, _ snake: String, _ camel: String) -> JSONValue? {
        object[snake] ?? object[camel]
    }

    static func lowerCamel(_ name: String) -> String {
        let parts = name.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count > 1 else { return name }
        return String(parts[0]) + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// A name as the proto has it (snake_case), as Google prints paths.
    static func protoName(_ name: String) -> String {
        var proto = ""
        for character in name {
            if character.isUppercase {
                proto += "_" + character.lowercased()
            } else {
                proto.append(character)
            }
        }
        return proto
    }
}
