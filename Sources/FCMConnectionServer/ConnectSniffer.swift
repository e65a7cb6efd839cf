import FCMEngine
import FCMHTTPAPI
import NIOCore

/// The first handler on a connection to the HTTP port: it reads the start of the
/// first request. An ordinary request goes on to HTTP/1.1 untouched; `CONNECT` is
/// answered here, `200` for a host the emulator stands in for (the tunnel's bytes
/// then go to TLS) or a refusal. What it read goes on once it is removed.
final class ConnectSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Decision {
        case plain
        case tunnel(host: String)
        case refused
    }

    let decided: EventLoopPromise<Decision>
    let rejected: @Sendable (RejectedRequest) -> Void
    private var buffer: ByteBuffer?
    private var isDecided = false
    private static let connect = Array("CONNECT ".utf8)

    init(decided: EventLoopPromise<Decision>, rejected: @escaping @Sendable (RejectedRequest) -> Void) {
        self.decided = decided
        self.rejected = rejected
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if buffer == nil { buffer = incoming } else { buffer?.writeBuffer(&incoming) }
        if !isDecided { decide(context: context) }
    }

    private func decide(context: ChannelHandlerContext) {
        guard let bytes = buffer?.readableBytesView else { return }
        let compared = min(bytes.count, Self.connect.count)
        guard bytes.prefix(compared).elementsEqual(Self.connect.prefix(compared)) else { return finish(.plain) }
        guard let end = Self.headEnd(bytes) else {
            if bytes.count > ProxyRequest.maxHeadBytes {
                refuse(.refused(status: 431, target: "", reason: "the CONNECT request head is too long"), context)
            }
            return
        }
        let head = String(decoding: bytes.prefix(end), as: UTF8.self)
        buffer?.moveReaderIndex(forwardBy: end)
        let line = head.split(separator: "\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let request = ProxyRequest(requestLine: line)
        guard case .tunnel(let host) = request else { return refuse(request, context) }
        context.writeAndFlush(
            wrapOutboundOut(ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\n")), promise: nil)
        finish(.tunnel(host: host))
    }

    private func refuse(_ request: ProxyRequest, _ context: ChannelHandlerContext) {
        buffer = nil
        if let rejected = request.rejected { self.rejected(rejected) }
        if let reply = request.refusal {
            let phrase = [403: "Forbidden", 431: "Request Header Fields Too Large"][reply.status] ?? "Bad Request"
            var text = "HTTP/1.1 \(reply.status) \(phrase)\r\n"
            for header in reply.headers { text += "\(header.name): \(header.value)\r\n" }
            text += "Content-Length: \(reply.body.utf8.count)\r\n\r\n" + reply.body
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
            context.close(promise: nil)
        }
        finish(.refused)
    }

    private func finish(_ decision: Decision) {
        guard !isDecided else { return }
        isDecided = true
        decided.succeed(decision)
    }

    /// Where the request head ends (after its blank line), if it has.
    static func headEnd(_ bytes: ByteBufferView) -> Int? {
        let crlf: [UInt8] = [13, 10, 13, 10]
        var index = bytes.startIndex
        while index + 4 <= bytes.endIndex {
            if bytes[index..<index + 4].elementsEqual(crlf) { return index + 4 - bytes.startIndex }
            index += 1
        }
        return nil
    }

    func removeHandler(context: ChannelHandlerContext, removalToken: ChannelHandlerContext.RemovalToken) {
        if let buffer, buffer.readableBytes > 0 {
            context.fireChannelRead(wrapInboundOut(buffer))
            context.fireChannelReadComplete()
        }
        buffer = nil
        context.leavePipeline(removalToken: removalToken)
    }

    /// A client that closes its side before a whole request head (the server lets
    /// connections half-close) has nothing to be served: the connection ends. So does
    /// one still undecided when the server stops.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if !isDecided, event is ChannelShouldQuiesceEvent || (event as? ChannelEvent) == .inputClosed {
            buffer = nil
            finish(.refused)
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !isDecided { finish(.refused) }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if !isDecided { finish(.refused) }
    }
}
