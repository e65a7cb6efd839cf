import ArgumentParser
import FCMConnectionServer
import FCMEngine
import FCMJSON
import FCMSession
import Foundation

/// `fcm-device env`: the variables that send an unmodified app server's HTTPS calls
/// to a running emulator, for `eval`.
struct EnvCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "env",
        abstract: "Print the variables that point unmodified SDKs at a running emulator (for eval).",
        discussion: """
            Finds the emulator that `serve` or `tui` runs on the state folder (and profile), and prints \
            HTTPS_PROXY (its HTTP port, which tunnels the Google hosts the SDKs call to itself), the CA \
            to trust (SSL_CERT_FILE, REQUESTS_CA_BUNDLE, CURL_CA_BUNDLE, HTTPLIB2_CA_CERTS, \
            NODE_EXTRA_CA_CERTS), \
            NODE_USE_ENV_PROXY=1, NO_PROXY for the emulator's own address, and JAVA_TOOL_OPTIONS with the \
            proxy and a PKCS12 trust store. Use: eval "$(fcm-device env)".
            """
    )

    enum Shell: String, ExpressibleByArgument, CaseIterable {
        case sh, fish
    }

    @Option(help: "The profile the emulator runs. Default: the built-in device, or the only emulator on the folder.")
    var profile: String?

    @Option(help: "The state folder. Default: $XDG_STATE_HOME/fcm-device.")
    var state: String?

    @Option(help: "The shell to write for: sh (also bash, zsh) or fish.")
    var shell: Shell = .sh

    @Flag(help: "One JSON object of the variables instead.")
    var json = false

    func run() throws {
        let folder = state ?? StateFolder.default
        let running: RunningEmulator
        do {
            running = try RunningEmulator.find(folder: folder, profilePath: profile)
        } catch {
            Diagnostics.write("fcm-device env: \(error)")
            throw ExitCode(1)
        }
        let environment = running.proxyEnvironment
        if json {
            print(
                JSONValue.object(JSONObject(environment.variables.map { (key: $0.name, value: .string($0.value)) }))
                    .json)
        } else {
            print(environment.script(fish: shell == .fish))
        }
    }
}
