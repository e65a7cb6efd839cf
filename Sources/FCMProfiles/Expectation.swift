import FCMEngine

/// What an `expect` step asks for: an event by name with some of its fields.
public struct Expectation: Sendable {
    public var event: String
    public var side: Side?
    public var fields: [ExpectedField]

    /// The expectation as one line, e.g. `onSendError id=m-21 error=TooManyMessages`.
    public var summary: String {
        ([event] + (side.map { ["side=\($0.rawValue)"] } ?? []) + fields.map { "\($0.name)=\($0.value.text)" })
            .joined(separator: " ")
    }

    /// The expectation as a profile names it, the one label every door shows:
    /// `expect onSendError id=m-21`, or `expect_none …` when `negated`.
    public func label(negated: Bool) -> String {
        (negated ? "expect_none " : "expect ") + summary
    }

    /// The fields an event of the right name has otherwise, or lacks, each as
    /// `name=value (wanted …)`: what a failure says differed.
    public func differences(from candidate: Event) -> [String] {
        fields.compactMap { field in
            guard let actual = candidate[field.name] else {
                return "\(field.name) missing (wanted \(field.value.text))"
            }
            return field.value.matches(actual) ? nil : "\(field.name)=\(actual.text) (wanted \(field.value.text))"
        }
    }

    public func matches(_ candidate: Event) -> Bool {
        guard candidate.name == event, side.map({ $0 == candidate.side }) ?? true else { return false }
        return fields.allSatisfy { field in
            guard let actual = candidate[field.name] else { return false }
            return field.value.matches(actual)
        }
    }
}

/// One field an expectation names.
public struct ExpectedField: Sendable {
    public var name: String
    public var value: ExpectedValue
}

/// An expected field value: text matches a value of any type by its text (and a
/// list that contains it); a list matches a list exactly; a mapping matches a map
/// holding at least those pairs.
public enum ExpectedValue: Sendable {
    case scalar(String)
    case list([String])
    case map([KeyValue])

    var text: String {
        switch self {
        case .scalar(let s): s
        case .list(let items): "[" + items.joined(separator: ",") + "]"
        case .map(let pairs): "{" + pairs.map { "\($0.key):\($0.value)" }.joined(separator: ",") + "}"
        }
    }

    func matches(_ actual: FieldValue) -> Bool {
        switch (self, actual) {
        case (.scalar(let want), .list(let items)): items.contains(want)
        case (.scalar(let want), _): actual.text == want
        case (.list(let want), .list(let items)): want == items
        case (.map(let want), .map(let pairs)): want.allSatisfy { pairs.contains($0) }
        default: false
        }
    }
}
