import Foundation

/// `fcm-device serve` as a child process on free ports, with its log drained.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    let sender = "123456789012"
    let key = "demo-server-key"
    private(set) var ccs = 0
    private(set) var ccsPlain = 0
    private(set) var http = 0
    private(set) var certificate = ""
    private(set) var token = ""

    /// A state folder of this server's own: helper servers started beside the one under
    /// test must not share it (their --fresh and clean-up would delete its file mid-run).
    let state = FileManager.default.temporaryDirectory.appendingPathComponent(
        "fcm-load-\(getpid())-\(UUID().uuidString)"
    ).path

    init(binary: String, profile: String? = nil) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments =
            [
                "serve", "--no-device-limits", "--ccs-port", "0", "--ccs-plain-port", "0", "--http-port", "0",
                "--state", state, "--fresh",
            ]
            + (profile.map { ["--profile", $0] } ?? [])
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let handle = pipe.fileHandleForReading
        var pending = Data()
        func line() -> [String: Any] {
            while true {
                if let end = pending.firstIndex(of: 10) {
                    let line = pending[pending.startIndex..<end]
                    pending = Data(pending[(end + 1)...])
                    return (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] ?? [:]
                }
                pending.append(handle.availableData)
            }
        }
        let listening = line()
        ccs = listening["ccs"] as? Int ?? 0
        ccsPlain = listening["ccsPlain"] as? Int ?? 0
        http = listening["http"] as? Int ?? 0
        certificate = listening["tlsCert"] as? String ?? ""
        token = line()["token"] as? String ?? ""
        // Keep reading so the server never blocks on a full pipe.
        Thread.detachNewThread {
            while !handle.availableData.isEmpty {}
        }
    }

    /// The server's resident memory, from /proc.
    func residentKiB() -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    /// The size of the state folder (the device's SQLite file and its WAL).
    func stateKiB() -> Int {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: state)) ?? []
        let bytes = files.reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: state + "/" + name)
            return total + ((attributes?[.size] as? Int) ?? 0)
        }
        return bytes / 1_024
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: state)
    }
}
