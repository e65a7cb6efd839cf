import FCMEngine

/// A first argument that names no command: ArgumentParser would hand it to the default
/// command (the TUI) and print that command's usage, as if the TUI had been asked for.
enum UnknownCommand {
    /// What to say when `word` is neither an option nor one of `commands`, with the
    /// closest command names; nil when it is fine.
    static func problem(_ word: String, commands: [String]) -> String? {
        guard !word.hasPrefix("-"), !commands.contains(word), word != "help" else { return nil }
        return "fcm-device: no command is called \"\(word)\"" + CloseNames.suggestion(among: commands, to: word)
            + "\nThe commands: \(commands.joined(separator: ", ")). See 'fcm-device --help'.\n"
    }
}
