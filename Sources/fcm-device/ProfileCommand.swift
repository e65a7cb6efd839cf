import ArgumentParser
import FCMProfiles
import FCMSession

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

        /// `1 step`, `3 steps`.
        static func count(_ number: Int, _ noun: String) -> String {
            "\(number) \(noun)\(number == 1 ? "" : "s")"
        }

        func run() throws {
            var failed = false
            for path in profiles {
                do {
                    let profile = try ProfileParser.load(path: path)
                    let configuration = profile.configuration
                    let counts = [
                        Self.count(configuration.startingDeviceCount, "device"),
                        Self.count(configuration.senders.count, "sender"), Self.count(profile.steps.count, "step"),
                        Self.count(profile.expectationCount, "expectation"),
                    ]
                    print("\(path): ok (\(counts.joined(separator: ", ")))")
                } catch {
                    Diagnostics.write(error.description)
                    failed = true
                }
            }
            if failed { throw ExitCode(2) }
        }
    }
}
