import FCMEngine
import FCMProfiles
import NIOCore
import NIOPosix
import NIOSSL

/// Where the connection server listens and how.
public struct ServerOptions: Sendable {
    public var bind = "127.0.0.1"
    /// XMPP with direct TLS (0 picks a free port; nil leaves it closed).
    public var ccsPort: Int? = 5235
    /// XMPP without TLS.
    public var ccsPlainPort: Int? = 5236
    public var tls: TLSIdentity?
    public var maxStanzaBytes = 65_536

    public init() {}
}

/// The emulated connection server: the listeners, all on the host's one event loop.
public final class ConnectionServer: @unchecked Sendable {
    public let host: DeviceHost
    let group: MultiThreadedEventLoopGroup
    var channels: [any Channel] = []
    public private(set) var ccsPort: Int?
    public private(set) var ccsPlainPort: Int?
    var connectionCount = 0

    /// Opens the listeners; `startDevice()` then issues the device's first tokens.
    public static func start(
        engine: DeviceEngine, options: ServerOptions, log: @escaping @Sendable (Event) -> Void
    ) async throws -> ConnectionServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let host = DeviceHost(engine: engine, loop: loop, log: log)
        let server = ConnectionServer(host: host, group: group)
        let keys = Dictionary(uniqueKeysWithValues: engine.senders.map { ($0.id, $0.key) })
        do {
            if let port = options.ccsPort {
                guard let tls = options.tls else { throw ServerError.missingTLS }
                let context = try tls.serverContext()
                let channel = try await server.listen(
                    options.bind, port, keys: keys, stanzaLimit: options.maxStanzaBytes, tls: context)
                server.ccsPort = channel.localAddress?.port
            }
            if let port = options.ccsPlainPort {
                let channel = try await server.listen(
                    options.bind, port, keys: keys, stanzaLimit: options.maxStanzaBytes, tls: nil)
                server.ccsPlainPort = channel.localAddress?.port
            }
        } catch {
            try? await server.stop()
            throw error
        }
        return server
    }

    init(host: DeviceHost, group: MultiThreadedEventLoopGroup) {
        self.host = host
        self.group = group
    }

    func listen(_ address: String, _ port: Int, keys: [String: String], stanzaLimit: Int, tls: NIOSSLContext?)
        async throws
        -> any Channel
    {
        let host = self.host
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 1_024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { [self] channel in
                let number = nextNumber()
                let connection = CCSConnection(host: host, number: number, keys: keys, maxStanzaBytes: stanzaLimit)
                do {
                    if let tls { try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls)) }
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

    /// Registers the device (its first tokens go to the log) and plays `timeline`.
    public func startDevice(timeline: [Step] = []) async throws {
        try await host.loop.submit { [host] in
            host.start()
            host.play(timeline)
        }.get()
    }

    /// Runs a command on the device, on its loop.
    public func apply(_ command: Command) async throws {
        try await host.loop.submit { [host] in host.apply(command) }.get()
    }

    public func stop() async throws {
        for channel in channels { try? await channel.close() }
        channels = []
        try await group.shutdownGracefully()
    }
}

public enum ServerError: Error, CustomStringConvertible {
    case missingTLS

    public var description: String {
        switch self {
        case .missingTLS: "the TLS port needs a certificate and key"
        }
    }
}
