/// The names close to a mistyped one, for "did you mean …?": within two edits
/// (insertions, deletions, substitutions, ignoring case), or one a prefix of the other.
public enum CloseNames {
    public static func among(_ names: [String], to typed: String) -> [String] {
        names.filter {
            distance($0, typed) <= 2 || $0.hasPrefix(typed) || typed.hasPrefix($0)
                // A word cut and finished another way (`deny` for `denied`).
                || commonPrefix($0, typed) >= max(3, typed.count - 1)
        }
    }

    /// How many characters two names share from their start.
    static func commonPrefix(_ a: String, _ b: String) -> Int {
        zip(a, b).prefix { $0 == $1 }.count
    }

    /// `; did you mean a or b?` with the (at most three) names close to `typed`, or
    /// nothing when none is: every "did you mean" is said alike.
    public static func suggestion(among names: [String], to typed: String) -> String {
        suggestion(of: among(names, to: typed))
    }

    /// `; did you mean a or b?` for names already found close, or nothing.
    public static func suggestion(of close: [String]) -> String {
        close.isEmpty ? "" : "; did you mean \(close.prefix(3).joined(separator: " or "))?"
    }

    /// Edits between two short names, ignoring case.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        guard !a.isEmpty else { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let kept = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = kept
            }
        }
        return row[b.count]
    }
}
