import ArgumentParser
import FCMConnectionServer
import FCMCredentials
import FCMHTTPAPI
import FCMSession
import Foundation

/// `fcm-device credentials`: a service-account JSON for the HTTP v1 API whose
/// `token_uri` is the emulator's token endpoint.
struct CredentialsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "credentials",
        abstract: "Print a service-account JSON for a sender's project, for SDKs that send with HTTP v1.",
        discussion: """
            The key pair is the emulator's own, kept in the state folder, so `serve` verifies the \
            assertions signed with it and issues bearer tokens. Point the SDK's send URL at \
            http://HOST:PORT/v1/projects/PROJECT/messages:send; its token requests go to token_uri.
            """
    )

    @Option(help: "A device profile (YAML). Default: the built-in device.")
    var profile: String?

    @Option(help: "The sender (ID or project) whose project the account belongs to. Default: the first sender.")
    var sender: String?

    @Option(
        name: .customLong("http-port"),
        help: "The HTTP port `serve` listens on, for token_uri. Default: the running emulator's, else 8085.")
    var httpPort: Int?

    @Option(help: "The host app servers reach the emulator at, for token_uri.")
    var host = "127.0.0.1"

    @Option(help: "The state folder `serve` uses. Default: $XDG_STATE_HOME/fcm-device.")
    var state: String?

    @Option(name: .shortAndLong, help: "Write the JSON to this file (mode 0600) instead of standard output.")
    var output: String?

    @Flag(
        help:
            "Print a signed JWT assertion for the token endpoint instead (valid for an hour), for curl and other hand-made clients."
    )
    var assertion = false

    func validate() throws {
        guard let httpPort else { return }
        guard (1...65_535).contains(httpPort) else {
            throw ValidationError(
                "--http-port \(httpPort) is not a port a token_uri can name (1 to 65535); leave --http-port out "
                    + "and the port of the emulator running on the state folder is used")
        }
    }

    func run() throws {
        let folder = state ?? StateFolder.default
        // An emulator running on the folder says its port (it may have picked a free
        // one) and, when none is named, its profile.
        var running: RunningEmulator?
        if httpPort == nil {
            do {
                running = try RunningEmulator.find(folder: folder, profilePath: profile)
            } catch  where error.ambiguous {
                Diagnostics.write("fcm-device credentials: \(error); or give --http-port")
                throw ExitCode(2)
            } catch {
                running = nil
            }
        }
        let port = httpPort ?? running?.http ?? 8085
        if httpPort == nil, running == nil {
            // Nothing told the port: say what was assumed, and how to point it.
            Diagnostics.write(
                "fcm-device credentials: no emulator is running on \(folder), so token_uri assumes serve's default "
                    + "HTTP port 8085; start the emulator first, or give --http-port PORT (or --state FOLDER)")
        }
        let loaded = try ProfileLoading.load(profile ?? running?.profile)
        let senders = loaded.configuration.senders
        guard
            let chosen = sender.map({ name in senders.first { $0.id == name || $0.project == name } }) ?? senders.first
        else {
            let known = senders.map { sender in sender.project.map { "\(sender.id) (project \($0))" } ?? sender.id }
            Diagnostics.write(
                "no sender \(sender ?? "") in the profile; its senders are: \(known.joined(separator: ", "))")
            throw ExitCode(2)
        }
        let key: ServiceAccountKey
        do {
            key = try StateFolder.serviceAccountKey(folder)
        } catch {
            Diagnostics.write(error.description)
            throw ExitCode(2)
        }
        let project = chosen.project ?? chosen.id
        if assertion {
            print(try JWTAssertion.make(key: key, project: project, now: Date()))
            return
        }
        let json =
            key.credentialsJSON(project: project, tokenURI: "http://\(host):\(port)/token")
            + "\n"
        guard let output else {
            FileHandle.standardOutput.write(Data(json.utf8))
            return
        }
        guard
            FileManager.default.createFile(
                atPath: output, contents: Data(json.utf8), attributes: [.posixPermissions: 0o600])
        else {
            Diagnostics.write("cannot write \(output)")
            throw ExitCode(2)
        }
    }
}
