import FCMControlAPI
import FCMCredentials
import FCMDoor
import FCMEngine
import FCMHTTPAPI
import FCMStore
import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Where the listeners listen and what they take: read once (from the command line,
/// or a test) and handed through as it is.
public struct Listeners: Sendable {
    public var bind = "127.0.0.1"
    /// XMPP with direct TLS (0 picks a free port; nil leaves it closed).
    public var ccsPort: Int? = 5235
    /// XMPP without TLS.
    public var ccsPlainPort: Int? = 5236
    public var maxStanzaBytes = 65_536
    /// A shorter time for a connection to reach a session than the engine's rule
    /// (`ConnectionRules.loginTimeout`, 30 s), for tests; nil keeps the rule.
    public var loginTimeout: TimeAmount?
    /// The HTTP send APIs (legacy, v1, token endpoint); nil leaves them closed. With
    /// TLS, the port is also an HTTPS proxy for the hosts the SDKs call.
    public var httpPort: Int?
    /// The same APIs over TLS from the first byte (HTTP/2 and HTTP/1.1); nil: closed.
    public var httpsPort: Int?
    /// MCS for real clients (firebase-messaging), TLS from the first byte; nil: closed.
    public var mcsPort: Int?
    /// The MCS port is the default, not one asked for: when it cannot be opened (another
    /// emulator has it) the server goes on without it and says why (`mcsClosedBecause`).
    public var mcsPortIsDefault = false
    /// Refuse service-account assertions signed by keys the emulator did not make.
    public var verifyCredentials = false
    /// The control API's secret; without one it serves loopback binds only.
    public var controlToken: String?

    public init() {}
}

/// Settings that hold the listeners: each listener setting reads and writes through
/// them in place (`options.httpPort`).
@dynamicMemberLookup
public protocol HoldsListeners {
    var listeners: Listeners { get set }
}

extension HoldsListeners {
    /// A listener setting, read and written in place.
    public subscript<Value>(dynamicMember path: WritableKeyPath<Listeners, Value>) -> Value {
        get { listeners[keyPath: path] }
        set { listeners[keyPath: path] = newValue }
    }
}

/// What the connection server serves: the listeners as they were asked for, and what
/// the composition root made for them (TLS, the token endpoint's key, the store).
public struct ServerOptions: HoldsListeners, Sendable {
    public var listeners = Listeners()
    public var tls: (any ServerTLS)?
    /// Verifies the service-account assertions of the token endpoint.
    public var serviceAccountKey: ServiceAccountKey?
    /// Where the device's state is written ahead of every acknowledgement; nil keeps
    /// it in memory only.
    public var store: DeviceStore?
    /// The engine came from `store` (its tokens exist already).
    public var resumed = false

    public init() {}
}

/// The emulated connection server: the XMPP listeners and the device on one event
/// loop, the HTTP send APIs on both of the group's loops, reaching the device on its.
public final class ConnectionServer: @unchecked Sendable {
    public let host: DeviceHost
    /// The event loop the session runs on (the XMPP and MCS listeners' too).
    public let loop: any EventLoop
    /// Replies and stanzas held until the journal is on disk, gathered per event loop.
    let releases: DurableReleases
    /// Every event, numbered, for the control API.
    public let events: EventLog
    let group: MultiThreadedEventLoopGroup
    var channels: [any Channel] = []
    public private(set) var ccsPort: Int?
    public private(set) var ccsPlainPort: Int?
    public private(set) var httpPort: Int?
    public private(set) var httpsPort: Int?
    public private(set) var mcsPort: Int?
    /// Why the default MCS port is closed, when it could not be opened.
    public private(set) var mcsClosedBecause: String?
    public private(set) var bind = "127.0.0.1"
    var http: HTTPListener?
    var https: HTTPListener?
    var connectionCount = 0

    /// What answers on the HTTP port: the send APIs (with the token endpoint and the
    /// HTTPS proxy) and the control API, made by the composition root.
    public struct HTTPServices: Sendable {
        public var send: HTTPSendService
        public var control: ControlService

        public init(send: HTTPSendService, control: ControlService) {
            self.send = send
            self.control = control
        }
    }

    /// Serves a session the composition root made on an event loop of `group`
    /// (`NIOSessionLoop`): opens the listeners `options` name on `group` (the XMPP and
    /// MCS ones on the session's loop, so their connections reach it there);
    /// `startDevice()` then issues the device's first tokens. It decides nothing about
    /// what it serves.
    public static func serve(
        _ host: DeviceHost, events: EventLog, group: MultiThreadedEventLoopGroup, http services: HTTPServices?,
        options: ServerOptions
    ) async throws -> ConnectionServer {
        guard let loop = (host.loop as? NIOSessionLoop)?.eventLoop else {
            preconditionFailure("a served session runs on an event loop of its listeners (NIOSessionLoop)")
        }
        let server = ConnectionServer(host: host, loop: loop, events: events, group: group)
        server.bind = options.bind
        // Real connections are numbered past a profile's own and past those a saved
        // device remembers.
        server.connectionCount = max(
            ConnectionRules.scenarioConnections.upperBound, host.box.read { $0.server.links.byID.keys.max() ?? 0 })
        do {
            if let port = options.ccsPort {
                guard let tls = options.tls else { throw ServerError.missingTLS }
                let context = try tls.ccsContext()
                let channel = try await ServerError.naming("the XMPP (CCS) TLS port", options.bind, port) {
                    try await server.listen(
                        options.bind, port, stanzaLimit: options.maxStanzaBytes, tls: context)
                }
                server.ccsPort = channel.localAddress?.port
            }
            if let port = options.ccsPlainPort {
                let channel = try await ServerError.naming("the XMPP (CCS) plain port", options.bind, port) {
                    try await server.listen(
                        options.bind, port, stanzaLimit: options.maxStanzaBytes, tls: nil)
                }
                server.ccsPlainPort = channel.localAddress?.port
            }
            if let port = options.mcsPort {
                guard let tls = options.tls else { throw ServerError.missingTLS }
                let context = try tls.ccsContext()
                do {
                    let channel = try await ServerError.naming("the MCS port", options.bind, port) {
                        try await server.listen(options.bind, port, tls: context) { [host] number in
                            MCSConnection(host: host, number: number)
                        }
                    }
                    server.mcsPort = channel.localAddress?.port
                } catch let error as ServerError where options.mcsPortIsDefault {
                    server.mcsClosedBecause = error.description
                }
            }
            if let port = options.httpPort {
                guard let services else { throw ServerError.missingServiceAccountKey }
                let https = try options.tls?.httpsContext()
                let listener = try await ServerError.naming("the HTTP port", options.bind, port) {
                    try await HTTPListener.start(
                        service: services.send, control: services.control, releases: server.releases,
                        bind: options.bind,
                        port: port, tls: https, on: group)
                }
                server.http = listener
                server.httpPort = listener.port
                if let httpsPort = options.httpsPort {
                    guard let https else { throw ServerError.missingTLS }
                    let secure = try await ServerError.naming("the HTTPS port", options.bind, httpsPort) {
                        try await HTTPListener.start(
                            service: services.send, control: services.control, releases: server.releases,
                            bind: options.bind, port: httpsPort, tls: https, tlsFromStart: true, on: group)
                    }
                    server.https = secure
                    server.httpsPort = secure.port
                }
            }
        } catch {
            try? await server.stop()
            throw error
        }
        return server
    }

    init(host: DeviceHost, loop: any EventLoop, events: EventLog, group: MultiThreadedEventLoopGroup) {
        self.host = host
        self.loop = loop
        releases = DurableReleases(store: host.box.store)
        self.events = events
        self.group = group
    }

    func listen(
        _ address: String, _ port: Int, stanzaLimit: Int, tls: NIOSSLContext?
    )
        async throws
        -> any Channel
    {
        try await listen(address, port, tls: tls) { [host] number in
            CCSConnection(host: host, number: number, maxStanzaBytes: stanzaLimit)
        }
    }

    /// A listener on the host's loop whose connections are numbered as the engine
    /// knows them and handled by what `handler` makes.
    func listen(
        _ address: String, _ port: Int, tls: NIOSSLContext?,
        handler: @escaping @Sendable (ConnectionID) -> any ChannelHandler & Sendable
    ) async throws -> any Channel {
        let releases = self.releases
        let channel = try await ServerBootstrap(group: loop)
            .serverChannelOption(.backlog, value: 1_024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                let connection = handler(nextNumber())
                do {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
                    try channel.pipeline.syncOperations.addHandler(DurableFlushGate(releases: releases))
                    try channel.pipeline.syncOperations.addHandler(connection)
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            .bind(host: address, port: port).get()
        channels.append(channel)
        return channel
    }

    func nextNumber() -> Int {
        connectionCount += 1
        return connectionCount
    }

    /// Runs a command on the device, through its front door.
    public func apply(_ command: Input) async throws {
        host.apply(command)
        await host.box.durable()
    }

    public func stop() async throws {
        // Long polls and event streams end first, so the HTTP listener can stop.
        events.close()
        await http?.stop()
        await https?.stop()
        http = nil
        https = nil
        for channel in channels { try? await channel.close() }
        channels = []
        // Writes held for the disk are let go while the loops still run.
        await host.box.durable()
        try? await loop.submit { [host] in host.stop() }.get()
        try await group.shutdownGracefully()
        if let store = host.box.store {
            let engine = host.stopAfterItsLoop()
            store.close(final: engine)
        }
    }
}

public enum ServerError: Error, CustomStringConvertible {
    case missingTLS
    case missingServiceAccountKey
    case httpDidNotStart(bind: String, port: Int)
    /// A port could not be opened: which one, and why in plain words.
    case cannotListen(what: String, bind: String, port: Int, reason: String)

    /// Runs `open`; a failure comes back naming the port and saying why.
    static func naming<T>(_ what: String, _ bind: String, _ port: Int, _ open: () async throws -> T) async throws -> T {
        do {
            return try await open()
        } catch let error as ServerError {
            throw error
        } catch let error as IOError {
            throw ServerError.cannotListen(what: what, bind: bind, port: port, reason: reason(errno: error.errnoCode))
        } catch {
            throw ServerError.cannotListen(what: what, bind: bind, port: port, reason: "\(error)")
        }
    }

    static func reason(errno code: Int32) -> String {
        switch code {
        case EADDRINUSE: "it is already in use (another fcm-device, or another program, listens there)"
        case EACCES: "permission denied (ports below 1024 need privileges)"
        case EADDRNOTAVAIL: "this machine has no such address"
        default: String(cString: strerror(code))
        }
    }

    public var description: String {
        switch self {
        case .cannotListen(let what, let bind, let port, let reason):
            "cannot open \(what) \(port) on \(bind): \(reason)"
        case .missingTLS: "the TLS port needs a certificate and key"
        case .missingServiceAccountKey: "the HTTP port needs the service-account key of the token endpoint"
        case .httpDidNotStart(let bind, let port): "the HTTP listener did not start on \(bind):\(port)"
        }
    }
}
