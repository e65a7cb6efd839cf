import ArgumentParser
import FCMConnectionServer
import FCMCursesBackend
import FCMEngine
import FCMProfiles
import FCMSession
import FCMTerminalUI
import Foundation

/// `fcm-device tui [--profile P]`: drive and watch the device by hand, with the
/// connection server's listeners running so real app servers can take part.
struct TUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tui",
        abstract: "Open the terminal interface on a device (the default command).",
        discussion: """
            Without --profile, the built-in default device: one sender, online, in the foreground, \
            with the echo app server. The XMPP and HTTP listeners run as with `serve` (the header shows \
            their ports); --no-listen opens none. Press ? inside for every key.

            With --play P, the TUI plays P's timeline on a virtual clock, paused at +0: Space plays and \
            pauses, . and , step forward and back, + and - change the speed, g goes to a time, Home \
            starts over; each step's note is shown as it plays. Play mode runs the device alone (no \
            listeners): stepping back replays the profile, which real app servers' traffic could not be.
            """
    )

    @Option(name: .long, help: "A device profile (YAML) to open; its timeline is not played.")
    var profile: String?

    @Option(
        name: .long, help: "A profile (YAML) to play in the TUI, step by step: a demo or a walk through a scenario.")
    var play: String?

    @OptionGroup var listen: ListenOptions

    @Flag(name: .customLong("no-listen"), help: "Open no network ports: the device alone.")
    var noListen = false

    /// Where `w` saves sessions: `sessions` in the state folder, out of the way of
    /// whatever folder the TUI was started in.
    var saveFolder: String { (listen.state ?? StateFolder.default) + "/sessions" }

    func validate() throws {
        if play != nil && profile != nil {
            throw ValidationError("give --play P (play P's timeline) or --profile P (open P's device), not both")
        }
        let unread = listen.listenerOptionsGiven
        if play != nil, !unread.isEmpty {
            throw ValidationError(
                "--play runs the device alone, with no ports and no saved state, so \(unread.joined(separator: ", ")) "
                    + "would have no effect; to serve a profile's device, open it with --profile P")
        }
    }

    func run() async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            Diagnostics.write(
                """
                fcm-device tui needs a terminal, and this is not one.
                Headless, use `fcm-device replay PROFILE` (a scenario on a virtual clock) or `fcm-device serve`.
                """)
            throw ExitCode(1)
        }
        if let play {
            let status = TUIRunner.run(playing: try ProfileLoading.load(play), saveFolder: saveFolder)
            if status != 0 { throw ExitCode(status) }
            return
        }
        var loaded = try ProfileLoading.load(profile)
        loaded.steps = []
        if noListen {
            loaded.configuration = loaded.configuration.switched(
                noEcho: listen.noEcho, noDeviceLimits: listen.noDeviceLimits)
            let status = TUIRunner.run(profile: loaded, saveFolder: saveFolder)
            if status != 0 { throw ExitCode(status) }
            return
        }
        let session = try await listen.openSession(loaded, profilePath: profile)
        try await session.start()
        // After the start, which set this run's switches on a resumed device.
        loaded.configuration = session.configuration
        // The TUI keeps the main thread; the server runs on its own threads.
        let status = TUIRunner.run(
            profile: loaded, door: session.link(), saveFolder: saveFolder, note: ListenOptions.mcsWarning(session))
        try await session.stop()
        if status != 0 { throw ExitCode(status) }
    }
}
