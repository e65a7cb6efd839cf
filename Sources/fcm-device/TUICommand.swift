import ArgumentParser
import FCMConnectionServer
import FCMCursesBackend
import FCMEngine
import FCMProfiles
import FCMTerminalUI
import Foundation

/// `fcm-device tui [--profile P]`: drive and watch the device by hand, with the
/// connection server's listeners running so real app servers can take part.
struct TUICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tui",
        abstract: "Open the terminal interface on a device (the default command).",
        discussion: """
            Without --profile, the built-in default device: one sender, online, in the foreground, \
            with the echo app server. The XMPP and HTTP listeners run as with `serve` (the header shows \
            their ports); --no-listen opens none. Press ? inside for every key.
            """
    )

    @Option(name: .long, help: "A device profile (YAML) to open; its timeline is not played.")
    var profile: String?

    @OptionGroup var listen: ListenOptions

    @Flag(name: .customLong("no-listen"), help: "Open no network ports: the device alone.")
    var noListen = false

    func run() async throws {
        guard isatty(STDIN_FILENO) == 1, isatty(STDOUT_FILENO) == 1 else {
            Diagnostics.write(
                """
                fcm-device tui needs a terminal, and this is not one.
                Headless, use `fcm-device replay PROFILE` (a scenario on a virtual clock) or `fcm-device serve`.
                """)
            throw ExitCode(1)
        }
        var loaded = try ProfileLoading.load(profile)
        loaded.steps = []
        if noListen {
            if listen.noEcho { loaded.configuration.appServer = .none }
            let status = TUIRunner.run(profile: loaded)
            if status != 0 { throw ExitCode(status) }
            return
        }
        let inbox = NetworkEvents()
        let (server, _) = try await listen.startServer(loaded, profilePath: profile) { inbox.add($0) }
        loaded.configuration = server.host.box.withEngine { $0.configuration }
        try await server.startDevice()
        let link = NetworkLink(server: server, events: inbox)
        // The TUI keeps the main thread; the server runs on its own threads.
        let status = TUIRunner.run(profile: loaded, link: link)
        try await server.stop()
        if status != 0 { throw ExitCode(status) }
    }
}

/// Events the connection server logged, waiting for the TUI to take them.
final class NetworkEvents: @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [Event] = []

    func add(_ event: Event) { lock.withLock { pending.append(event) } }

    func take() -> [Event] {
        lock.withLock {
            defer { pending = [] }
            return pending
        }
    }
}

/// The TUI's side of a running connection server: one engine, shared under the
/// engine box's lock; what the TUI does reaches app servers through the host.
final class NetworkLink: DeviceLink, @unchecked Sendable {
    let server: ConnectionServer
    let events: NetworkEvents
    let summary: String

    init(server: ConnectionServer, events: NetworkEvents) {
        self.server = server
        self.events = events
        var parts: [String] = []
        if let port = server.ccsPort { parts.append("CCS :\(port)") }
        if let port = server.ccsPlainPort { parts.append(server.ccsPort == nil ? "CCS plain :\(port)" : ":\(port)") }
        if let port = server.httpPort { parts.append("HTTP :\(port)") }
        summary = parts.joined(separator: " ")
    }

    func exchange(_ body: (inout DeviceEngine, [Event]) -> [Event]) {
        let host = server.host
        let (produced, effects) = host.box.withEngine { engine in (body(&engine, events.take()), engine.hasEffects) }
        if !produced.isEmpty || effects {
            // What the screen is about to show is on disk first.
            host.box.store.map { $0.waitUntilDurable($0.appendedSeq) }
            host.loop.execute { host.react(to: produced) }
        }
    }

    func setClockOffset(_ offset: Millis) {
        server.host.clock.moveOn(by: offset - server.host.clock.added)
    }

    func currentEngine() -> DeviceEngine {
        server.host.box.withEngine { $0 }
    }
}
