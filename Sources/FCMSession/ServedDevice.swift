import FCMConnectionServer
import FCMControlAPI
import FCMCredentials
import FCMDoor
import FCMEngine
import FCMHTTPAPI
import FCMProfiles
import FCMStore
import Foundation
import NIOPosix

/// Where a session listens, and what that decides: the one place that says whether
/// an address is this machine's alone and so whether the control API may open
/// without a secret.
public enum BindPolicy {
    /// Whether `bind` is this machine only.
    public static func isLoopback(_ bind: String) -> Bool { ["127.0.0.1", "::1", "localhost"].contains(bind) }

    /// Why the control API stays closed on `bind` with this secret, or nil when it opens.
    public static func controlClosedReason(bind: String, controlToken: String?) -> String? {
        guard !isLoopback(bind), controlToken == nil else { return nil }
        return "the control API is closed: the emulator listens on \(bind), beyond this machine; "
            + "start it with --control-token SECRET to open it"
    }
}

extension ConnectionServer {
    /// The composition root of a served device: the event log every door writes to,
    /// the host with its front door, the HTTP send APIs and the control API (with the
    /// bearer tokens kept in the state), and the policy for the control API; then the
    /// connection server serves them.
    public static func start(
        engine: DeviceEngine, options: ServerOptions, log: @escaping @Sendable (Event, Int64) -> Void
    ) async throws -> ConnectionServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let events = EventLog()
        let host = DeviceHost(
            engine: engine, loop: NIOSessionLoop(group.next()), store: options.store, resumed: options.resumed
        ) { event in
            // The log's line names the event's place in the event log (`seq`).
            let seq = events.append(event)
            log(event, seq)
            return seq
        }
        if let timeout = options.loginTimeout {
            host.apply(.setLoginTimeout(Millis(timeout.nanoseconds / 1_000_000)))
        }
        var services: HTTPServices?
        do {
            if options.httpPort != nil, let key = options.serviceAccountKey {
                let send = HTTPSendService(
                    key: key, tokens: try accessTokens(kept: options.store),
                    verifyCredentials: options.verifyCredentials,
                    rejected: { [host] refusal in host.apply(.requestRejected(refusal)) },
                    notice: { [host] input in host.apply(input) },
                    controlToken: options.controlToken,
                    controlClosedBecause: BindPolicy.controlClosedReason(
                        bind: options.bind, controlToken: options.controlToken),
                    device: host.gateway)
                // One authentication step for every route of the port, the control API's too.
                let control = ControlService(
                    log: events, authenticator: send.authenticator, device: host.controlGateway)
                services = HTTPServices(send: send, control: control)
            }
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        return try await serve(host, events: events, group: group, http: services, options: options)
    }

    /// Bearer tokens, kept in the state file when there is one: a restarted
    /// emulator still honours the tokens its SDK clients hold.
    static func accessTokens(kept store: DeviceStore?) throws -> AccessTokens {
        guard let store else { return AccessTokens() }
        let saved = try store.savedGrants().map {
            AccessTokens.Grant(
                digest: $0.digest, project: $0.project, expires: Date(timeIntervalSince1970: $0.expires))
        }
        return AccessTokens(saved: saved) { grant in
            // A grant that cannot be kept still works until a restart; after one,
            // the client gets 401 and asks for a new token.
            try? store.saveGrant(
                digest: grant.digest, project: grant.project, expires: grant.expires.timeIntervalSince1970)
        }
    }
}

extension ConnectionServer {
    /// Registers the device (its first tokens go to the log) and plays `timeline`.
    public func startDevice(timeline: [Step] = []) async throws {
        try await loop.submit { [host] in
            host.start()
            host.play(timeline)
        }.get()
    }

    /// The timeline's expectations not reached yet, and the device's time now.
    public func unreachedExpectations() async -> (steps: [Step], now: Millis) {
        (try? await loop.submit { [host] in host.unreachedExpectations }.get()) ?? ([], 0)
    }
}
