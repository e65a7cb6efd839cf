import Foundation
import Testing

/// Runs the built `fcm-device` binary the way a user does.
struct CLI {
    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The executable sits next to the test bundle in the build folder.
    static var binary: URL {
        let testBinary = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).resolvingSymlinksInPath()
        var folder = testBinary.deletingLastPathComponent()
        while !folder.path.isEmpty, folder.path != "/" {
            let candidate = folder.appendingPathComponent("fcm-device")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return testBinary.deletingLastPathComponent().appendingPathComponent("fcm-device")
    }

    static let profiles = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("profiles")

    /// `environment`: the whole environment it runs in (nil: this process's).
    static func run(_ arguments: [String], environment: [String: String]? = nil) throws -> Outcome {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// `fcm-device serve` on free ports on `state` (with `profile`), started; its
    /// standard output is `output`.
    static func serve(state: String, profile: String? = nil) throws -> (process: Process, output: FileHandle) {
        let process = Process()
        process.executableURL = binary
        process.arguments =
            ["serve"] + (profile.map { ["--profile", $0] } ?? [])
            + ["--state", state, "--ccs-port", "0", "--ccs-plain-port", "0", "--http-port", "0"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        try process.run()
        return (process, out.fileHandleForReading)
    }

    static func temporaryProfile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID().uuidString).yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

@Suite("Command line")
struct CLITests {
    @Test func binaryIsBuilt() {
        #expect(FileManager.default.isExecutableFile(atPath: CLI.binary.path), "build fcm-device first: swift build")
    }

    @Test func aMistypedCommandIsNamedWithTheClosestOneNotTakenForTheTUI() throws {
        let outcome = try CLI.run(["server"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains(#"no command is called "server"; did you mean serve?"#), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("credentials, profile, state"))
        #expect(!outcome.stderr.contains("fcm-device tui"), "not the TUI's usage")
        #expect(try CLI.run(["help"]).status == 0)
    }

    @Test func versionAnswersWithTheVersion() throws {
        let outcome = try CLI.run(["--version"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.hasPrefix("fcm-device 0."), "\(outcome.stdout)")
    }

    @Test func execNamesACommandItCannotFindAndTheClosestOnes() throws {
        let outcome = try CLI.run(["exec", "--", "shh", "-c", "true"])
        #expect(outcome.status == 127)
        #expect(outcome.stderr.contains("fcm-device exec: no command shh on PATH; did you mean"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("sh"), "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("/usr/bin/env"), "\(outcome.stderr)")
    }

    @Test func playModeRefusesListenerOptionsItWouldIgnore() throws {
        let tour = CLI.profiles.appendingPathComponent("tour-android.yaml").path
        let outcome = try CLI.run(["tui", "--play", tour, "--http-port", "0", "--no-echo"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("--http-port, --no-echo would have no effect"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("--profile P"))
    }

    @Test func withoutATerminalTheTUISaysSoAndPointsToReplay() throws {
        let outcome = try CLI.run([])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("needs a terminal"))
        #expect(outcome.stderr.contains("fcm-device replay"))
    }

    @Test func replayWithoutAProfileReplaysTheBuiltInDefaultDevice() throws {
        let outcome = try CLI.run(["replay"])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("onNewToken"))
        #expect(outcome.stdout.contains("<built-in default>: 6 events, 2 expectations, 2 held"))
    }

    @Test func replayOfAGreenProfileExitsZero() throws {
        let outcome = try CLI.run(["replay", CLI.profiles.appendingPathComponent("offline-queue.yaml").path])
        #expect(outcome.status == 0)
        #expect(outcome.stdout.contains("onSendError"))
        #expect(outcome.stdout.contains("error=TooManyMessages"))
    }

    @Test func failedExpectExitsOneAndSaysWhich() throws {
        let path = try CLI.temporaryProfile(
            """
            version: 1
            senders: [{ id: "1", key: k }]
            timeline:
              - at: 1s
                expect: { event: onMessageReceived }
            """)
        let outcome = try CLI.run(["replay", path])
        #expect(outcome.status == 1)
        #expect(outcome.stdout.contains("\(path):4:5: expect failed: onMessageReceived"))
        #expect(outcome.stdout.contains("no onMessageReceived event happened"))
        #expect(outcome.stdout.contains("1 expectation, 0 held"))
    }

    @Test func aFailedExpectSaysWhichFieldDiffered() throws {
        let path = try CLI.temporaryProfile(
            """
            version: 1
            device: { state: background }
            senders: [{ id: "1", key: k }]
            timeline:
              - at: 1s
                push: { sender: "1", id: m-1, notification: { title: Hello } }
              - at: 2s
                expect: { event: notificationPosted, id: m-1, title: Goodbye, body: Hi }
            """)
        let outcome = try CLI.run(["replay", path])
        #expect(outcome.status == 1)
        #expect(
            outcome.stdout.contains("(differs: title=Hello (wanted Goodbye), body= (wanted Hi))"), "\(outcome.stdout)")
    }

    @Test func invalidProfileExitsTwoWithFileLineColumn() throws {
        let path = try CLI.temporaryProfile("version: 1\nsenders: [{ id: \"1\", key: k }]\nend: 5 parsecs\n")
        let outcome = try CLI.run(["replay", path])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.hasPrefix("\(path):3:6: end: \"5 parsecs\" is not a duration"))
        let check = try CLI.run(["profile", "check", path])
        #expect(check.status == 2)
        #expect(check.stderr == outcome.stderr)
    }

    @Test func aMissingProfileSaysWhyItCannotBeRead() throws {
        let outcome = try CLI.run(["replay", "no-such-profile.yaml"])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("no-such-profile.yaml:1:1: cannot read the file: no such file"))
    }

    @Test func aPortInUseIsNamedInPlainWords() throws {
        let (socket, port) = try Self.occupiedPort()
        defer { close(socket) }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-port-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let outcome = try CLI.run([
            "serve", "--state", state.path, "--ccs-port", "0", "--ccs-plain-port", "0", "--http-port", String(port),
        ])
        #expect(outcome.status == 2)
        #expect(outcome.stderr.contains("cannot open the HTTP port \(port) on 127.0.0.1: it is already in use"))
        #expect(!outcome.stderr.contains("bind(descriptor"), Comment(rawValue: outcome.stderr))
    }

    @Test func credentialsForPortZeroSaysToLeaveThePortOut() throws {
        let outcome = try CLI.run(["credentials", "--http-port", "0"])
        #expect(outcome.status != 0)
        #expect(outcome.stderr.contains("leave --http-port out"), "\(outcome.stderr)")
    }

    /// A port of this machine that a socket of the test's own listens on.
    static func occupiedPort() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        #expect(bound == 0)
        listen(fd, 1)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func jsonOutputIsOneObjectPerLine() throws {
        let outcome = try CLI.run(["replay", "--json", CLI.profiles.appendingPathComponent("doze-priority.yaml").path])
        #expect(outcome.status == 0)
        let lines = outcome.stdout.split(separator: "\n")
        #expect(lines.count > 5)
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["at"] is Int)
            #expect(["device", "server", "check"].contains(object?["side"] as? String))
        }
    }

    @Test func jsonOutputReportsHeldExpectationsInPlace() throws {
        let outcome = try CLI.run(["replay", "--json", CLI.profiles.appendingPathComponent("doze-priority.yaml").path])
        let objects = try outcome.stdout.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let held = objects.filter { $0?["event"] as? String == "expectationHeld" }
        #expect(!held.isEmpty)
        #expect(held.allSatisfy { $0?["side"] as? String == "check" && ($0?["expect"] as? String)?.isEmpty == false })
    }

    @Test func serveJudgesAProfilesExpectationsAsItPlays() throws {
        let profile = try CLI.temporaryProfile(
            """
            version: 1
            senders:
              - { id: "123", key: k }
            timeline:
              - at: 100ms
                push: { sender: "123", id: p-1, data: { a: "1" } }
              - at: 200ms
                expect: { event: onMessageReceived, id: p-1 }
              - at: 300ms
                expect_none: { event: onMessageReceived, id: p-1 }
            """)
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (process, out) = try CLI.serve(state: state, profile: profile)
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, text.components(separatedBy: "expectation").count < 3 {
            let chunk = out.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        process.interrupt()
        process.waitUntilExit()
        #expect(text.contains(#""event":"expectationHeld""#), "\(text)")
        #expect(text.contains(#""event":"expectationFailed""#), "\(text)")
        #expect(text.contains("it happened at +00:00:00.100"))
    }

    @Test func theListeningLineNamesTheOpenListenersOnly() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (process, out) = try CLI.serve(state: state)
        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !text.contains("\n") {
            let chunk = out.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        process.interrupt()
        process.waitUntilExit()
        let line = text.split(separator: "\n").first.map(String.init) ?? ""
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["event"] as? String == "listening")
        #expect((object?["http"] as? Int ?? 0) > 0)
        #expect(object?["https"] == nil, "a closed listener is left out, not 0: \(line)")
    }

    @Test func serveLogLinesCarryTheSequenceNumbersOfTheEventLog() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (process, out) = try CLI.serve(state: state)
        // Started (its listening line), then stopped: the log is written whole by the stop.
        var text = ""
        while !text.contains("\n") {
            let chunk = out.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        Thread.sleep(forTimeInterval: 1)
        process.interrupt()
        text += String(decoding: out.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // The listening line first, then each event led by its place in the event log
        // (what GET events and the report card's evidence number it).
        let events = text.split(separator: "\n").dropFirst().compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }.filter { $0["event"] as? String == "onNewToken" }
        #expect(events.map { $0["seq"] as? Int } == [1], "\(text)")
        #expect(text.contains(#"{"seq":1,"at":0,"side":"device","event":"onNewToken""#))
    }

    @Test func profileCheckAcceptsEveryShippedProfile() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: CLI.profiles.path).filter {
            $0.hasSuffix(".yaml")
        }
        let outcome = try CLI.run(["profile", "check"] + names.map { CLI.profiles.appendingPathComponent($0).path })
        #expect(outcome.status == 0)
        #expect(outcome.stdout.split(separator: "\n").count == names.count)
        // A fleet's devices are counted, and one of anything is not plural.
        let fleet = try #require(outcome.stdout.split(separator: "\n").first { $0.contains("web-mixed-fleet.yaml") })
        #expect(fleet.contains("3 devices, 1 sender, "), "\(fleet)")
        let single = try CLI.temporaryProfile(
            "version: 1\nsenders: [{ id: \"1\", key: k }]\ntimeline:\n  - at: 1s\n    drain: true\n")
        #expect(
            try CLI.run(["profile", "check", single]).stdout.hasSuffix(
                "ok (1 device, 1 sender, 1 step, 0 expectations)\n"))
    }

    @Test func helpIsOfferedOnEveryCommand() throws {
        for command in [
            ["--help"], ["tui", "--help"], ["replay", "--help"], ["profile", "--help"], ["profile", "check", "--help"],
            ["serve", "--help"], ["credentials", "--help"], ["state", "--help"], ["env", "--help"],
            ["exec", "--help"],
        ] {
            let outcome = try CLI.run(command)
            #expect(outcome.status == 0)
            #expect(outcome.stdout.contains("USAGE"))
        }
        // The saved device's options are offered where they apply; the crash tests' slow disk is not.
        let serve = try CLI.run(["serve", "--help"]).stdout
        #expect(serve.contains("--fresh") && serve.contains("NAME.sqlite"))
        #expect(!serve.contains("commit-delay"))
        #expect(try CLI.run(["--help"]).stdout.contains("state"))
    }
}
