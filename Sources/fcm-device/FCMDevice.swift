import ArgumentParser

/// `fcm-device`: an emulated FCM/GCM client app instance with its connection server.
@main
struct FCMDevice: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm-device",
        abstract: "Emulate one Firebase Cloud Messaging / GCM client app instance and its connection server.",
        discussion: """
            With no command, the built-in default device (one sender, online, foreground, echo app \
            server) is replayed headless and its transcript printed.
            """,
        subcommands: [ReplayCommand.self, ProfileCommand.self],
        defaultSubcommand: ReplayCommand.self
    )
}
