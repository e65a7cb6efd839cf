import FCMEngine
import FCMXMPP
import NIOCore

/// One app server's connection: bytes in through the XML parser and the XMPP
/// session, writes out. Runs on the host's event loop.
final class CCSConnection: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let host: DeviceHost
    let number: Int
    let parser: XMLStreamParser
    var session: XMPPSession
    var context: ChannelHandlerContext?
    var isOpen = false
    var draining = false
    /// Upstream may go out: the session is established (and a moment has passed).
    var acceptsUpstream = false
    /// Upstream ids sent on this connection and not yet acknowledged.
    var unackedUpstream: Set<String> = []
    /// CCS stops sending upstream on a connection with this many unacknowledged.
    static let unackedUpstreamLimit = 100
    /// How long a draining connection stays open for replies before it closes.
    static let drainGrace = TimeAmount.seconds(1)

    var sender: String? { session.sender }
    /// Authenticated, bound, open and not draining.
    var isReady: Bool { isOpen && !draining && session.phase == .ready }
    var domain: String { session.domain }

    /// How long a connection may take to reach a session.
    let loginTimeout: TimeAmount

    init(
        host: DeviceHost, number: Int, keys: [String: String], maxStanzaBytes: Int,
        loginTimeout: TimeAmount = .seconds(30)
    ) {
        self.host = host
        self.number = number
        self.loginTimeout = loginTimeout
        parser = XMLStreamParser(maxStanzaBytes: maxStanzaBytes)
        session = XMPPSession(
            keys: keys, streamID: String(format: "%016llX", UInt64(number) &* 0x9E37_79B9_7F4A_7C15),
            resource: "fcm-device-\(number)")
    }

    func channelActive(context: ChannelHandlerContext) {
        self.context = context
        isOpen = true
        let seconds = Double(loginTimeout.nanoseconds) / 1e9
        context.eventLoop.scheduleTask(in: loginTimeout) { [self] in
            guard isOpen, session.phase != .ready, session.phase != .closed else { return }
            perform(session.streamError("connection-timeout", "no session within \(seconds) seconds of connecting"))
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isOpen = false
        acceptsUpstream = false
        host.unregister(self)
        self.context = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard let bytes = buffer.readBytes(length: buffer.readableBytes), session.phase != .closed else { return }
        let events: [XMLStreamEvent]
        do {
            events = try parser.feed(bytes)
        } catch {
            perform(session.streamError(error.condition, error.detail))
            return
        }
        for event in events {
            perform(session.handle(event))
            if session.phase == .closed { break }
        }
        context.flush()
    }

    func perform(_ outputs: [SessionOutput]) {
        for output in outputs {
            switch output {
            case .write(let text): write(text, flush: false)
            case .restartParser: parser.reset()
            case .authenticated(let sender):
                guard host.register(self, sender: sender) else {
                    write(
                        "<failure xmlns=\"\(XMPPSession.saslNamespace)\"><temporary-auth-failure/></failure>",
                        flush: false)
                    perform(session.streamError("policy-violation", "too many connections for sender \(sender)"))
                    return
                }
            case .established: host.established(self)
            case .gcm(let json, let stanzaID):
                if let reply = host.receive(json, stanzaID: stanzaID, from: self) { write(reply, flush: false) }
            case .close: close()
            }
        }
        context?.flush()
    }

    func write(_ text: String, flush: Bool = true) {
        guard isOpen, let context else { return }
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        context.write(wrapOutboundOut(buffer), promise: nil)
        if flush { context.flush() }
    }

    func sendUpstream(_ message: UpstreamMessage, token: String, category: String) {
        unackedUpstream.insert(message.id)
        write(
            CCSOutbound.upstream(
                sender: message.sender, domain: domain, token: token, messageID: message.id, category: category,
                data: message.data, timeToLive: message.timeToLive))
    }

    func drain() {
        draining = true
        acceptsUpstream = false
        write(CCSOutbound.draining)
        host.loop.scheduleTask(in: Self.drainGrace) { [self] in
            write("</stream:stream>")
            close()
        }
    }

    func close() {
        guard isOpen, let context else { return }
        context.flush()
        context.close(promise: nil)
    }

    /// A client that does not read its replies stops being read: its acks would
    /// otherwise pile up in memory without bound. Reading resumes once it catches up.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        let writable = context.channel.isWritable
        context.channel.setOption(ChannelOptions.autoRead, value: writable).whenComplete { _ in }
        if writable { context.read() }
        context.fireChannelWritabilityChanged()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
