import NIOCore

/// One app server on the HTTP legacy API: keep-alive POSTs one after another,
/// `total` of them, counting 200 replies.
final class HTTPLoadClient: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let request: String
    let total: Int
    let finished: EventLoopPromise<Void>
    var sent = 0
    private(set) var succeeded = 0
    var pending: [UInt8] = []

    init(token: String, key: String, total: Int, loop: any EventLoop) {
        let body = #"{"to":"\#(token)","data":{"soak":"1"}}"#
        request =
            "POST /fcm/send HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: key=\(key)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        self.total = total
        finished = loop.makePromise()
    }

    func channelActive(context: ChannelHandlerContext) {
        if total == 0 { finished.succeed() } else { next(context) }
    }

    func next(_ context: ChannelHandlerContext) {
        sent += 1
        var buffer = context.channel.allocator.buffer(capacity: request.utf8.count)
        buffer.writeString(request)
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        pending += buffer.readBytes(length: buffer.readableBytes) ?? []
        // One reply at a time: the head, then Content-Length bytes of body.
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = pending.firstRange(of: separator) else { return }
        let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self).lowercased()
        let length =
            head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        guard pending.count >= end.upperBound + length else { return }
        if head.hasPrefix("http/1.1 200") { succeeded += 1 }
        pending.removeFirst(end.upperBound + length)
        if sent < total { next(context) } else { finished.succeed() }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finished.fail(error)
        context.close(promise: nil)
    }
}
