import ArgumentParser
import Foundation

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
        version: "fcm-device \(FCMDevice.version)",
        subcommands: [
            TUICommand.self, ReplayCommand.self, ServeCommand.self, ExecCommand.self, EnvCommand.self,
            CredentialsCommand.self,
            ProfileCommand.self,
            StateCommand.self,
        ],
        defaultSubcommand: TUICommand.self
    )

    /// The product's version, which `--version` answers.
    static let version = "0.1.0"

    /// A mistyped command is named as one (`fcm-device server`: did you mean serve?)
    /// rather than taken as the TUI's argument; everything else runs as parsed.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        AllocatorCache.restartWithLargerCache(arguments: arguments)
        let commands = configuration.subcommands.map { $0._commandName }
        if let first = arguments.first, let problem = UnknownCommand.problem(first, commands: commands) {
            FileHandle.standardError.write(Data(problem.utf8))
            Foundation.exit(ExitCode.validationFailure.rawValue)
        }
        await main(arguments)
    }
}
