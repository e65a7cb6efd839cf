import FCMEngine
import Foundation

/// Whether `exec` can start a command, checked before the emulator's variables are
/// handed to it, so a mistyped name is said in the product's words.
public enum CommandLookup {
    /// What is wrong with running `name`, or nil when it can run: a path that is not
    /// an executable file, or a name no folder of PATH holds (with the closest names).
    public static func problem(_ name: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> String? {
        let files = FileManager.default
        if name.contains("/") {
            return files.isExecutableFile(atPath: name) ? nil : "cannot run \(name): no executable file is there"
        }
        let folders = (path ?? "").split(separator: ":").map(String.init)
        if folders.contains(where: { files.isExecutableFile(atPath: $0 + "/" + name) }) { return nil }
        var names: Set<String> = []
        for folder in folders {
            for entry in (try? files.contentsOfDirectory(atPath: folder)) ?? [] where entry.first == name.first {
                names.insert(entry)
            }
        }
        return "no command \(name) on PATH" + CloseNames.suggestion(among: names.sorted(), to: name)
    }
}
