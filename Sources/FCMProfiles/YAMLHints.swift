import Yams

/// What the YAML reader's own words usually mean in a profile, in plain words beside
/// them: most are a line indented one way where the lines around it say another.
enum YAMLHints {
    static func hint(_ problem: String, at mark: Mark, in text: String, format: String) -> String? {
        if character(at: mark, in: text) == "\t" || problem.contains("tab") {
            return "a tab: \(format) indents with spaces only"
        }
        switch problem {
        case let p where p.contains("expected '-' indicator"):
            return "this line is indented like the items of the list above but does not start with \"- \"; "
                + "a key of the item above goes under that item's first key"
        case let p where p.contains("expected key"):
            return "this line is indented differently from the keys around it: the keys of one mapping start "
                + "in the same column"
        case let p where p.contains("mapping values are not allowed"):
            return "a \"key: value\" where a plain value was expected: the line above holds a value already, "
                + "or this line is indented too far; quote a value that contains \": \""
        case let p where p.contains("expected ',' or '}'"):
            return "a { … } mapping not closed on its line, or a comma missing between its entries"
        case let p where p.contains("expected ',' or ']'"):
            return "a [ … ] list not closed on its line, or a comma missing between its items"
        case let p where p.contains("expected ':'"):
            return "a key without \": \" after it, or a value broken over two lines (quote it)"
        case let p where p.contains("cannot start any token"):
            return "a character that cannot start a value here (@ or `): quote the value"
        case let p where p.contains("end of stream"), let p where p.contains("unexpected end"):
            return "the file ends inside a quoted value or an open { or [: close it"
        default:
            return nil
        }
    }

    /// The character at a mark (line and column from 1), if the text has one there.
    static func character(at mark: Mark, in text: String) -> Character? {
        var line = 1
        var column = 1
        for character in text {
            if line == mark.line, column == mark.column { return character }
            if character == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            if line > mark.line { return nil }
        }
        return nil
    }
}
