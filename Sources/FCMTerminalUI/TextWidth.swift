/// How many terminal columns text takes: 2 for wide East Asian characters and
/// emoji, 0 for combining marks, 1 otherwise. Enough for layout without libc.
public enum TextWidth {
    public static func columns(of character: Character) -> Int {
        if let ascii = character.asciiValue { return ascii >= 0x20 && ascii < 0x7F ? 1 : 0 }
        guard let first = character.unicodeScalars.first else { return 0 }
        if character.unicodeScalars.count > 1, character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) {
            return 2
        }
        return columns(of: first)
    }

    public static func columns(of scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v == 0 { return 0 }
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if isWide(v) { return 2 }
        return 1
    }

    static func isWide(_ v: UInt32) -> Bool {
        (0x1100...0x115F).contains(v) || (0x2E80...0x303E).contains(v) || (0x3041...0x33FF).contains(v)
            || (0x3400...0x4DBF).contains(v) || (0x4E00...0x9FFF).contains(v) || (0xA000...0xA4CF).contains(v)
            || (0xAC00...0xD7A3).contains(v) || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v)
            || (0xFF00...0xFF60).contains(v) || (0xFFE0...0xFFE6).contains(v) || (0x1F300...0x1F64F).contains(v)
            || (0x1F900...0x1F9FF).contains(v) || (0x1F680...0x1F6FF).contains(v) || (0x20000...0x3FFFD).contains(v)
    }

    public static func columns(of text: String) -> Int {
        if isPrintableASCII(text) { return text.utf8.count }
        return text.reduce(0) { $0 + columns(of: $1) }
    }

    /// Text of printable ASCII only: one column per byte, no grapheme work needed.
    public static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// The longest prefix of `text` that fits in `width` columns, with `…` when cut.
    public static func fit(_ text: String, width: Int) -> String {
        guard width > 0 else { return "" }
        if isPrintableASCII(text) {
            return text.utf8.count <= width ? text : String(text.utf8.prefix(width - 1))! + "…"
        }
        if columns(of: text) <= width { return text }
        var out = ""
        var used = 0
        for character in text {
            let w = columns(of: character)
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }

    /// `text` in lines of at most `width` columns, broken between words where it can
    /// be; past `maxLines` the last line ends in `…`.
    public static func wrap(_ text: String, width: Int, maxLines: Int) -> [String] {
        guard width > 0, maxLines > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let candidate = line.isEmpty ? String(word) : line + " " + word
            if columns(of: candidate) <= width {
                line = candidate
                continue
            }
            if !line.isEmpty { lines.append(line) }
            line = String(word)
            while columns(of: line) > width {
                var piece = ""
                var used = 0
                for character in line {
                    let w = columns(of: character)
                    if used + w > width { break }
                    piece.append(character)
                    used += w
                }
                lines.append(piece)
                line = String(line.dropFirst(max(1, piece.count)))
            }
        }
        if !line.isEmpty { lines.append(line) }
        guard lines.count > maxLines else { return lines }
        var kept = Array(lines.prefix(maxLines))
        kept[maxLines - 1] = fit(kept[maxLines - 1] + " " + lines[maxLines], width: width)
        if !kept[maxLines - 1].hasSuffix("…") { kept[maxLines - 1] = fit(kept[maxLines - 1] + " …", width: width) }
        return kept
    }

    /// `text` in at most `width` columns, cut in the middle (`KzZHcv…D6L9ohaS`): the
    /// start and the end of a token or an id are what tell it apart.
    public static func middle(_ text: String, width: Int) -> String {
        guard columns(of: text) > width else { return text }
        guard width > 2 else { return fit(text, width: width) }
        let tail = (width - 1) / 2
        let head = width - 1 - tail
        if isPrintableASCII(text) {
            let bytes = text.utf8
            return String(decoding: bytes.prefix(head), as: UTF8.self) + "…"
                + String(decoding: bytes.suffix(tail), as: UTF8.self)
        }
        let characters = Array(text)
        return String(characters.prefix(head)) + "…" + String(characters.suffix(tail))
    }
}
