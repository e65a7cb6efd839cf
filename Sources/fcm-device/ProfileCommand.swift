import ArgumentParser
import FCMProfiles

/// `fcm-device profile …`: work with profile files.
struct ProfileCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "Work with device profiles.",
        subcommands: [Check.self]
    )

    /// `fcm-device profile check P`: validate without running.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a profile: exit 0 when valid, 2 with file:line:column: what is wrong."
        )

        @Argument(help: "The profile (YAML) files to check.")
        var profiles: [String]

        func run() throws {
            var failed = false
            for path in profiles {
                do {
                    let profile = try ProfileParser.load(path: path)
                    print(
                        "\(path): ok (\(profile.configuration.senders.count) sender\(profile.configuration.senders.count == 1 ? "" : "s"), \(profile.steps.count) steps, \(profile.expectationCount) expectations)"
                    )
                } catch {
                    Diagnostics.write(error.description)
                    failed = true
                }
            }
            if failed { throw ExitCode(2) }
        }
    }
}
