import FCMHTTPAPI
import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Serves the send routes of an HTTP/1.1 connection (legacy `/fcm/send`, v1
/// `messages:send`) on the connection's own event loop: the request is read here and
/// handed to `HTTPSendService.respondDirectly`, and its reply written when the device's
/// state is on disk, with no task or suspension in between. Everything else, a send
/// while faults are in scope, one that asks for `100-continue` or has a body over the
/// limit, and any request while Hummingbird still owes a response on this connection,
/// goes on to Hummingbird unchanged. The service decides every answer; this only
/// carries requests and replies.
final class DirectSendHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum State {
        case idle
        /// A send being read, to be answered here.
        case reading(HTTPRequest, ByteBuffer)
        /// A send read, its reply on its way.
        case answering
        /// A request going on to Hummingbird, part by part.
        case passing
    }

    let service: HTTPSendService
    private var state = State.idle
    /// Requests handed to Hummingbird whose responses have not ended yet.
    private var withHummingbird = 0
    /// Parts that came while a reply was on its way (a pipelining client), in order.
    private var waiting = CircularBuffer<HTTPRequestPart>()

    init(service: HTTPSendService) {
        self.service = service
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .answering = state {
            waiting.append(part)
        } else {
            take(part, context: context)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { withHummingbird = max(0, withHummingbird - 1) }
        context.write(data, promise: promise)
    }

    private func take(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        switch (state, part) {
        case (.idle, .head(let head)):
            if withHummingbird == 0, Self.isDirect(head) {
                state = .reading(head, context.channel.allocator.buffer(capacity: 0))
            } else {
                pass(part, context: context)
            }
        case (.reading(let head, var body), .body(var chunk)):
            guard body.readableBytes + chunk.readableBytes <= HTTPSendService.maxBodyBytes else {
                // Too large to read here: Hummingbird refuses it (413) as it does any other.
                pass(.head(head), context: context)
                pass(.body(body), context: context)
                pass(.body(chunk), context: context)
                return
            }
            body.writeBuffer(&chunk)
            state = .reading(head, body)
        case (.reading(let head, let body), .end):
            answer(head, body: body, context: context)
        case (.passing, .end):
            context.fireChannelRead(wrapInboundOut(part))
            state = .idle
        default:
            context.fireChannelRead(wrapInboundOut(part))
        }
    }

    /// Hands a part on to Hummingbird; a head starts a request it owes a response to.
    private func pass(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        if case .head = part {
            withHummingbird += 1
            state = .passing
        }
        context.fireChannelRead(wrapInboundOut(part))
    }

    static func isDirect(_ head: HTTPRequest) -> Bool {
        guard head.headerFields[.expect] == nil, let target = head.path else { return false }
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0]
        return HTTPSendService.mayRespondDirectly(method: head.method.rawValue, path: String(path))
    }

    private func answer(_ head: HTTPRequest, body: ByteBuffer, context: ChannelHandlerContext) {
        let target = head.path ?? "/"
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var headers: [String: String] = [:]
        for field in head.headerFields where headers[field.name.canonicalName] == nil {
            headers[field.name.canonicalName] = field.value
        }
        let request = HTTPRequestParts(
            method: head.method.rawValue, path: String(pieces[0]), query: pieces.count > 1 ? String(pieces[1]) : "",
            headers: headers, body: Array(body.readableBytesView))
        let closing = head.headerFields[.connection]?.lowercased().contains("close") ?? false
        state = .answering
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let loop = context.eventLoop
        let taken = service.respondDirectly(request) { reply in
            loop.execute {
                let (handler, context) = bound.value
                handler.reply(reply, closing: closing, context: context)
            }
        }
        guard !taken else { return }
        // Faults are in scope, or the device cannot be reached directly: Hummingbird's way.
        state = .idle
        pass(.head(head), context: context)
        pass(.body(body), context: context)
        take(.end(nil), context: context)
        resumeWaiting(context: context)
    }

    private func reply(_ reply: HTTPReply, closing: Bool, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        var fields = HTTPFields()
        for header in reply.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        let body = ByteBuffer(string: reply.body)
        fields[.contentLength] = String(body.readableBytes)
        if closing { fields[.connection] = "close" }
        context.write(
            wrapOutboundOut(.head(HTTPResponse(status: .init(code: reply.status), headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        if closing {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            return
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        state = .idle
        resumeWaiting(context: context)
    }

    /// Takes the parts that waited behind a reply, until one waits again. What went
    /// on to Hummingbird is followed by a read-complete, as parts read from the socket
    /// are: its channel hands reads on only then.
    private func resumeWaiting(context: ChannelHandlerContext) {
        guard !waiting.isEmpty else { return }
        while let part = waiting.popFirst() {
            take(part, context: context)
            if case .answering = state { break }
        }
        context.fireChannelReadComplete()
    }
}
