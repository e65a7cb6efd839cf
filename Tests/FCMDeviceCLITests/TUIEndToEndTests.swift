import Foundation
import Testing

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
        for _ in 0..<8 { try tmux.keys("Down") }
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
        #expect(tmux.waitFor("not serving network ports"), show(tmux))
        #expect(tmux.waitFor("─ Server "), show(tmux))
        try tmux.resize(width: 80, height: 24)
        #expect(tmux.waitUntil { !tmux.screen.contains("not serving network ports") }, show(tmux))

        try tmux.keys("q")
        #expect(tmux.exitStatus() == "0")
        #expect(tmux.terminalRestored)
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

    @Test func resizeIsFollowedEvenWithLinesAndColumnsExported() throws {
        let tmux = try Tmux(width: 80, height: 24, environment: ["LINES=24", "COLUMNS=80"])
        #expect(tmux.waitFor("onNewToken"), show(tmux))
        try tmux.resize(width: 200, height: 50)
        #expect(tmux.waitFor("not serving network ports"), show(tmux))
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

    @Test func opensASavedProfile() throws {
        let profile = CLI.profiles.appendingPathComponent("ios-fcm-delivery.yaml").path
        let tmux = try Tmux(width: 80, height: 24, arguments: ["--profile", profile])
        #expect(tmux.waitFor("iPhone 15"), show(tmux))
        #expect(tmux.waitFor("Notification centre 0"), show(tmux))
        try tmux.keys("q")
        #expect(tmux.exitStatus() == "0")
    }
}
