/// The text forms of protobuf's well-known types in Google's JSON, and what is wrong
/// with one that is not in form (the converter's own words).
enum ProtobufDuration {
    /// Seconds either way that a Duration may hold (10,000 years).
    static let limit: Int64 = 315_576_000_000

    /// Nil when `text` is a Duration (`"3s"`, `"-1.5s"`, up to nine fraction digits).
    static func problem(_ text: String) -> String? {
        guard text.hasSuffix("s") else { return "Illegal duration format; duration must end with 's'" }
        var number = Substring(text.dropLast())
        if number.first == "-" { number = number.dropFirst() }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(isDigit),
            parts.count == 1 || (1...9).contains(parts[1].count) && parts[1].allSatisfy(isDigit)
        else { return "Invalid duration format, failed to parse seconds" }
        guard let seconds = Int64(whole), seconds <= limit else { return "Duration value exceeds limits" }
        return nil
    }

    static func isDigit(_ character: Character) -> Bool { character >= "0" && character <= "9" }
}

enum ProtobufTimestamp {
    /// Nil when `text` is an RFC 3339 time: `2026-11-25T10:00:00Z`, with up to nine
    /// fraction digits and `Z` or an offset such as `+01:00`.
    static func problem(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        var zone = 0
        if bytes.last == UInt8(ascii: "Z") {
            zone = 1
        } else if bytes.count >= 6, [UInt8(ascii: "+"), UInt8(ascii: "-")].contains(bytes[bytes.count - 6]),
            matches(bytes[(bytes.count - 5)...], "99:99")
        {
            zone = 6
        } else {
            return "Illegal timestamp format; timestamps must end with 'Z' or have a valid timezone offset."
        }
        let stamp = bytes.dropLast(zone)
        guard stamp.count >= 19, matches(stamp.prefix(19), "9999-99-99T99:99:99") else {
            return "Invalid timestamp format; timestamps look like 2026-11-25T10:00:00Z."
        }
        let fraction = stamp.dropFirst(19)
        guard
            fraction.isEmpty
                || fraction.first == UInt8(ascii: ".") && (2...10).contains(fraction.count)
                    && matches(fraction.dropFirst(), String(repeating: "9", count: fraction.count - 1))
        else { return "Invalid timestamp format; at most nine digits after the seconds' point." }
        return nil
    }

    /// Whether `bytes` follow `pattern`, where `9` stands for any digit.
    static func matches(_ bytes: ArraySlice<UInt8>, _ pattern: String) -> Bool {
        bytes.count == pattern.utf8.count
            && zip(bytes, pattern.utf8).allSatisfy { byte, expected in
                expected == UInt8(ascii: "9")
                    ? (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) : byte == expected
            }
    }
}
