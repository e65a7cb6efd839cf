import ArgumentParser

/// `fcm-device`: an emulated FCM/GCM client app instance with its connection server.
@main
struct FCMDevice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fcm-device",
        abstract: "Emulate one Firebase Cloud Messaging / GCM client app instance and its connection server.",
        discussion: """
            With no command, the terminal interface opens on the built-in default device (one sender, \
            online, foreground, echo app server); `fcm-device --profile P` opens a saved device.
            """,
        subcommands: [
            TUICommand.self, ReplayCommand.self, ServeCommand.self, ExecCommand.self, EnvCommand.self,
            CredentialsCommand.self,
            ProfileCommand.self,
            StateCommand.self,
        ],
        defaultSubcommand: TUICommand.self
    )
}
