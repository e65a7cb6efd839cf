import FCMDoor
import FCMEngine
import FCMXMPP
import NIOCore

/// One app server's connection: bytes in through the XML parser and the XMPP
/// session, what it means handed to the engine (through the host), writes out.
/// Runs on the host's event loop.
final class CCSConnection: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let host: DeviceHost
    /// The id the engine knows this connection by.
    let number: ConnectionID
    let parser: XMLStreamParser
    var session: XMPPSession
    var context: ChannelHandlerContext?
    var isOpen = false
    /// Bytes are being read: writes wait for the one flush at the end of the read.
    var reading = false

    var domain: String { session.domain }

    init(host: DeviceHost, number: ConnectionID, maxStanzaBytes: Int) {
        self.host = host
        self.number = number
        parser = XMLStreamParser(maxStanzaBytes: maxStanzaBytes)
        session = XMPPSession(
            login: { [box = host.box] sender, key in box.findSender(.login(id: sender, key: key)) != nil },
            streamID: String(format: "%016llX", UInt64(number) &* 0x9E37_79B9_7F4A_7C15),
            resource: "fcm-device-\(number)")
    }

    func channelActive(context: ChannelHandlerContext) {
        self.context = context
        isOpen = true
        host.opened(self)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        isOpen = false
        host.closed(self)
        self.context = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard let bytes = buffer.readBytes(length: buffer.readableBytes), session.phase != .closed else { return }
        reading = true
        defer { reading = false }
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
        reading = false
        context.flush()
    }

    func perform(_ outputs: [SessionOutput]) {
        for output in outputs {
            switch output {
            case .write(let text): write(text, flush: false)
            case .restartParser: parser.reset()
            case .authenticated(let sender): host.input(.authenticated(number, sender: sender))
            case .established: host.input(.sessionEstablished(number))
            case .gcm(let json, let stanzaID):
                guard let sender = session.sender else { continue }
                host.input(.received(number, CCSReader.read(json, sender: sender, stanzaID: stanzaID)))
            case .close: close()
            }
        }
        flush()
    }

    func write(_ text: String, flush: Bool = true) {
        guard isOpen, let context else { return }
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        context.write(wrapOutboundOut(buffer), promise: nil)
        if flush { context.flush() }
    }

    func flush() {
        if !reading { context?.flush() }
    }

    /// The engine refused the login (too many connections for the sender).
    func refuseLogin(_ detail: String) {
        write("<failure xmlns=\"\(XMPPSession.saslNamespace)\"><temporary-auth-failure/></failure>", flush: false)
        endStream(condition: "policy-violation", text: detail)
    }

    /// Ends the stream with an error condition and closes.
    func endStream(condition: String, text: String) {
        guard session.phase != .closed else { return }
        perform(session.streamError(condition, text))
    }

    /// Ends the stream normally and closes.
    func endStream() {
        write("</stream:stream>")
        close()
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
