import Foundation
import Testing

/// `exec`, `credentials` and `env` as a CI script uses them: what a failed or unreached
/// expectation says, and a running emulator found on its state folder.
@Suite("exec, credentials and env in a CI script")
struct ExecReportTests {
    static func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID().uuidString)").path
    }

    @Test func execNamesEachFailedExpectationWithWhatHappenedInstead() throws {
        let path = try CLI.temporaryProfile(
            """
            version: 1
            senders: [{ id: "1", key: k }]
            timeline:
              - at: 100ms
                expect: { event: onMessageReceived, id: never-sent }
            """)
        let outcome = try CLI.run(["exec", "--profile", path, "--", "sh", "-c", "sleep 1"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("failed at "), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("expect onMessageReceived"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("no onMessageReceived event happened"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("1 expectation(s) failed"), "\(outcome.stderr)")
    }

    @Test func execNamesAnExpectationTheRunNeverReachedAndExitsOne() throws {
        let path = try CLI.temporaryProfile(
            """
            version: 1
            senders: [{ id: "1", key: k }]
            timeline:
              - at: 10m
                expect_none: { event: onSendError }
            """)
        let outcome = try CLI.run(["exec", "--profile", path, "--", "true"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("never reached: expect_none onSendError (\(path):4:"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("true ended at"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("add --no-timeline"), "\(outcome.stderr)")
        // The profile's device alone: the timeline does not play, the command's status is exec's.
        let alone = try CLI.run(["exec", "--profile", path, "--no-timeline", "--", "true"])
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(!alone.stderr.contains("never reached"))
        // The command's own failure keeps its status; the report is still given.
        let failing = try CLI.run(["exec", "--profile", path, "--", "sh", "-c", "exit 3"])
        #expect(failing.status == 3)
        #expect(failing.stderr.contains("never reached"))
    }

    @Test func sigtermToExecStopsItsCommandAndTheEmulator() throws {
        let process = Process()
        process.executableURL = CLI.binary
        process.arguments = ["exec", "--", "sleep", "30"]
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        let started = Date()
        try process.run()
        Thread.sleep(forTimeInterval: 2)
        process.terminate()
        process.waitUntilExit()
        #expect(Date().timeIntervalSince(started) < 20, "exec waited for its command instead of stopping it")
        #expect(process.terminationStatus == 128 + SIGTERM)
    }

    @Test func execHelpSaysItStartsAnEmulatorAndListsEveryVariableOnLinesOfTheirOwn() throws {
        let help = try CLI.run(["exec", "--help"]).stdout
        #expect(help.contains("Start an emulator"))
        #expect(!help.contains("against a running emulator"))
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        let first = try #require(lines.firstIndex { $0.hasPrefix("  FCM_EMULATOR_HOST") })
        let end = try #require(lines[first...].firstIndex { $0.hasPrefix("and what") })
        for line in lines[first..<end] {
            #expect(line.hasPrefix("  FCM_EMULATOR_"), "a line wrapped back to column 0: \(line)")
        }
        #expect(lines[first..<end].contains { $0.hasPrefix("  FCM_EMULATOR_DEVICE_TOKENS ") })
    }

    /// serve on free ports on `state`; the HTTP port its listening line names.
    static func serve(state: String, profile: String? = nil) throws -> (Process, Int) {
        let (process, out) = try CLI.serve(state: state, profile: profile)
        let listening = String(decoding: out.availableData, as: UTF8.self)
        let port = try #require(Int(listening.split(separator: "\"http\":").last?.prefix { $0.isNumber } ?? ""))
        return (process, port)
    }

    @Test func credentialsNameTheRunningEmulatorsPortWhenItPickedAFreeOne() throws {
        let state = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (process, port) = try Self.serve(state: state)
        defer {
            process.interrupt()
            process.waitUntilExit()
        }
        let outcome = try CLI.run(["credentials", "--state", state])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains(#""token_uri": "http://127.0.0.1:\#(port)/token""#), "\(outcome.stdout)")
        #expect(!outcome.stderr.contains("assumes"), "the running emulator's port is not an assumption")
        let named = try CLI.run(["credentials", "--state", state, "--http-port", "9999"])
        #expect(named.stdout.contains("127.0.0.1:9999/token"), "a port given is used as given")
        let elsewhere = try CLI.run(["credentials", "--state", Self.folder()])
        #expect(elsewhere.status == 0)
        #expect(
            elsewhere.stderr.contains("no emulator is running on")
                && elsewhere.stderr.contains("assumes serve's default"),
            "\(elsewhere.stderr)")
    }

    @Test func envFindsTheOnlyEmulatorOnTheFolderWithoutItsProfileAndAsksWhenThereAreTwo() throws {
        let state = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let profile = try CLI.temporaryProfile("version: 1\nsenders: [{ id: \"77\", key: k, project: p77 }]\n")
        let (first, port) = try Self.serve(state: state, profile: profile)
        defer {
            first.interrupt()
            first.waitUntilExit()
        }
        let found = try CLI.run(["env", "--state", state])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.contains("export HTTPS_PROXY='http://127.0.0.1:\(port)'"), "\(found.stdout)")
        let credentials = try CLI.run(["credentials", "--state", state])
        #expect(credentials.stdout.contains(#""project_id": "p77""#), "the running profile's sender: \(credentials)")
        let other = try CLI.temporaryProfile("version: 1\nsenders: [{ id: \"88\", key: k }]\n")
        let (second, _) = try Self.serve(state: state, profile: other)
        defer {
            second.interrupt()
            second.waitUntilExit()
        }
        let ambiguous = try CLI.run(["env", "--state", state])
        #expect(ambiguous.status == 1)
        #expect(ambiguous.stderr.contains("2 emulators run on") && ambiguous.stderr.contains("--profile"))
        #expect(ambiguous.stderr.contains(URL(fileURLWithPath: other).lastPathComponent), "\(ambiguous.stderr)")
        let credentialsAmbiguous = try CLI.run(["credentials", "--state", state])
        #expect(credentialsAmbiguous.status == 2, "credentials does not guess a port among several")
        #expect(credentialsAmbiguous.stderr.contains("--profile"))
    }
}
