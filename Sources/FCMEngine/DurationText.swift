/// Durations as text, written and read in one place: profiles and forms (`250ms`,
/// `3s`, `2m`, `4h`, `28d`, a bare 0), transcript stamps (`+HH:MM:SS.mmm`), spans in
/// messages (`30 s`), and the protobuf Duration text of the v1 API (`"3.5s"`).
public enum DurationText {
    static let units: [(suffix: String, millis: Int64)] = [
        ("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000),
    ]

    /// Milliseconds, or nil when the text is not a duration.
    public static func parse(_ text: String) -> Int64? {
        let trimmed = trim(Substring(text))
        if trimmed == "0" { return 0 }
        for unit in units {
            guard trimmed.hasSuffix(unit.suffix) else { continue }
            let number = String(trim(trimmed.dropLast(unit.suffix.count)))
            if let whole = Int64(number), whole >= 0 {
                let (product, overflow) = whole.multipliedReportingOverflow(by: unit.millis)
                return overflow ? nil : product
            }
            if let fraction = Double(number), fraction >= 0, fraction.isFinite, fraction * Double(unit.millis) < 9e15 {
                return Int64((fraction * Double(unit.millis)).rounded())
            }
            return nil
        }
        return nil
    }

    /// A moment of a timeline: a duration (`2m`, `90s`) or a clock stamp as the
    /// transcript prints it (`+00:02:05`, `00:02:05.250`, `2:05`); nil otherwise.
    public static func moment(_ text: String) -> Int64? {
        var trimmed = trim(Substring(text))
        if trimmed.hasPrefix("+") { trimmed = trimmed.dropFirst() }
        guard trimmed.contains(":") else { return parse(String(trimmed)) }
        let parts = trimmed.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count) else { return nil }
        var minutes: Int64 = 0
        for (index, part) in parts.dropLast().enumerated() {
            guard let whole = Int64(part), whole >= 0, index == 0 || whole < 60, whole < 1_000_000_000 else {
                return nil
            }
            minutes = minutes * 60 + whole
        }
        guard let last = parts.last, !last.hasPrefix("."), let seconds = Double(last), seconds >= 0, seconds < 60
        else { return nil }
        return minutes * 60_000 + Int64((seconds * 1_000).rounded())
    }

    /// Whole seconds of a bare number (`3600`) or a duration (`1h`), for fields that
    /// take seconds; nil when it is neither.
    public static func seconds(_ text: String) -> Int64? {
        if let whole = Int64(trim(Substring(text))) { return whole }
        return parse(text).map { $0 / 1_000 }
    }

    /// `+HH:MM:SS.mmm`, hours growing past 24 as needed.
    public static func stamp(_ millis: Int64) -> String {
        let ms = millis % 1_000
        let seconds = (millis / 1_000) % 60
        let minutes = (millis / 60_000) % 60
        let hours = millis / 3_600_000
        return "+" + pad(hours, 2) + ":" + pad(minutes, 2) + ":" + pad(seconds, 2) + "." + pad(ms, 3)
    }

    /// A span in the largest unit that divides it: `30 s`, `300 ms`, `2 h`.
    public static func span(_ millis: Int64) -> String {
        for unit in units.reversed() where millis != 0 && millis % unit.millis == 0 {
            return "\(millis / unit.millis) \(unit.suffix)"
        }
        return "\(millis) ms"
    }

    /// The whole seconds of a protobuf Duration text (`"600s"`, `"3.5s"`: fractions
    /// dropped), or nil when the text is not one.
    public static func protobufSeconds(_ text: String) -> Int64? {
        guard text.hasSuffix("s") else { return nil }
        let number = text.dropLast()
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCII), let seconds = Int64(whole),
            seconds >= 0
        else { return nil }
        if parts.count == 2 {
            guard !parts[1].isEmpty, parts[1].count <= 9, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }) else {
                return nil
            }
        }
        return seconds
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    static func trim(_ text: Substring) -> Substring {
        var text = text
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
