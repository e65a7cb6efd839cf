import Foundation
import NIOCore

/// One app server on one connection: negotiates like a CCS client, then sends
/// `total` downstream messages with at most `window` unacknowledged, counting acks.
final class LoadClient: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    enum Phase { case features, success, restartFeatures, session, running }

    let sender: String
    let key: String
    let token: String
    let total: Int
    let window: Int
    let ready: EventLoopPromise<Void>
    let finished: EventLoopPromise<Void>
    var phase = Phase.features
    var text = ""
    var sent = 0
    var acked = 0
    var tail = ""
    var started = false
    static let marker = #""message_type":"ack""#
    static let header =
        "<stream:stream to='fcm.googleapis.com' xmlns:stream='http://etherx.jabber.org/streams' xmlns='jabber:client' version='1.0'>"

    init(sender: String, key: String, token: String, total: Int, window: Int, loop: any EventLoop) {
        self.sender = sender
        self.key = key
        self.token = token
        self.total = total
        self.window = window
        ready = loop.makePromise()
        finished = loop.makePromise()
    }

    func channelActive(context: ChannelHandlerContext) {
        write(context, Self.header)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let chunk = unwrapInboundIn(data).getString(at: 0, length: unwrapInboundIn(data).readableBytes) ?? ""
        guard phase == .running else { return negotiate(context, chunk) }
        let combined = tail + chunk
        acked += combined.components(separatedBy: Self.marker).count - 1
        tail = String(combined.suffix(Self.marker.count - 1))
        if acked >= total {
            finished.succeed()
        } else if started {
            pump(context)
        }
    }

    func negotiate(_ context: ChannelHandlerContext, _ chunk: String) {
        text += chunk
        switch phase {
        case .features where text.contains("</stream:features>"):
            text = ""
            phase = .success
            let plain = Data("\0\(sender)\0\(key)".utf8).base64EncodedString()
            write(context, "<auth mechanism='PLAIN' xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\(plain)</auth>")
        case .success where text.contains("<success"):
            text = ""
            phase = .restartFeatures
            write(context, Self.header)
        case .restartFeatures where text.contains("</stream:features>"):
            text = ""
            phase = .session
            write(
                context,
                "<iq type='set' id='b'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>"
                    + "<iq type='set' id='s'><session xmlns='urn:ietf:params:xml:ns:xmpp-session'/></iq>")
        case .session where text.contains("id=\"s\""):
            phase = .running
            ready.succeed()
        default: break
        }
    }

    /// Starts sending (all clients start together, after every one is ready).
    func start(_ context: ChannelHandlerContext) {
        started = true
        pump(context)
    }

    func pump(_ context: ChannelHandlerContext) {
        var wrote = false
        while sent < total && sent - acked < window {
            sent += 1
            var buffer = context.channel.allocator.buffer(capacity: 256)
            buffer.writeString(
                #"<message id="\#(sent)"><gcm xmlns="google:mobile:data">{"to":"\#(token)","message_id":"m\#(sent)","data":{"n":"\#(sent)"}}</gcm></message>"#
            )
            context.write(wrapOutboundOut(buffer), promise: nil)
            wrote = true
        }
        if wrote { context.flush() }
    }

    func write(_ context: ChannelHandlerContext, _ text: String) {
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        ready.fail(error)
        finished.fail(error)
        context.close(promise: nil)
    }
}
