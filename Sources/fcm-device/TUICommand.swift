import ArgumentParser
import FCMCursesBackend
import FCMProfiles
import Foundation

/// `fcm-device tui [--profile P]`: drive and watch the device by hand.
struct TUICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tui",
        abstract: "Open the terminal interface on a device (the default command).",
        discussion: """
            Without --profile, the built-in default device: one sender, online, in the foreground, \
            with the echo app server. Press ? inside for every key.
            """
    )

    @Option(name: .long, help: "A device profile (YAML) to open; its timeline is not played.")
    var profile: String?

    func run() throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            Diagnostics.write(
                """
                fcm-device tui needs a terminal, and this is not one.
                Headless, use `fcm-device replay PROFILE` (a scenario on a virtual clock).
                """)
            throw ExitCode(1)
        }
        var loaded = try ProfileLoading.load(profile)
        loaded.steps = []
        let status = TUIRunner.run(profile: loaded)
        if status != 0 { throw ExitCode(status) }
    }
}
