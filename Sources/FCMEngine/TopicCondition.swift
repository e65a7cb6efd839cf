/// A topic condition as app servers write it: `'a' in topics && ('b' in topics ||
/// 'c' in topics)`, with `!` for not. At most five topics; keywords in any case.
public indirect enum TopicCondition: Sendable, Equatable, Codable {
    case topic(String)
    case not(TopicCondition)
    case and(TopicCondition, TopicCondition)
    case or(TopicCondition, TopicCondition)

    /// The most topics one condition may name.
    public static let maxTopics = 5

    /// Whether an app instance subscribed to `topics` matches.
    public func matches(_ topics: Set<String>) -> Bool {
        switch self {
        case .topic(let name): topics.contains(name)
        case .not(let inner): !inner.matches(topics)
        case .and(let a, let b): a.matches(topics) && b.matches(topics)
        case .or(let a, let b): a.matches(topics) || b.matches(topics)
        }
    }

    /// Every topic named, in the order written.
    public var topics: [String] {
        switch self {
        case .topic(let name): [name]
        case .not(let inner): inner.topics
        case .and(let a, let b), .or(let a, let b): a.topics + b.topics
        }
    }

    /// Reads a condition; a mistake is named with its column (counted from 1).
    public static func parse(_ text: String) -> Result<TopicCondition, TopicConditionError> {
        var parser = ConditionParser(text: Array(text))
        do throws(TopicConditionError) {
            let condition = try parser.parseOr()
            parser.skipSpaces()
            if parser.position < parser.text.count {
                throw parser.error("expected && or || or the end, found \(parser.found)")
            }
            let count = condition.topics.count
            if count > maxTopics {
                throw TopicConditionError(
                    column: 1, reason: "the condition names \(count) topics; at most \(maxTopics) are allowed")
            }
            return .success(condition)
        } catch {
            return .failure(error)
        }
    }
}

/// Why a condition could not be read, and where.
public struct TopicConditionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var column: Int
    public var reason: String

    public var description: String { "condition, column \(column): \(reason)" }
}

/// A recursive-descent reader: or := and ('||' and)*; and := unary ('&&' unary)*;
/// unary := '!' unary | '(' or ')' | quoted-topic 'in' 'topics'.
private struct ConditionParser {
    let text: [Character]
    var position = 0

    var found: String {
        position < text.count ? "\"\(String(text[position...].prefix(12)))\"" : "the end"
    }

    func error(_ reason: String) -> TopicConditionError {
        TopicConditionError(column: position + 1, reason: reason)
    }

    mutating func skipSpaces() {
        while position < text.count, text[position].isWhitespace { position += 1 }
    }

    mutating func take(_ word: String) -> Bool {
        skipSpaces()
        let letters = Array(word)
        guard position + letters.count <= text.count else { return false }
        for (offset, letter) in letters.enumerated()
        where text[position + offset].lowercased() != letter.lowercased() {
            return false
        }
        position += letters.count
        return true
    }

    mutating func parseOr() throws(TopicConditionError) -> TopicCondition {
        var left = try parseAnd()
        while take("||") { left = .or(left, try parseAnd()) }
        return left
    }

    mutating func parseAnd() throws(TopicConditionError) -> TopicCondition {
        var left = try parseUnary()
        while take("&&") { left = .and(left, try parseUnary()) }
        return left
    }

    mutating func parseUnary() throws(TopicConditionError) -> TopicCondition {
        if take("!") { return .not(try parseUnary()) }
        if take("(") {
            let inner = try parseOr()
            guard take(")") else { throw error("expected ) to close the parenthesis, found \(found)") }
            return inner
        }
        skipSpaces()
        guard position < text.count, text[position] == "'" || text[position] == "\"" else {
            throw error("expected a quoted topic such as 'news', found \(found)")
        }
        let quote = text[position]
        let start = position
        position += 1
        guard let close = text[position...].firstIndex(of: quote) else {
            position = start
            throw error("the quote opened here is never closed")
        }
        let name = String(text[position..<close])
        if let problem = TopicName.problem(name) {
            position = start
            throw error(problem)
        }
        position = close + 1
        guard take("in") else { throw error("expected in topics after '\(name)', found \(found)") }
        guard take("topics") else { throw error("expected topics after in, found \(found)") }
        return .topic(name)
    }
}

/// Topic names: `[a-zA-Z0-9-_.~%]{1,900}`, written with or without `/topics/`.
public enum TopicName {
    public static let prefix = "/topics/"
    public static let maxLength = 900

    /// The name without its `/topics/` prefix.
    public static func bare(_ text: String) -> String {
        isTopicAddress(text) ? String(decoding: text.utf8.dropFirst(prefix.utf8.count), as: UTF8.self) : text
    }

    /// Whether `to` names a topic (`/topics/NAME`). Its bytes are compared, as FCM
    /// reads an address: asked of every message, and `hasPrefix` compares characters.
    public static func isTopicAddress(_ to: String) -> Bool {
        // A token never begins with a slash: most addresses are told by one byte.
        to.utf8.first == UInt8(ascii: "/") && to.utf8.starts(with: prefix.utf8)
    }

    /// Why `name` (without prefix) is not a topic name, or nil when it is one.
    public static func problem(_ name: String) -> String? {
        if name.isEmpty { return "a topic name is empty" }
        if name.count > maxLength { return "a topic name is \(name.count) characters; at most \(maxLength)" }
        if let bad = name.unicodeScalars.first(where: { !allowed($0) }) {
            return "topic \"\(name)\" has \"\(bad)\"; names use only letters, digits and - _ . ~ %"
        }
        return nil
    }

    static func allowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "~", "%": true
        default: false
        }
    }
}
