import Foundation

/// Durations as profiles write them: `250ms`, `3s`, `2m`, `4h`, `28d`, or a bare 0.
public enum DurationText {
    static let units: [(suffix: String, millis: Int64)] = [
        ("ms", 1), ("s", 1_000), ("m", 60_000), ("h", 3_600_000), ("d", 86_400_000),
    ]

    /// Milliseconds, or nil when the text is not a duration.
    public static func parse(_ text: String) -> Int64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "0" { return 0 }
        for unit in units {
            guard trimmed.hasSuffix(unit.suffix) else { continue }
            let number = trimmed.dropLast(unit.suffix.count).trimmingCharacters(in: .whitespaces)
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

    /// `+HH:MM:SS.mmm`, hours growing past 24 as needed.
    public static func stamp(_ millis: Int64) -> String {
        let ms = millis % 1_000
        let seconds = (millis / 1_000) % 60
        let minutes = (millis / 60_000) % 60
        let hours = millis / 3_600_000
        return "+" + pad(hours, 2) + ":" + pad(minutes, 2) + ":" + pad(seconds, 2) + "." + pad(ms, 3)
    }

    static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
