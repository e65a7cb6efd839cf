import FCMEngine
import FCMHTTPAPI
import FCMHTTPPort
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOHTTP2
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
        service: HTTPSendService, releases: DurableReleases, rejected: @escaping @Sendable (RejectedRequest) -> Void
    ) {
        self.tlsFromStart = tlsFromStart
        self.tls = tls
        self.rejected = rejected
        http1 = HTTP1Channel(responder: responder, configuration: .directSends(service, releases: releases))
        http2 = HTTP2Channel(
            responder: responder,
            configuration: .init(streamConfiguration: .directSends(service, releases: releases)))
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
        try pipeline.addHandler(FailureReporter(protocol: "TLS", through: through, rejected: rejected))
        let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Served> { result in
            switch result {
            case .negotiated("h2"):
                http2.setup(channel: channel, logger: logger).flatMapThrowing { connection in
                    // Right after the HTTP/2 handler (the connection manager behind it
                    // swallows errors): a client that breaks the protocol is reported.
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(
                        FailureReporter(protocol: "HTTP/2", through: through, rejected: rejected),
                        position: .after(try operations.handler(type: NIOHTTP2Handler.self)))
                    return .http2(connection)
                }
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

/// Reports the first failure of a protocol on a connection (the TLS handshake, or
/// HTTP/2 framing) as a rejected request whose method names the protocol, then lets
/// the connection close. Only that connection is affected.
final class FailureReporter: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny

    let name: String
    let through: String
    let rejected: @Sendable (RejectedRequest) -> Void
    /// TLS failures count until the handshake is done; HTTP/2 ones at any time.
    private var watching = true
    /// How long a TLS client may take over its handshake.
    static let handshakeTimeout = TimeAmount.seconds(10)
    private var deadline: Scheduled<Void>?

    init(protocol name: String, through: String, rejected: @escaping @Sendable (RejectedRequest) -> Void) {
        self.name = name
        self.through = through
        self.rejected = rejected
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    /// A TLS client that does not finish its handshake in time, or before the server
    /// stops, is closed: it would otherwise hold the connection (and the stop) forever.
    func handlerAdded(context: ChannelHandlerContext) {
        guard name == "TLS" else { return }
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: Self.handshakeTimeout) {
            let (reporter, context) = bound.value
            reporter.giveUp(context, "the client did not finish its TLS handshake within 10 s")
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func giveUp(_ context: ChannelHandlerContext, _ why: String) {
        guard watching else { return }
        watching = false
        rejected(
            RejectedRequest(
                HTTPRequestParts(method: name, path: through),
                HTTPReply.text(400, "\(name) failed on \(through): \(why)")))
        context.close(promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if name == "TLS", case TLSUserEvent.handshakeCompleted = event {
            watching = false
            deadline?.cancel()
        }
        if name == "TLS", watching, event is ChannelShouldQuiesceEvent {
            return giveUp(context, "the server stopped before the client finished its TLS handshake")
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if watching, Self.isProtocolFailure(error, of: name) {
            watching = false
            let reason = "\(name) failed on \(through): \(Self.plain(error))"
            rejected(RejectedRequest(HTTPRequestParts(method: name, path: through), HTTPReply.text(400, reason)))
        }
        context.fireErrorCaught(error)
    }

    /// A client that goes away (a reset socket, TLS left without `close_notify`) is
    /// not a failure of the protocol; HTTP/2 reports only HTTP/2's own errors.
    static func isProtocolFailure(_ error: any Error, of name: String) -> Bool {
        if error is IOError { return false }
        if case NIOSSLError.uncleanShutdown = error { return false }
        return name != "HTTP/2" || error is any NIOHTTP2Error
    }

    static func plain(_ error: any Error) -> String {
        switch error {
        case NIOSSLError.handshakeFailed(let reason):
            "the handshake failed (\(reason)); is the client speaking TLS, and does it trust the emulator's CA?"
        default: "\(error)"
        }
    }
}

extension HTTP1Channel.Configuration {
    /// HTTP/1.1 connections and HTTP/2 streams with the send routes served on the
    /// connection's event loop.
    static func directSends(_ service: HTTPSendService, releases: DurableReleases) -> Self {
        .init(additionalChannelHandlers: [DirectSendHandler(service: service, releases: releases)])
    }
}
