import ArgumentParser
import FCMConnectionServer
import FCMEngine
import FCMHTTPAPI
import FCMProfiles
import FCMStore
import Foundation

/// Where the connection server listens: the options `serve` and `tui` share.
struct ListenOptions: ParsableArguments {
    @Option(name: .customLong("ccs-port"), help: "XMPP (CCS) with direct TLS; 0 picks a free port.")
    var ccsPort = 5235

    @Option(name: .customLong("ccs-plain-port"), help: "XMPP (CCS) without TLS; 0 picks a free port.")
    var ccsPlainPort = 5236

    @Option(name: .customLong("http-port"), help: "HTTP send APIs (legacy, v1, token endpoint); 0 picks a free port.")
    var httpPort = 8085

    @Option(help: "The address to listen on.")
    var bind = "127.0.0.1"

    @Option(
        help: """
            Folder for the emulator's state: the device (one SQLite file per profile, NAME.sqlite), \
            the TLS certificate and key, the service-account key. Default: $XDG_STATE_HOME/fcm-device.
            """
    )
    var state: String?

    @Flag(help: "Start the device over: forget what its state file holds (tokens, queues, stored messages).")
    var fresh = false

    @Option(
        name: .customLong("commit-delay-ms"),
        help: ArgumentHelp(
            "Play a slow disk: each write of the state starts this much later (crash tests).", visibility: .hidden))
    var commitDelayMilliseconds = 0

    @Option(name: .customLong("tls-cert"), help: "Your own certificate (PEM) for the TLS port.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "Your own private key (PEM) for the TLS port.")
    var tlsKey: String?

    @Flag(name: .customLong("no-echo"), help: "No built-in app server: upstream waits for a real app server's ack.")
    var noEcho = false

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if !(0...10_000).contains(commitDelayMilliseconds) {
            throw ValidationError("--commit-delay-ms \(commitDelayMilliseconds) is not 0 to 10000")
        }
        for (name, port) in [("--ccs-port", ccsPort), ("--ccs-plain-port", ccsPlainPort), ("--http-port", httpPort)]
        where !(0...65_535).contains(port) {
            throw ValidationError("\(name) \(port) is not a port (0 to 65535)")
        }
    }

    /// Opens the device's state and the listeners; on failure says why on standard
    /// error and exits 2. `profilePath` names the state file (nil: the built-in device).
    func startServer(
        _ profile: Profile, profilePath: String?, log: @escaping @Sendable (Event) -> Void
    ) async throws -> (ConnectionServer, TLSIdentity) {
        var configuration = profile.configuration
        if noEcho { configuration.appServer = .none }
        if bind != "127.0.0.1" && bind != "::1" && bind != "localhost" {
            Diagnostics.write(
                "warning: listening on \(bind), not only this machine; app servers elsewhere can reach it")
        }
        let folder = state ?? StateFolder.default
        let identity: TLSIdentity
        do {
            identity =
                try tlsCert.map { TLSIdentity(certificatePath: $0, keyPath: tlsKey!) } ?? TLSIdentity.inFolder(folder)
        } catch {
            Diagnostics.write("cannot prepare the TLS certificate in \(folder): \(error)")
            throw ExitCode(2)
        }
        var options = ServerOptions()
        options.bind = bind
        options.ccsPort = ccsPort
        options.ccsPlainPort = ccsPlainPort
        options.httpPort = httpPort
        options.tls = identity
        options.serviceAccountKey = try StateFolder.serviceAccountKey(folder)
        let engine: DeviceEngine
        (options.store, engine, options.resumed) = try StateFolder.openDevice(
            folder, profilePath: profilePath, configuration: configuration, seedNamed: profile.hasSeed, fresh: fresh,
            commitDelay: .milliseconds(commitDelayMilliseconds))
        do {
            let server = try await ConnectionServer.start(engine: engine, options: options, log: log)
            return (server, identity)
        } catch {
            options.store?.close(final: engine)
            Diagnostics.write(
                "\(error)\nWith --ccs-port 0 --ccs-plain-port 0 --http-port 0 the emulator picks free ports.")
            throw ExitCode(2)
        }
    }
}
