/// A first argument that names no command: ArgumentParser would hand it to the default
/// command (the TUI) and print that command's usage, as if the TUI had been asked for.
enum UnknownCommand {
    /// What to say when `word` is neither an option nor one of `commands`, with the
    /// closest command names; nil when it is fine.
    static func problem(_ word: String, commands: [String]) -> String? {
        guard !word.hasPrefix("-"), !commands.contains(word), word != "help" else { return nil }
        let close = commands.filter { distance($0, word) <= 2 || $0.hasPrefix(word) || word.hasPrefix($0) }
        return "fcm-device: no command is called \"\(word)\""
            + (close.isEmpty ? "" : "; did you mean \(close.joined(separator: " or "))?")
            + "\nThe commands: \(commands.joined(separator: ", ")). See 'fcm-device --help'.\n"
    }

    /// Edits (insertions, deletions, substitutions) between two short words.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
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
