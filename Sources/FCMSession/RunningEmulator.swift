import FCMConnectionServer
import FCMEngine
import FCMJSON
import Foundation

/// What a running session wrote beside its state: where it listens, read back by
/// `fcm-device env`.
public struct RunningEmulator: Sendable {
    public var pid: Int32
    public var bind: String
    public var http: Int
    public var caFile: String
    public var trustStore: String
    /// The profile it runs, when it runs one (absolute path).
    public var profile: String?

    public init(pid: Int32, bind: String, http: Int, caFile: String, trustStore: String, profile: String? = nil) {
        self.profile = profile
        self.pid = pid
        self.bind = bind
        self.http = http
        self.caFile = caFile
        self.trustStore = trustStore
    }

    public struct NotRunning: Error, CustomStringConvertible {
        public var description: String
        /// Several emulators run on the folder, and none was named.
        public var ambiguous = false
    }

    /// Reads `path`; says plainly when nothing runs there (no file, or its process
    /// has gone).
    public static func read(_ path: String) throws(NotRunning) -> RunningEmulator {
        let start = "start `fcm-device serve` (or tui) with the same --state and --profile"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw NotRunning(description: "no emulator runs for \(path): \(start)")
        }
        guard case .object(let object)? = try? JSONParser.parse(data),
            let pid = object["pid"]?.int64.map(Int.init), let http = object["http"]?.int64.map(Int.init),
            let caFile = object["tlsCert"]?.string, let trustStore = object["trustStore"]?.string
        else { throw NotRunning(description: "\(path) is not what a running emulator writes: \(start)") }
        guard kill(Int32(pid), 0) == 0 || errno == EPERM else {
            throw NotRunning(description: "the emulator that wrote \(path) (pid \(pid)) has stopped: \(start)")
        }
        guard http > 0 else { throw NotRunning(description: "the emulator (pid \(pid)) has its HTTP port closed") }
        return RunningEmulator(
            pid: Int32(pid), bind: object["bind"]?.string ?? "127.0.0.1", http: http, caFile: caFile,
            trustStore: trustStore, profile: object["profile"]?.string)
    }

    /// The emulator running on `folder` for `profilePath`; with no profile named, the
    /// built-in device's, or else the only one running on the folder. Says which run
    /// there when it cannot choose.
    public static func find(folder: String, profilePath: String?) throws(NotRunning) -> RunningEmulator {
        let path = StateFolder.runningPath(folder, profilePath: profilePath)
        if profilePath != nil { return try read(path) }
        if let own = try? read(path) { return own }
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter {
            $0.hasSuffix(".running.json")
        }.sorted()
        let running = files.compactMap { name -> (name: String, emulator: RunningEmulator)? in
            guard let emulator = try? read(folder + "/" + name) else { return nil }
            return (name, emulator)
        }
        switch running.count {
        case 0: return try read(path)
        case 1: return running[0].emulator
        default:
            let listed = running.map { "\($0.emulator.profile ?? $0.name) (pid \($0.emulator.pid))" }
            throw NotRunning(
                description: "\(running.count) emulators run on \(folder): \(listed.joined(separator: ", ")); "
                    + "name the one you mean with --profile", ambiguous: true)
        }
    }

    public var proxyEnvironment: ProxyEnvironment {
        ProxyEnvironment(bind: bind, port: http, caFile: caFile, trustStore: trustStore)
    }
}
