import FCMConnectionServer
import FCMDoor
import FCMEngine
import FCMHTTPAPI
import FCMJSON
import FCMProfiles
import FCMStore
import Foundation

/// One running device: its saved state, its connection server and listeners, the
/// session's one clock and the TUI's link to it. `serve` and `tui` only parse their
/// arguments, open a session, and stop it.
public final class DeviceSession: Sendable {
    /// How the session listens and where it keeps its state.
    public struct Settings: HoldsListeners, Sendable {
        /// The listeners, as `serve` opens them unless told otherwise (the HTTP port
        /// 8085 open, MCS closed).
        public var listeners: Listeners = {
            var listeners = Listeners()
            listeners.httpPort = 8_085
            return listeners
        }()
        /// The state folder (the device's file, the TLS identity, the service-account key).
        public var stateFolder = StateFolder.default
        /// The profile's file, which names the device's state file (nil: the built-in device).
        public var profilePath: String?
        public var fresh = false
        public var commitDelay: Duration = .zero
        /// Journaled calls between checkpoints of the changed phones.
        public var checkpointEvery = 20_000
        public var tlsCertificate: String?
        public var tlsKey: String?
        /// No built-in app server: upstream waits for a real one's ack.
        public var noEcho = false
        /// Production's per-device limits off, for load tests.
        public var noDeviceLimits = false
        /// What to do when a write of the state fails later on: nothing after it
        /// could be acknowledged, so the process should end.
        public var onWriteFailure: @Sendable (any Error) -> Void = { _ in }

        public init() {}
    }

    public let server: ConnectionServer
    public let identity: TLSIdentity
    /// Events for the TUI, when it is the one watching.
    let inbox: SessionDoor.Inbox

    /// Where the session says it runs, for `fcm-device env`.
    let runningFile: String
    /// The profile it runs (absolute), said in the running file.
    let profilePath: String?

    /// The CA as a PKCS12 trust store, for a JVM.
    public let trustStore: String
    /// The configuration this run asked for: its run switches (`--no-echo`,
    /// `--no-device-limits`) go to a resumed device at the start.
    let wanted: EngineConfiguration

    init(
        server: ConnectionServer, identity: TLSIdentity, inbox: SessionDoor.Inbox, trustStore: String,
        runningFile: String, profilePath: String?, wanted: EngineConfiguration
    ) {
        self.wanted = wanted
        self.profilePath = profilePath.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        self.trustStore = trustStore
        self.server = server
        self.identity = identity
        self.inbox = inbox
        self.runningFile = runningFile
    }

    /// Writes where the session listens beside its state, for `fcm-device env`; the
    /// file goes when the session stops.
    func announce() {
        guard case .object(var object) = listening else { return }
        object.members.append((key: "pid", value: .int(Int(getpid()))))
        object.members.append((key: "bind", value: .string(server.bind)))
        object.members.append((key: "trustStore", value: .string(trustStore)))
        if let profilePath { object.members.append((key: "profile", value: .string(profilePath))) }
        let text = JSONValue.object(object).json + "\n"
        _ = FileManager.default.createFile(atPath: runningFile, contents: Data(text.utf8))
    }

    /// The session's one clock, which the server's timers, the runner and the TUI read.
    public var clock: SessionClock { server.host.clock }

    /// The device's engine configuration as the session runs it (after `--no-echo`).
    public var configuration: EngineConfiguration { server.host.box.read { $0.configuration } }

    /// Opens the device's state and the listeners. Events go to `log`, or to the
    /// TUI's link when `log` is nil. Throws a `SessionError` saying what is wrong.
    public static func open(
        _ profile: Profile, settings: Settings, log: (@Sendable (Event, Int64) -> Void)? = nil
    ) async throws(SessionError) -> DeviceSession {
        let configuration = profile.configuration.switched(
            noEcho: settings.noEcho, noDeviceLimits: settings.noDeviceLimits)
        let folder = settings.stateFolder
        let identity: TLSIdentity
        do {
            identity =
                try settings.tlsCertificate.map { TLSIdentity(certificatePath: $0, keyPath: settings.tlsKey ?? "") }
                ?? TLSIdentity.inFolder(folder)
        } catch {
            throw SessionError("cannot prepare the TLS certificate in \(folder): \(error)")
        }
        var options = ServerOptions()
        options.listeners = settings.listeners
        options.tls = identity
        options.serviceAccountKey = try StateFolder.serviceAccountKey(folder)
        let engine: DeviceEngine
        (options.store, engine, options.resumed) = try StateFolder.openDevice(
            folder, profilePath: settings.profilePath, configuration: configuration, seedNamed: profile.hasSeed,
            fresh: settings.fresh, commitDelay: settings.commitDelay, checkpointEvery: settings.checkpointEvery,
            onWriteFailure: settings.onWriteFailure)
        let inbox = SessionDoor.Inbox()
        do {
            let trustStore = folder + "/ca-truststore.p12"
            // Only JVM clients need it: a certificate file it cannot read is said, not fatal.
            do {
                try TrustStore.write(certificateFrom: identity.trustPath, to: trustStore)
            } catch {
                FileHandle.standardError.write(
                    Data(
                        "warning: no PKCS12 trust store for JVM clients: cannot read \(identity.trustPath): \(error)\n"
                            .utf8))
            }
            let server = try await ConnectionServer.start(
                engine: engine, options: options, log: log ?? { event, _ in inbox.add(event) })
            let session = DeviceSession(
                server: server, identity: identity, inbox: inbox, trustStore: trustStore,
                runningFile: StateFolder.runningPath(folder, profilePath: settings.profilePath),
                profilePath: settings.profilePath, wanted: configuration)
            session.announce()
            return session
        } catch {
            options.store?.close(final: engine)
            throw SessionError(
                "\(error)\nWith --ccs-port 0 --ccs-plain-port 0 --http-port 0 the emulator picks free ports.")
        }
    }

    /// Starts the device (its first tokens, or the resumed ones) and plays `timeline`
    /// on the session's clock.
    public func start(timeline: [Step] = []) async throws {
        // A saved device resumes with the switches of the run that saved it: this
        // run's go in as inputs, so that the journal replays each run as it ran.
        for command in server.host.box.read({ $0.configuration }).switchCommands(to: wanted) {
            try await server.apply(command)
        }
        try await server.startDevice(timeline: timeline)
    }

    /// The TUI's side of the session.
    public func link() -> SessionDoor {
        var parts: [String] = []
        if let port = server.ccsPort { parts.append("CCS :\(port)") }
        if let port = server.ccsPlainPort { parts.append(server.ccsPort == nil ? "CCS plain :\(port)" : ":\(port)") }
        if let port = server.httpPort { parts.append("HTTP :\(port)") }
        // MCS is a segment of its own (after two spaces): the header drops it first
        // when the line is narrow.
        let summary = parts.joined(separator: " ") + (server.mcsPort.map { "  MCS :\($0)" } ?? "")
        return SessionDoor(served: server.host, inbox: inbox, summary: summary)
    }

    /// The first line `serve` prints: where each open listener is (a closed one is
    /// left out: a port of 0 means "pick one" everywhere else).
    public var listening: JSONValue {
        var members: [(key: String, value: JSONValue)] = [(key: "event", value: .string("listening"))]
        for (name, port) in [
            ("ccs", server.ccsPort), ("ccsPlain", server.ccsPlainPort), ("http", server.httpPort),
            ("https", server.httpsPort), ("mcs", server.mcsPort),
        ] {
            if let port { members.append((key: name, value: .int(port))) }
        }
        members.append((key: "tlsCert", value: .string(identity.trustPath)))
        return .object(JSONObject(members))
    }

    /// The variables that send an unmodified app server's HTTPS calls here.
    public var proxyEnvironment: ProxyEnvironment {
        ProxyEnvironment(
            bind: server.bind, port: server.httpPort ?? 0, caFile: identity.trustPath, trustStore: trustStore)
    }

    /// Closes the listeners and saves the device.
    public func stop() async throws {
        try? FileManager.default.removeItem(atPath: runningFile)
        try await server.stop()
    }
}

/// Why a session could not open, in words for a person.
public struct SessionError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
