import Foundation
import Testing

enum TmuxError: Error {
    case spawn(String)
}

/// A tmux server of the test's own (its own socket), running fcm-device in a pane of
/// a given size, so a test can type keys and read the screen as a person would.
final class Tmux {
    let socket = "fcm-e2e-\(UUID().uuidString.prefix(8))"
    let folder: URL
    var pid: Int32? {
        Int32(
            (try? String(contentsOf: folder.appendingPathComponent("pid"), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
    }

    /// Starts `fcm-device ARGUMENTS` in a WIDTHxHEIGHT pane. The pane's shell saves
    /// the terminal settings before and after, and the exit status. The TUI's
    /// listeners take free ports and a state folder of the test's own.
    /// `state` names a state folder to share between runs.
    init(width: Int, height: Int, arguments: [String] = [], environment: [String] = [], state: String? = nil) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent(socket)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Play mode opens no ports and keeps no state (it refuses those options); its
        // state folder, where `w` saves, comes from XDG_STATE_HOME.
        let playing = arguments.contains("--play")
        let arguments =
            playing
            ? arguments
            : arguments + [
                "--ccs-port", "0", "--ccs-plain-port", "0", "--http-port", "0", "--state",
                state ?? folder.path + "/state",
            ]
        let environment = playing ? environment + ["XDG_STATE_HOME='\(folder.path)/state'"] : environment
        let binary = CLI.binary.path
        let script = """
            cd '\(folder.path)'; stty -g > before; \
            \(environment.isEmpty ? "" : "export " + environment.joined(separator: " ") + "; ")\
            sh -c 'echo $$ > pid; exec "$0" "$@"' '\(binary)' \(arguments.map { "'\($0)'" }.joined(separator: " ")); \
            code=$?; stty -g > after; echo $code > status; sleep 120
            """
        try run(["new-session", "-d", "-s", "e2e", "-x", String(width), "-y", String(height), script], capture: false)
    }

    deinit {
        _ = try? run(["kill-server"])
        try? FileManager.default.removeItem(at: folder)
    }

    /// Runs a tmux command through posix_spawn and waitpid. (Foundation's Process
    /// notices a child's exit through a socket the child inherits, and the tmux
    /// server that `new-session` forks keeps it open for as long as it lives.)
    @discardableResult
    func run(_ arguments: [String], capture: Bool = true) throws -> String {
        let argv = ["tmux", "-L", socket] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = environment["TERM"] ?? "xterm-256color"
        environment.removeValue(forKey: "TMUX")
        environment.removeValue(forKey: "LINES")
        environment.removeValue(forKey: "COLUMNS")
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw TmuxError.spawn("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        if capture {
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
        } else {
            posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        // A clean signal state: test threads may block signals, and the tmux server
        // and everything it starts would inherit that.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, "tmux", &actions, &attributes, cArguments, cEnvironment)
        close(pipeEnds[1])
        defer { close(pipeEnds[0]) }
        guard spawned == 0 else { throw TmuxError.spawn("tmux could not be started: \(spawned)") }
        var output = [UInt8]()
        if capture {
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = read(pipeEnds[0], &buffer, buffer.count)
                if count <= 0 { break }
                output += buffer[0..<count]
            }
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return String(decoding: output, as: UTF8.self)
    }

    /// Sends keys as tmux names them: "s", "Enter", "Down", "C-c", or literal text.
    func keys(_ keys: String...) throws {
        for key in keys { try run(["send-keys", "-t", "e2e", key]) }
    }

    func literal(_ text: String) throws {
        try run(["send-keys", "-t", "e2e", "-l", text])
    }

    var screen: String { (try? run(["capture-pane", "-p", "-t", "e2e"])) ?? "" }

    func resize(width: Int, height: Int) throws {
        try run(["resize-window", "-t", "e2e", "-x", String(width), "-y", String(height)])
    }

    /// Waits until the screen shows `text`; false after `seconds`.
    func waitFor(_ text: String, seconds: Double = 10) -> Bool {
        waitUntil(seconds: seconds) { self.screen.contains(text) }
    }

    func waitUntil(seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return condition()
    }

    /// The fcm-device exit status once it has ended.
    func exitStatus(seconds: Double = 10) -> String? {
        let file = folder.appendingPathComponent("status")
        _ = waitUntil(seconds: seconds) { FileManager.default.fileExists(atPath: file.path) }
        return (try? String(contentsOf: file, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether the terminal settings after fcm-device equal those before it.
    var terminalRestored: Bool {
        let before = try? String(contentsOf: folder.appendingPathComponent("before"), encoding: .utf8)
        let after = try? String(contentsOf: folder.appendingPathComponent("after"), encoding: .utf8)
        return before != nil && before == after
    }
}
