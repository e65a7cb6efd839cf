import FCMEngine
import FCMJSON
import Yams

/// A YAML node with the file it came from, offering typed reads that fail with
/// `file:line:column: what is wrong`.
struct YAMLNode {
    let node: Node
    let file: String
    /// Dotted path for messages, e.g. `timeline[3].send.ttl`.
    let path: String

    var location: SourceLocation {
        let mark = node.mark
        return SourceLocation(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1)
    }

    func error(_ message: String) -> ProfileError {
        ProfileError(location, path.isEmpty ? message : "\(path): \(message)")
    }

    var isNull: Bool {
        if case .scalar(let scalar) = node { return scalar.tagName == .null && scalar.style == .plain }
        return false
    }

    /// Any scalar as text, whatever YAML resolved it to.
    func scalarText() throws(ProfileError) -> String {
        guard case .scalar(let scalar) = node else { throw error("expected a single value, found \(kind)") }
        return scalar.string
    }

    /// The node as JSON: a mapping an object, a sequence an array, a scalar by what
    /// YAML resolved it to.
    func jsonValue() throws(ProfileError) -> JSONValue {
        switch node {
        case .scalar(let scalar):
            switch scalar.tagName {
            case .null where scalar.style == .plain: return .null
            case .bool: return .bool(node.bool ?? false)
            case .int, .float: return .number(scalar.string)
            default: return .string(scalar.string)
            }
        case .sequence:
            return .array(try sequence().map { item throws(ProfileError) in try item.jsonValue() })
        default:
            var members: [(key: String, value: JSONValue)] = []
            for entry in try mapping(allowed: []).entries { members.append((entry.name, try entry.value.jsonValue())) }
            return .object(JSONObject(members))
        }
    }

    func string() throws(ProfileError) -> String {
        guard case .scalar(let scalar) = node, scalar.tagName != .null else {
            throw error("expected text, found \(kind)")
        }
        return scalar.string
    }

    func bool() throws(ProfileError) -> Bool {
        guard case .scalar = node, let value = node.bool, node.tagName == .bool else {
            throw error("expected true or false, found \(describe)")
        }
        return value
    }

    func int(in range: ClosedRange<Int64>? = nil) throws(ProfileError) -> Int64 {
        guard case .scalar = node, node.tagName == .int, let value = node.int else {
            throw error("expected a whole number, found \(describe)")
        }
        if let range, !range.contains(Int64(value)) {
            throw error("\(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return Int64(value)
    }

    /// A duration such as `250ms` or `2m`, in milliseconds.
    func duration() throws(ProfileError) -> Int64 {
        let text = try scalarText()
        guard let value = DurationText.parse(text) else {
            throw error("\"\(text)\" is not a duration; write it like 250ms, 3s, 2m, 4h or 28d")
        }
        return value
    }

    /// Seconds given as a whole number or as a duration (`60` or `1m`).
    func seconds() throws(ProfileError) -> Int64 {
        if case .scalar = node, node.tagName == .int, let value = node.int { return Int64(value) }
        let text = try scalarText()
        guard let millis = DurationText.parse(text) else {
            throw error("\"\(text)\" is not a number of seconds or a duration like 60s")
        }
        return millis / 1_000
    }

    /// One of a type's values, by name; a name it does not have is refused with the
    /// closest and the choices (`listing` the ones that fit here, when given).
    func oneOf<T: RawRepresentable & CaseIterable>(_ type: T.Type, listing: [T]? = nil) throws(ProfileError) -> T
    where T.RawValue == String {
        let text = try scalarText()
        guard let value = T(rawValue: text) else {
            let choices = (listing ?? Array(T.allCases)).map(\.rawValue)
            throw error(
                "expected one of \(choices.joined(separator: ", ")); found \"\(text)\""
                    + CloseNames.suggestion(among: choices, to: text))
        }
        return value
    }

    func sequence() throws(ProfileError) -> [YAMLNode] {
        guard case .sequence(let items) = node else { throw error("expected a list, found \(kind)") }
        return items.enumerated().map { YAMLNode(node: $1, file: file, path: "\(path)[\($0)]") }
    }

    func mapping(allowed: [String]) throws(ProfileError) -> YAMLMapping {
        var mistakes = ProfileMistakes()
        let map = try mapping(allowed: allowed, noting: &mistakes)
        try mistakes.throwIfAny()
        return map
    }

    /// The mapping without its unknown keys, each noted as a mistake: the known ones
    /// are still read, so every unknown key of a mapping is named in one run.
    func mapping(allowed: [String], noting mistakes: inout ProfileMistakes) throws(ProfileError) -> YAMLMapping {
        guard case .mapping(let pairs) = node else { throw error("expected a mapping of keys, found \(kind)") }
        var entries: [(String, YAMLNode, YAMLNode)] = []
        for (key, value) in pairs {
            let keyNode = YAMLNode(node: key, file: file, path: path)
            let name = try keyNode.scalarText()
            if !allowed.isEmpty, !allowed.contains(name) {
                // A key another step spells otherwise (`ttl` on `send`, `time_to_live` on `push`).
                let other = Self.otherSpellings[name].map { [$0] }?.filter(allowed.contains) ?? []
                let close = other + CloseNames.among(allowed, to: name).filter { !other.contains($0) }
                mistakes.add(
                    keyNode.error(
                        "unknown key \"\(name)\"" + CloseNames.suggestion(of: close)
                            + "; expected one of: \(allowed.joined(separator: ", "))"))
                continue
            }
            entries.append(
                (name, keyNode, YAMLNode(node: value, file: file, path: path.isEmpty ? name : "\(path).\(name)")))
        }
        return YAMLMapping(owner: self, entries: entries)
    }

    /// Keys one step spells one way and another step the other way.
    static let otherSpellings = ["ttl": "time_to_live", "time_to_live": "ttl"]

    var kind: String {
        switch node {
        case .scalar(let scalar): scalar.tagName == .null ? "nothing (null)" : "\"\(scalar.string)\""
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }

    var describe: String { kind }
}

/// The keys of one YAML mapping, in file order.
struct YAMLMapping {
    let owner: YAMLNode
    let entries: [(name: String, key: YAMLNode, value: YAMLNode)]

    subscript(name: String) -> YAMLNode? {
        entries.first { $0.name == name }?.value
    }

    func required(_ name: String) throws(ProfileError) -> YAMLNode {
        guard let value = self[name] else { throw owner.error("missing required key \"\(name)\"") }
        return value
    }

    var names: [String] { entries.map(\.name) }
}

extension Node {
    /// The resolved tag (`str`, `int`, `bool`, `null`, …): quoted scalars are text,
    /// plain ones resolved by YAML's core rules.
    var tagName: Tag.Name {
        if case .scalar(let scalar) = self { return scalar.tagName }
        return Resolver.default.resolveTag(of: self)
    }
}

extension Node.Scalar {
    var tagName: Tag.Name {
        let explicit = Tag.Name(rawValue: tag.description)
        if explicit != .implicit && explicit != .nonSpecific { return explicit }
        if style != .plain { return .str }
        return Resolver.default.resolveTag(of: Node.scalar(self))
    }
}
