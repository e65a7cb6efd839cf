import Foundation
import Testing

/// The device's state file as a user meets it: a TUI session resumes where the last
/// one stopped, `state` shows it, `--fresh` starts over, and a second emulator on the
/// same state is refused.
@Suite("Saved device state, end to end", .serialized)
struct StateEndToEndTests {
    func show(_ tmux: Tmux) -> Comment { Comment(rawValue: "the screen:\n" + tmux.screen) }

    func saved(_ state: String) throws -> [String: Any] {
        let outcome = try CLI.run(["state", "--state", state, "--json"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [String: Any])
    }

    func token(_ state: String) throws -> String {
        let devices = try #require(try saved(state)["devices"] as? [[String: Any]])
        let tokens = try #require(devices.first?["tokens"] as? [String: String])
        return try #require(tokens["123456789012"])
    }

    @Test func aTUISessionResumesWhereItStoppedAndFreshStartsOver() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-state-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }

        // First session: an upstream message goes out and is acknowledged.
        let first = try Tmux(width: 80, height: 24, state: state)
        #expect(first.waitFor("onNewToken"), show(first))
        try first.keys("s")
        try first.keys("Enter")
        #expect(first.waitFor("appServerAck"), show(first))
        // The clock key moves the device's time on a minute: the batch closes then.
        try first.keys("1")
        #expect(first.waitFor("onMessageSent ids=m-1"), show(first))
        let screen = first.screen
        try first.keys("q")
        #expect(first.exitStatus() == "0")
        let token = try self.token(state)
        #expect(screen.contains(String(token.prefix(11))), Comment(rawValue: screen))
        let firstClock = try #require(try saved(state)["clock"] as? Int)
        #expect(firstClock > 60_000)

        // Second session: the same token, the clock goes on from a minute in.
        let secondStarted = Date()
        let second = try Tmux(width: 80, height: 24, state: state)
        #expect(second.waitFor("tokenResumed"), show(second))
        #expect(second.screen.contains(String(token.prefix(11))), show(second))
        #expect(second.waitFor("+00:01:0"), show(second))
        #expect(!second.screen.contains("onNewToken"), show(second))
        // The next upstream id goes on from the last session's.
        try second.keys("s")
        #expect(second.waitFor("m-2"), show(second))
        try second.keys("Escape")

        // While it runs, another emulator on the same state is refused.
        let other = try CLI.run([
            "serve", "--state", state, "--ccs-port", "0", "--ccs-plain-port", "0", "--http-port", "0",
        ])
        #expect(other.status == 2)
        #expect(other.stderr.contains("is in use by another fcm-device"), "\(other.stderr)")
        Thread.sleep(forTimeInterval: 2)
        try second.keys("n")
        try second.keys("q")
        #expect(second.exitStatus() == "0")
        // The device's clock went on from where the first session left it, for as
        // long as the second one ran (less the time it took to start).
        let secondLasted = Int(Date().timeIntervalSince(secondStarted) * 1_000)
        let secondClock = try #require(try saved(state)["clock"] as? Int)
        #expect(
            secondClock > firstClock + secondLasted - 1_500,
            "clock \(firstClock) ms, then \(secondClock) ms after a session of \(secondLasted) ms")

        // --fresh: a new device, a new token.
        let fresh = try Tmux(width: 80, height: 24, arguments: ["--fresh"], state: state)
        #expect(fresh.waitFor("onNewToken"), show(fresh))
        try fresh.keys("q")
        #expect(fresh.exitStatus() == "0")
        #expect(try self.token(state) != token)
    }

    @Test func stateWithoutASavedDeviceSaysWhereItLooked() throws {
        let outcome = try CLI.run(["state", "--state", "/nonexistent/fcm-state"])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("no saved device at /nonexistent/fcm-state/default.sqlite"))
    }
}
