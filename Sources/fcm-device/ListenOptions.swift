import ArgumentParser
import FCMConnectionServer
import FCMEngine
import FCMHTTPAPI
import FCMProfiles
import FCMSession
import Foundation

/// Where the connection server listens: the options `serve` and `tui` share.
struct ListenOptions: ParsableArguments {
    @Option(
        name: .customLong("ccs-port"),
        help: "XMPP (CCS) with direct TLS; 0 picks a free port. Default: 5235 (exec: a free port).")
    var ccsPortOption: Int?

    @Option(
        name: .customLong("ccs-plain-port"),
        help: "XMPP (CCS) without TLS; 0 picks a free port. Default: 5236 (exec: a free port).")
    var ccsPlainPortOption: Int?

    @Option(
        name: .customLong("http-port"),
        help:
            "HTTP send APIs (legacy, v1, token endpoint) and the control API; 0 picks a free port. Default: 8085 (exec: a free port)."
    )
    var httpPortOption: Int?

    @Option(
        name: .customLong("https-port"),
        help: """
            The same HTTP APIs over TLS from the first byte, HTTP/2 or HTTP/1.1 by ALPN, for clients that \
            ignore proxies (send fcm.googleapis.com to 127.0.0.1 by name, with this port as 443); 0 picks \
            a free port. Default: closed.
            """)
    var httpsPort: Int?

    @Option(
        name: .customLong("mcs-port"),
        help: """
            MCS, where real clients (firebase-messaging) receive, TLS from the first byte with a certificate \
            for mtalk.google.com; 0 picks a free port. Default: 5228 (exec: a free port); when 5228 is taken \
            and the port was not asked for, serve goes on without it and says so.
            """)
    var mcsPortOption: Int?

    @Flag(
        name: .customLong("verify-credentials"),
        help: """
            Accept only service-account assertions signed with the emulator's own key (fcm-device \
            credentials). Without it a real project's service account is accepted too, unverified.
            """)
    var verifyCredentials = false

    /// Whether ports left unnamed are free ones (`exec`) rather than the usual ones.
    var freePortsByDefault = false

    /// The options' long names (an unknown one is answered with the closest).
    static let optionNames = [
        "--ccs-port", "--ccs-plain-port", "--http-port", "--https-port", "--mcs-port", "--verify-credentials", "--bind",
        "--state",
        "--fresh", "--commit-delay-ms", "--checkpoint-every", "--tls-cert", "--tls-key", "--no-echo",
        "--no-device-limits", "--control-token",
    ]

    var ccsPort: Int { ccsPortOption ?? (freePortsByDefault ? 0 : 5235) }
    var ccsPlainPort: Int { ccsPlainPortOption ?? (freePortsByDefault ? 0 : 5236) }
    var httpPort: Int { httpPortOption ?? (freePortsByDefault ? 0 : 8085) }
    var mcsPort: Int { mcsPortOption ?? (freePortsByDefault ? 0 : 5228) }

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

    @Option(
        name: .customLong("checkpoint-every"),
        help: ArgumentHelp(
            "Write a checkpoint of the changed phones every N journaled calls (crash tests).", visibility: .hidden))
    var checkpointEvery = 20_000

    @Option(name: .customLong("tls-cert"), help: "Your own certificate (PEM) for the TLS port.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "Your own private key (PEM) for the TLS port.")
    var tlsKey: String?

    @Flag(name: .customLong("no-echo"), help: "No built-in app server: upstream waits for a real app server's ack.")
    var noEcho = false

    @Flag(
        name: .customLong("no-device-limits"),
        help: """
            Turn off production's per-device limits (240 messages a minute and 5,000 an hour to one Android \
            phone; collapsible throttling), for load tests.
            """)
    var noDeviceLimits = false

    @Option(
        name: .customLong("control-token"),
        help: """
            A secret the control API (/emulator/v1/…) then requires as Authorization: Bearer TOKEN. \
            Needed when --bind is not a loopback address; without it the control API is closed there.
            """)
    var controlToken: String?

    /// The options given that only a session with listeners reads (`tui --play` has none).
    var listenerOptionsGiven: [String] {
        let given: [(String, Bool)] = [
            ("--ccs-port", ccsPortOption != nil), ("--ccs-plain-port", ccsPlainPortOption != nil),
            ("--http-port", httpPortOption != nil), ("--https-port", httpsPort != nil),
            ("--mcs-port", mcsPortOption != nil),
            ("--verify-credentials", verifyCredentials), ("--bind", bind != "127.0.0.1"), ("--state", state != nil),
            ("--fresh", fresh), ("--tls-cert", tlsCert != nil), ("--tls-key", tlsKey != nil),
            ("--control-token", controlToken != nil), ("--no-echo", noEcho),
            ("--no-device-limits", noDeviceLimits),
        ]
        return given.filter(\.1).map(\.0)
    }

    func validate() throws {
        if (tlsCert == nil) != (tlsKey == nil) { throw ValidationError("--tls-cert and --tls-key go together") }
        if let controlToken, controlToken.count < 8 {
            throw ValidationError("--control-token must be at least 8 characters")
        }
        if checkpointEvery < 1 {
            throw ValidationError("--checkpoint-every \(checkpointEvery) is not a positive number of calls")
        }
        if !(0...10_000).contains(commitDelayMilliseconds) {
            throw ValidationError("--commit-delay-ms \(commitDelayMilliseconds) is not 0 to 10000")
        }
        let ports = [
            ("--ccs-port", ccsPort), ("--ccs-plain-port", ccsPlainPort), ("--http-port", httpPort),
            ("--https-port", httpsPort ?? 0), ("--mcs-port", mcsPort),
        ]
        for (name, port) in ports where !(0...65_535).contains(port) {
            throw ValidationError("\(name) \(port) is not a port (0 to 65535)")
        }
    }

    /// Opens the device's session: its state and the listeners; on failure says why
    /// on standard error and exits 2. `profilePath` names the state file (nil: the
    /// built-in device); events go to `log`, or to the TUI's link.
    func openSession(
        _ profile: Profile, profilePath: String?, log: (@Sendable (Event, Int64) -> Void)? = nil
    ) async throws -> DeviceSession {
        if !BindPolicy.isLoopback(bind) {
            Diagnostics.write(
                "warning: listening on \(bind), not only this machine; app servers elsewhere can reach it")
        }
        var settings = DeviceSession.Settings()
        settings.bind = bind
        settings.ccsPort = ccsPort
        settings.ccsPlainPort = ccsPlainPort
        settings.httpPort = httpPort
        settings.httpsPort = httpsPort
        settings.mcsPort = mcsPort
        settings.mcsPortIsDefault = mcsPortOption == nil
        settings.verifyCredentials = verifyCredentials
        settings.stateFolder = state ?? StateFolder.default
        settings.profilePath = profilePath
        settings.fresh = fresh
        settings.commitDelay = .milliseconds(commitDelayMilliseconds)
        settings.checkpointEvery = checkpointEvery
        settings.tlsCertificate = tlsCert
        settings.tlsKey = tlsKey
        settings.noEcho = noEcho
        settings.noDeviceLimits = noDeviceLimits
        settings.controlToken = controlToken
        settings.onWriteFailure = { error in
            Diagnostics.write("fcm-device: \(error); stopping, since nothing more can be acknowledged")
            Foundation.exit(3)
        }
        do {
            let session = try await DeviceSession.open(profile, settings: settings, log: log)
            if let warning = Self.mcsWarning(session) { Diagnostics.write("warning: " + warning) }
            return session
        } catch {
            Diagnostics.write(error.description)
            throw ExitCode(2)
        }
    }

    /// Why real clients cannot connect, when the default MCS port was taken: said on
    /// standard error, and in the TUI's status line as it opens.
    static func mcsWarning(_ session: DeviceSession) -> String? {
        session.server.mcsClosedBecause.map { "\($0); MCS (real clients) is closed: give --mcs-port 0 for a free port" }
    }
}
