import FCMHTTPAPI
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import NIOTLS

/// How a connection to one of the emulator's HTTP listeners is served. On the plain
/// port: HTTP/1.1, or, after `CONNECT` to a host the emulator stands in for, TLS
/// with its own certificate and then HTTP/2 or HTTP/1.1 as ALPN chose. On the
/// direct TLS port (`--https-port`): TLS from the first byte, then the same. Every
/// way ends at the same responder.
struct HTTPFrontChannel: ServerChildChannel {
    enum Served {
        case http1(HTTP1Channel.Value)
        case http2(HTTP2Channel.Value)
        case closed
    }

    struct Value: ServerChildChannelValue {
        let served: EventLoopFuture<Served>
        let channel: any Channel
    }

    static let snifferName = "fcm-device.connect-sniffer"

    /// Whether TLS starts at once (the direct TLS port) or only inside a tunnel.
    let tlsFromStart: Bool
    let tls: NIOSSLContext
    let http1: HTTP1Channel
    let http2: HTTP2Channel
    /// Told of refused tunnels and of connections that failed before a request.
    let rejected: @Sendable (RejectedRequest) -> Void

    init(
        tlsFromStart: Bool, tls: NIOSSLContext, responder: @escaping HTTPChannelHandler.Responder,
        rejected: @escaping @Sendable (RejectedRequest) -> Void
    ) {
        self.tlsFromStart = tlsFromStart
        self.tls = tls
        self.rejected = rejected
        http1 = HTTP1Channel(responder: responder)
        http2 = HTTP2Channel(responder: responder)
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        if tlsFromStart {
            return channel.eventLoop.makeCompletedFuture {
                Value(served: try secure(channel, logger: logger, through: "the HTTPS port"), channel: channel)
            }
        }
        let decided = channel.eventLoop.makePromise(of: ConnectSniffer.Decision.self)
        let sniffer = ConnectSniffer(decided: decided, rejected: rejected)
        do {
            try channel.pipeline.syncOperations.addHandler(sniffer, name: Self.snifferName)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let served = decided.futureResult.flatMap { decision -> EventLoopFuture<Served> in
            switch decision {
            case .refused: return channel.eventLoop.makeSucceededFuture(.closed)
            case .plain:
                return http1.setup(channel: channel, logger: logger).flatMap { value in
                    channel.pipeline.removeHandler(name: Self.snifferName).map { .http1(value) }
                }
            case .tunnel(let host):
                do {
                    let served = try secure(channel, logger: logger, through: "the tunnel to \(host)")
                    return channel.pipeline.removeHandler(name: Self.snifferName).flatMap { served }
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
        }
        return channel.eventLoop.makeSucceededFuture(Value(served: served, channel: channel))
    }

    /// TLS with the emulator's certificate, then HTTP/2 or HTTP/1.1 by ALPN. A TLS
    /// failure (a client that speaks none, a name the certificate does not cover) is
    /// reported and ends this connection only.
    func secure(_ channel: any Channel, logger: Logger, through: String) throws -> EventLoopFuture<Served> {
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(NIOSSLServerHandler(context: tls))
        try pipeline.addHandler(TLSFailureReporter(through: through, rejected: rejected))
        let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Served> { result in
            switch result {
            case .negotiated("h2"): http2.setup(channel: channel, logger: logger).map { .http2($0) }
            default: http1.setup(channel: channel, logger: logger).map { .http1($0) }
            }
        }
        try pipeline.addHandler(negotiation)
        return negotiation.protocolNegotiationResult
    }

    func handle(value: Value, logger: Logger) async {
        switch try? await value.served.get() {
        case .http1(let connection)?: await http1.handle(value: connection, logger: logger)
        case .http2(let connection)?: await http2.handle(value: connection, logger: logger)
        case .closed?, nil: try? await value.channel.close()
        }
    }
}

/// Reports the first TLS failure on a connection (as a rejected request, method
/// `TLS`), then lets the connection close.
final class TLSFailureReporter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let through: String
    let rejected: @Sendable (RejectedRequest) -> Void
    private var handshaken = false

    init(through: String, rejected: @escaping @Sendable (RejectedRequest) -> Void) {
        self.through = through
        self.rejected = rejected
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { handshaken = true }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !handshaken {
            handshaken = true
            let reason = "TLS failed on \(through): \(Self.plain(error))"
            rejected(
                RejectedRequest(
                    HTTPRequestParts(method: "TLS", path: through), HTTPReply.text(400, reason)))
        }
        context.fireErrorCaught(error)
    }

    static func plain(_ error: any Error) -> String {
        switch error {
        case NIOSSLError.handshakeFailed(let reason):
            "the handshake failed (\(reason)); is the client speaking TLS, and does it trust the emulator's CA?"
        case let error as BoringSSLError: "\(error)"
        default: "\(error)"
        }
    }
}
