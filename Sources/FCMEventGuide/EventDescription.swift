import FCMEngine

/// What one kind of event is, said once (`EventName.described`): the fields it may
/// carry (what an `expect` may name), what it means (docs/events.md lists it in these
/// words) and the rule behind it (the TUI's explanation, with its source).
public struct EventDescription: Sendable {
    /// The fields, of any kind, that hold an engine time in milliseconds (a request's
    /// start, a check's step): a person reads them as `+HH:MM:SS.mmm`, as `at`.
    public static let timeFields: Set<String> = ["started", "step_at"]

    /// The fields an event of this kind may carry, besides `device` (which every event
    /// of a fleet's phone carries first).
    public let fields: [String]
    /// What happened, in a line: the guide's entry for this kind.
    public let meaning: String
    /// The rule behind it.
    public let rule: EventRule

    init(fields: [String], meaning: String, rule: RuleNote) {
        self.init(fields: fields, meaning: meaning, rule: .always(rule))
    }

    init(fields: [String], meaning: String, rule: EventRule) {
        self.fields = fields
        self.meaning = meaning
        self.rule = rule
    }
}

/// Why an event happened: the rule behind it in one sentence, and where the rule
/// comes from. The engine says it, with the event, so every shell explains alike.
public struct RuleNote: Sendable, Equatable {
    public var rule: String
    /// The section of docs/RULES.md and of the protocol reference the rule rests on.
    public var source: String

    init(_ rule: String, _ source: String) {
        self.rule = rule
        self.source = source
    }
}

/// The rule behind a kind of event: one for every event of the kind, or one picked by
/// what the event says.
public enum EventRule: Sendable {
    case always(RuleNote)
    /// By the value of one field (`reason`, `error`): the note for that value, or
    /// `otherwise`.
    case byValue(of: String, [String: RuleNote], otherwise: RuleNote)
    /// Whether the event carries one field (`subscribers`: a topic's message).
    case byPresence(of: String, present: RuleNote, absent: RuleNote)

    func note(for event: Event) -> RuleNote {
        switch self {
        case .always(let note): note
        case .byValue(let field, let notes, let otherwise): event.string(field).flatMap { notes[$0] } ?? otherwise
        case .byPresence(let field, let present, let absent): event[field] == nil ? absent : present
        }
    }
}

extension Event {
    /// The rule that produced this event.
    public var ruleNote: RuleNote { kind.described.rule.note(for: self) }
}

extension EventName {
    /// The fields an event of this kind may carry, besides `device`.
    public var fields: [String] { described.fields }

    /// Whether an event of this kind may carry a field of this name.
    public func carries(_ name: String) -> Bool { name == "device" || fields.contains(name) }

    /// What to say of a name no event kind has (an `expect`, a `type=` filter), with
    /// the closest kinds: a longer name misspelt twice or more still starts as it should.
    public static func noSuchEvent(_ name: String) -> String {
        let names = allCases.map(\.rawValue)
        var close = CloseNames.among(names, to: name)
        if close.isEmpty { close = names.filter { $0.lowercased().hasPrefix(String(name.lowercased().prefix(4))) } }
        return "no event is called \"\(name)\"" + CloseNames.suggestion(of: close) + " (docs/events.md)"
    }

    /// What to say of an expectation that names a field this kind never carries.
    public func noSuchField(_ name: String) -> String {
        return "\(rawValue) has no field \(name)" + CloseNames.suggestion(among: fields, to: name)
            + "; it has " + (fields.isEmpty ? "none but device" : fields.joined(separator: ", "))
    }

    /// docs/events.md's list of every event, made from the descriptions: one line per
    /// description, its kinds in the vocabulary's order.
    public static var guideList: String {
        var lines: [String] = []
        var listed: Set<EventName> = []
        for kind in allCases where !listed.contains(kind) {
            let described = kind.described
            // Kinds described together (a callback's names on each platform) share a line.
            let together = allCases.filter { other in
                !listed.contains(other) && other.described.meaning == described.meaning
                    && other.described.fields == described.fields
            }
            listed.formUnion(together)
            let names = together.map { "`\($0.rawValue)`" }.joined(separator: ", ")
            let fields =
                described.fields.isEmpty ? "no fields" : described.fields.map { "`\($0)`" }.joined(separator: " ")
            lines.append("- \(names) (\(fields)): \(described.meaning)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
