import FCMEngine
import FCMHTTPAPI
import FCMHTTPPort
import HTTPTypes
import NIOCore
import NIOHTTPTypes
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Serves the send routes (legacy `/fcm/send`, v1 `messages:send`) of an HTTP/1.1
/// connection or of an HTTP/2 stream on its own event loop: the one path every send
/// takes. The request is read here; it meets the faults in scope, then goes to
/// `HTTPSendService.answerSend`, and its reply is written once the device's state is
/// on disk, with no task or suspension in between. `Expect: 100-continue` is
/// answered here, and a body over the limit is refused here. Other routes go on to
/// Hummingbird unchanged; a send that comes while Hummingbird still owes a response
/// on the connection waits for it. The service decides every answer; this only
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
        /// A send whose body passed the limit: read to its end, then refused.
        case discarding(HTTPRequest)
        /// A send read, its reply on its way.
        case answering
        /// A request going on to Hummingbird, part by part (`closes`: it asked to
        /// close the connection, so nothing after it is served).
        case passing(closes: Bool)
    }

    let service: HTTPSendService
    let releases: DurableReleases
    /// This connection's loop's queue of what waits for the journal.
    private var loopReleases: LoopReleases?
    private var state = State.idle
    /// Requests handed to Hummingbird whose responses have not ended yet.
    private var withHummingbird = 0
    /// A send waits (first in `waiting`) until Hummingbird has answered what came before it.
    private var waitsForHummingbird = false
    /// What came while a reply was on its way (a pipelining client), in order: request
    /// parts, and events such as the end of the client's input, an error or a
    /// shutdown, which must not overtake the reply either.
    private var waiting = CircularBuffer<Inbound>()
    /// A read the channel asked for while parts were queued: held, so that a
    /// pipelining client is not read faster than it is answered.
    private var readHeld = false
    /// Hummingbird answered a request with `Connection: close`: nothing after it is served.
    private var finished = false
    /// The channel is one HTTP/2 stream (one request, no `Connection` header).
    private var isStream = false
    /// The `Date` header, formatted once a second.
    private var date = (second: 0, text: "")
    /// This connection's (or stream's) number, and how many requests it has begun.
    private var connection: Int64 = 0
    private var requestsBegun: Int64 = 0
    /// When the send being read or answered began (its head was read).
    private var started: Millis = 0
    /// The send read whose reply is not written yet: abandoned if the client goes.
    private var unanswered: HTTPRequestParts?
    /// Connections and HTTP/2 streams, numbered as they come.
    private static let connectionsAccepted = Atomic<Int64>(0)

    private enum Inbound {
        case part(HTTPRequestPart)
        case event(Any)
        case error(any Error)
    }

    init(service: HTTPSendService, releases: DurableReleases) {
        self.service = service
        self.releases = releases
    }

    func handlerAdded(context: ChannelHandlerContext) {
        loopReleases = releases.queue(on: context.eventLoop)
        // A stream's parent is its HTTP/2 connection, whose own parent is the listener.
        isStream = context.channel.parent?.parent != nil
        connection = Self.connectionsAccepted.add(1, ordering: .relaxed).newValue
    }

    /// A client that goes away before a send's reply abandons it.
    func channelInactive(context: ChannelHandlerContext) {
        noteAbandoned()
        context.fireChannelInactive()
    }

    /// The send waiting for its reply is abandoned (the client closed or reset the
    /// connection): reported, with how long it had waited.
    private func noteAbandoned() {
        guard let request = unanswered else { return }
        unanswered = nil
        service.reportAbandoned(request, waited: service.now() - started)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if isBusy {
            waiting.append(.part(part))
        } else {
            take(part, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A client that closes its end while its send waits has given up on it.
        if case ChannelEvent.inputClosed = event { noteAbandoned() }
        if isBusy { waiting.append(.event(event)) } else { context.fireUserInboundEventTriggered(event) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if isBusy { waiting.append(.error(error)) } else { context.fireErrorCaught(error) }
    }

    /// Reads go on while a reply is on its way (a client that waits for it sends
    /// nothing more), but not while what a pipelining client sent is still queued.
    func read(context: ChannelHandlerContext) {
        if waiting.isEmpty { context.read() } else { readHeld = true }
    }

    /// A send's reply is on its way, or what came behind one still waits: what comes
    /// now waits too. (A send whose body is still being read takes its parts, and an
    /// error or the end of input then goes on at once: the request is incomplete.)
    private var isBusy: Bool {
        if case .answering = state { return true }
        return !waiting.isEmpty
    }

    /// Hummingbird's responses pass here; when the last one it owes ends, a send
    /// waiting behind it is taken.
    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var resume = false
        if case .end = unwrapOutboundIn(data) {
            withHummingbird = max(0, withHummingbird - 1)
            resume = withHummingbird == 0 && waitsForHummingbird
        }
        context.write(data, promise: promise)
        if resume {
            waitsForHummingbird = false
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.execute {
                let (handler, context) = bound.value
                handler.resumeWaiting(context: context)
            }
        }
    }

    private func take(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        guard !finished else { return }
        switch (state, part) {
        case (.idle, .head(let head)):
            guard Self.isSend(head) else { return pass(part, context: context) }
            guard withHummingbird == 0 else {
                waitsForHummingbird = true
                waiting.prepend(.part(part))
                return
            }
            requestsBegun += 1
            started = service.now()
            start(head, context: context)
        case (.reading(let head, var body), .body(var chunk)):
            guard body.readableBytes + chunk.readableBytes <= HTTPSendService.maxBodyBytes else {
                state = .discarding(head)
                return
            }
            body.writeBuffer(&chunk)
            state = .reading(head, body)
        case (.reading(let head, let body), .end):
            answer(head, body: body, context: context)
        case (.discarding(let head), .end):
            state = .answering
            reply(service.refuseTooLarge(stamped(Self.parts(head))), closing: Self.asksToClose(head), context: context)
        case (.discarding, _):
            break
        case (.passing(let closes), .end):
            context.fireChannelRead(wrapInboundOut(part))
            state = .idle
            finished = closes
        default:
            context.fireChannelRead(wrapInboundOut(part))
        }
    }

    /// A send's head: its body is read here. `Expect: 100-continue` is answered now,
    /// or refused with 413 when the announced body is over the limit; any other
    /// expectation is 417. A refusal before the body closes the connection (or ends
    /// the stream), since the client may or may not send the body after it.
    private func start(_ head: HTTPRequest, context: ChannelHandlerContext) {
        if let expectation = head.headerFields[.expect] {
            let refusal: HTTPReply?
            if expectation.lowercased() != "100-continue" {
                refusal = service.refuseExpectation(stamped(Self.parts(head)), expectation)
            } else if let length = head.headerFields[.contentLength].flatMap({ Int($0) }),
                length > HTTPSendService.maxBodyBytes
            {
                refusal = service.refuseTooLarge(stamped(Self.parts(head)))
            } else {
                refusal = nil
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
            if let refusal {
                state = .answering
                return reply(refusal, closing: true, context: context)
            }
        }
        state = .reading(head, context.channel.allocator.buffer(capacity: 0))
    }

    /// Hands a part on to Hummingbird; a head starts a request it owes a response to.
    private func pass(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        if case .head(let head) = part {
            withHummingbird += 1
            state = .passing(closes: Self.asksToClose(head))
        }
        context.fireChannelRead(wrapInboundOut(part))
    }

    static func isSend(_ head: HTTPRequest) -> Bool {
        HTTPSendService.isSend(method: head.method.rawValue, path: target(head).path)
    }

    /// A request target's path and query (empty without one).
    static func target(_ head: HTTPRequest) -> (path: String, query: String) {
        let whole = head.path ?? "/"
        guard let mark = whole.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (whole, "") }
        return (String(whole[..<mark]), String(whole[whole.index(after: mark)...]))
    }

    /// A request as the service reads it.
    static func parts(_ head: HTTPRequest, body: ByteBuffer = ByteBuffer()) -> HTTPRequestParts {
        let (path, query) = target(head)
        return HTTPRequestParts(
            method: head.method.rawValue, path: path, query: query, fields: head.headerFields, body: body)
    }

    /// A request with where and when it began (an HTTP/2 stream's one request has no
    /// place on its connection).
    private func stamped(_ request: HTTPRequestParts) -> HTTPRequestParts {
        var request = request
        request.exchange = HTTPExchange(
            connection: connection, request: isStream ? nil : requestsBegun, started: started)
        return request
    }

    /// A whole send: it meets the faults in scope first, then the service answers it.
    private func answer(_ head: HTTPRequest, body: ByteBuffer, context: ChannelHandlerContext) {
        state = .answering
        let request = stamped(Self.parts(head, body: body))
        unanswered = request
        let closing = Self.asksToClose(head)
        let faults = service.faultsNow(request.path)
        if faults.value.isEmpty, faults.point == 0 {
            return send(request, closing: closing, context: context)
        }
        guard let loopReleases else { return context.close(promise: nil) }
        let plan = HTTPSendService.FaultPlan(faults.value, path: request.path)
        loopReleases.after(faults.point) { [self] in
            guard plan.delay > 0 else { return meet(plan, request: request, closing: closing, context: context) }
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .milliseconds(Int64(plan.delay))) {
                let (handler, context) = bound.value
                handler.meet(plan, request: request, closing: closing, context: context)
            }
        }
    }

    /// The faults' plan, once its delay has passed: its answer (a status, or the
    /// connection's end with no reply), or the send served.
    private func meet(
        _ plan: HTTPSendService.FaultPlan, request: HTTPRequestParts, closing: Bool, context: ChannelHandlerContext
    ) {
        guard context.channel.isActive else { return }
        guard let answer = plan.answer else { return send(request, closing: closing, context: context) }
        if let ending = answer.endsConnection {
            unanswered = nil
            return FaultedConnection.end(context.channel, ending)
        }
        service.reportRejected(request, answer)
        reply(answer, closing: closing, context: context)
    }

    private func send(_ request: HTTPRequestParts, closing: Bool, context: ChannelHandlerContext) {
        guard let loopReleases else { return context.close(promise: nil) }
        let held = service.answerSend(request)
        loopReleases.after(held.point) { [self] in reply(held.value, closing: closing, context: context) }
    }

    private func reply(_ reply: HTTPReply, closing: Bool, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        unanswered = nil
        var fields = HTTPFields()
        for header in reply.headers {
            if let name = HTTPField.Name(header.name) { fields.append(HTTPField(name: name, value: header.value)) }
        }
        let body = ByteBuffer(string: reply.body)
        fields[.contentLength] = String(body.readableBytes)
        fields[.date] = currentDate()
        let closing = closing && !isStream
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

    /// Takes what waited behind a reply, until a send waits again. What went on to
    /// Hummingbird is followed by a read-complete, as parts read from the socket are:
    /// its channel hands reads on only then. A read held meanwhile is let go once
    /// nothing waits.
    private func resumeWaiting(context: ChannelHandlerContext) {
        if !waiting.isEmpty {
            while !waitsForHummingbird, let next = waiting.popFirst() {
                switch next {
                case .part(let part): take(part, context: context)
                case .event(let event): context.fireUserInboundEventTriggered(event)
                case .error(let error): context.fireErrorCaught(error)
                }
                if case .answering = state { break }
            }
            context.fireChannelReadComplete()
        }
        if readHeld, waiting.isEmpty {
            readHeld = false
            context.read()
        }
    }

    /// Whether a request's `Connection` header holds the `close` option.
    static func asksToClose(_ head: HTTPRequest) -> Bool {
        guard let value = head.headerFields[.connection] else { return false }
        return value.split(separator: ",").contains { option in
            option.lowercased().filter { $0 != " " && $0 != "\t" } == "close"
        }
    }

    /// `Date` as HTTP writes it (IMF-fixdate), formatted at most once a second.
    private func currentDate() -> String {
        var now = time(nil)
        guard Int(now) != date.second else { return date.text }
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [Int8](repeating: 0, count: 40)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        date = (Int(now), String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self))
        return date.text
    }
}
