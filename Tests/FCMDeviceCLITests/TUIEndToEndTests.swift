import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The real binary in tmux, driven by keys, read from the screen. Serialized: each
/// test runs its own tmux server.
@Suite("TUI end to end", .serialized)
struct TUIEndToEndTests {
    func show(_ tmux: Tmux) -> Comment { Comment(rawValue: "the screen:\n" + tmux.screen) }

    @Test func mainFlowFromSendToTapThenResizeAndQuit() throws {
        let tmux = try Tmux(width: 80, height: 24)
        #expect(tmux.waitFor("onNewToken"), show(tmux))

        try tmux.keys("s", "Enter")
        #expect(tmux.waitFor("upstreamForwarded id=m-1"), show(tmux))
        #expect(tmux.waitFor("onMessageSent ids=m-1"), show(tmux))

        try tmux.keys("n")
        #expect(tmux.waitFor("offline"), show(tmux))
        for _ in 0..<21 { try tmux.keys("s", "Enter") }
        #expect(tmux.waitFor("Pending upstream 20/20"), show(tmux))
        #expect(tmux.waitFor("TooManyMessages"), show(tmux))

        try tmux.keys("n", "b")
        #expect(tmux.waitFor("app background"), show(tmux))
        try tmux.keys("p")
        #expect(tmux.waitFor("Push downstream message"), show(tmux))
        for _ in 0..<10 { try tmux.keys("Down") }
        try tmux.literal("room")
        try tmux.keys("Down")
        try tmux.literal("PT-DK")
        try tmux.keys("Enter")
        #expect(tmux.waitFor("Tray 1"), show(tmux))
        #expect(tmux.waitFor("Hello — from the app server"), show(tmux))

        try tmux.keys("t")
        #expect(tmux.waitFor("notificationTapped"), show(tmux))
        #expect(tmux.waitFor("data {room: PT-DK}"), show(tmux))
        #expect(tmux.waitFor("app foreground"), show(tmux))

        try tmux.resize(width: 200, height: 50)
        #expect(tmux.waitFor("app server: echo"), show(tmux))
        #expect(tmux.waitFor("─ Server "), show(tmux))
        try tmux.resize(width: 80, height: 24)
        #expect(tmux.waitUntil { !tmux.screen.contains("app server: echo") }, show(tmux))

        try tmux.keys("q")
        #expect(tmux.exitStatus() == "0")
        #expect(tmux.terminalRestored)
    }

    @Test func playModePlaysTheAndroidTourStepsBackAndSavesAForkThatReplays() throws {
        let tour = CLI.profiles.appendingPathComponent("tour-android.yaml").path
        let tmux = try Tmux(width: 80, height: 24, arguments: ["tui", "--play", tour])
        #expect(tmux.waitFor("step 0/"), show(tmux))
        #expect(tmux.waitFor("paused"), show(tmux))
        try tmux.keys(".")
        #expect(tmux.waitFor("step 1/"), show(tmux))
        try tmux.keys(".", ".")
        #expect(tmux.waitFor("step 3/"), show(tmux))
        try tmux.keys(",")
        #expect(tmux.waitFor("step 2/"), show(tmux))
        // Played at jump speed for a moment, then paused again.
        try tmux.keys("+", "+", "Space")
        #expect(tmux.waitFor("▶ jump"), show(tmux))
        #expect(tmux.waitFor("step 4/"), show(tmux))
        try tmux.keys("Space")
        #expect(tmux.waitFor("paused"), show(tmux))
        // The presenter takes over: the phone goes offline, and the session is saved.
        try tmux.keys("n")
        #expect(tmux.waitFor("forked at step"), show(tmux))
        try tmux.keys("w", "Enter")
        // Saved in the state folder's sessions, not wherever the TUI was started.
        let saved = tmux.folder.appendingPathComponent("state/fcm-device/sessions/session.yaml")
        #expect(tmux.waitUntil { FileManager.default.fileExists(atPath: saved.path) }, show(tmux))
        try tmux.keys("q")
        #expect(tmux.exitStatus() == "0")
        let replay = try CLI.run(["replay", saved.path])
        #expect(replay.status == 0, Comment(rawValue: replay.stdout + replay.stderr))
        #expect(replay.stdout.contains("networkChanged"), Comment(rawValue: replay.stdout))
    }

    @Test func playModeRunsATourToItsEndAndCountsTheExpectations() throws {
        let tour = CLI.profiles.appendingPathComponent("tour-ios.yaml").path
        let tmux = try Tmux(width: 200, height: 50, arguments: ["tui", "--play", tour])
        #expect(tmux.waitFor("step 0/"), show(tmux))
        // Straight to the end: a time past the last step.
        try tmux.keys("g")
        for _ in 0..<12 { try tmux.keys("BSpace") }
        try tmux.keys("3", "0", "d", "Enter")
        #expect(tmux.waitFor("expectations held"), show(tmux))
        #expect(!tmux.screen.contains("expectationFailed"), show(tmux))
        try tmux.keys("Home")
        #expect(tmux.waitFor("step 0/"), show(tmux))
        try tmux.keys("q")
        #expect(tmux.exitStatus() == "0")
    }

    @Test func ctrlCQuitsAndRestoresTheTerminal() throws {
        let tmux = try Tmux(width: 80, height: 24)
        #expect(tmux.waitFor("onNewToken"), show(tmux))
        try tmux.keys("C-c")
        #expect(tmux.exitStatus() == "0")
        #expect(tmux.terminalRestored)
    }

    @Test func sigtermRestoresTheTerminal() throws {
        let tmux = try Tmux(width: 80, height: 24)
        #expect(tmux.waitFor("onNewToken"), show(tmux))
        let pid = try #require(tmux.pid)
        kill(pid, SIGTERM)
        #expect(tmux.exitStatus() == "143")
        #expect(tmux.terminalRestored)
    }

    @Test func anAppServerSendingOverHTTPShowsUpInTheTUI() async throws {
        let tmux = try Tmux(width: 80, height: 24)
        #expect(tmux.waitFor("HTTP :"), show(tmux))
        let port = try #require(
            tmux.screen.firstMatch(of: /HTTP :([0-9]+)/).flatMap { Int($0.output.1) }, show(tmux))
        // The user copies the token out of the TUI: senders pane, Enter, w.
        try tmux.keys("BTab", "BTab", "Enter")
        #expect(tmux.waitFor("Token of"), show(tmux))
        try tmux.keys("w")
        let tokenFile = tmux.folder.appendingPathComponent("token-123456789012.txt")
        #expect(tmux.waitUntil { FileManager.default.fileExists(atPath: tokenFile.path) }, show(tmux))
        let token = try String(contentsOf: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)

        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/fcm/send")!)
        request.httpMethod = "POST"
        request.setValue("key=demo-server-key", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"to":"\#(token)","data":{"via":"http"}}"#.utf8)
        let (body, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: body, as: UTF8.self).contains(#""success":1"#))
        #expect(tmux.waitFor("data {via: http}"), show(tmux))
        #expect(tmux.waitFor("downstreamAccepted"), show(tmux))

        try tmux.keys("q")
        #expect(tmux.exitStatus() == "0")
        #expect(tmux.terminalRestored)
    }

    @Test func resizeIsFollowedEvenWithLinesAndColumnsExported() throws {
        let tmux = try Tmux(width: 80, height: 24, environment: ["LINES=24", "COLUMNS=80"])
        #expect(tmux.waitFor("onNewToken"), show(tmux))
        try tmux.resize(width: 200, height: 50)
        #expect(tmux.waitFor("app server: echo"), show(tmux))
        try tmux.keys("q")
        #expect(tmux.exitStatus() == "0")
    }

    @Test func aCrashRestoresTheTerminalAndStillCrashes() throws {
        let tmux = try Tmux(width: 80, height: 24)
        #expect(tmux.waitFor("onNewToken"), show(tmux))
        let pid = try #require(tmux.pid)
        kill(pid, SIGSEGV)
        #expect(tmux.exitStatus() == "139")
        #expect(tmux.terminalRestored)
    }

    @Test func helpOpensOverTheScreen() throws {
        let tmux = try Tmux(width: 80, height: 24)
        #expect(tmux.waitFor("onNewToken"), show(tmux))
        try tmux.keys("?")
        #expect(tmux.waitFor("move the clock on 1 minute"), show(tmux))
        try tmux.keys("Escape", "q")
        #expect(tmux.exitStatus() == "0")
    }

    @Test func severalPhonesAreListedShownSteppedThroughAndJoined() throws {
        let profile = CLI.profiles.appendingPathComponent("topic-fan-out.yaml").path
        let tmux = try Tmux(width: 80, height: 24, arguments: ["--profile", profile])
        #expect(tmux.waitFor("pixel (1/3, v lists)"), show(tmux))
        #expect(tmux.waitFor("[tablet] onNewToken"), show(tmux))

        try tmux.keys("v")
        #expect(tmux.waitFor("Devices 3 · showing pixel"), show(tmux))
        #expect(tmux.waitFor("Esc close"), show(tmux))
        try tmux.keys("Down", "Enter")
        #expect(tmux.waitFor("iphone (2/3, v lists)"), show(tmux))
        try tmux.keys("]")
        #expect(tmux.waitFor("tablet (3/3, v lists)"), show(tmux))

        // Keys act on the phone shown: the tablet goes offline, the others stay online.
        try tmux.keys("n")
        #expect(tmux.waitFor("[tablet] networkChanged"), show(tmux))
        try tmux.keys("v")
        #expect(tmux.waitUntil { tmux.screen.contains("tablet") && tmux.screen.contains("offline") }, show(tmux))

        try tmux.keys("a")
        #expect(tmux.waitFor("Add a device"), show(tmux))
        try tmux.keys("Enter")
        #expect(tmux.waitFor("device-4 (4/4, v lists)"), show(tmux))
        #expect(tmux.waitFor("[device-4] deviceAdded"), show(tmux))

        try tmux.keys("q")
        #expect(tmux.exitStatus() == "0")
        #expect(tmux.terminalRestored)
    }

    @Test func opensASavedProfile() throws {
        let profile = CLI.profiles.appendingPathComponent("ios-fcm-delivery.yaml").path
        let tmux = try Tmux(width: 80, height: 24, arguments: ["--profile", profile])
        #expect(tmux.waitFor("iPhone 15"), show(tmux))
        #expect(tmux.waitFor("Notification centre 0"), show(tmux))
        try tmux.keys("q")
        #expect(tmux.exitStatus() == "0")
    }
}
