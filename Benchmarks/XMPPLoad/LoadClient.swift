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
    /// How much of the ack marker the last chunk ended with.
    var matched = 0
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
        let buffer = unwrapInboundIn(data)
        guard phase == .running else {
            return negotiate(context, buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) ?? "")
        }
        countAcks(in: buffer)
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

    /// Counts the acks in a chunk byte by byte, a marker split across chunks included
    /// (the load's own CPU is taken from the server it measures: the two share the cores).
    func countAcks(in buffer: ByteBuffer) {
        let marker = Self.markerBytes
        buffer.withUnsafeReadableBytes { bytes in
            for byte in bytes {
                if byte == marker[matched] {
                    matched += 1
                    if matched == marker.count {
                        acked += 1
                        matched = 0
                    }
                } else {
                    matched = byte == marker[0] ? 1 : 0
                }
            }
        }
    }

    /// Writes the messages the window has room for, in one buffer and one flush.
    func pump(_ context: ChannelHandlerContext) {
        guard sent < total && sent - acked < window else { return }
        var buffer = context.channel.allocator.buffer(capacity: 256 * (window - (sent - acked)))
        while sent < total && sent - acked < window {
            sent += 1
            let number = String(sent)
            buffer.writeBytes(Self.stanzaStart)
            buffer.writeString(number)
            buffer.writeBytes(Self.beforeToken)
            buffer.writeString(token)
            buffer.writeBytes(Self.beforeID)
            buffer.writeString(number)
            buffer.writeBytes(Self.beforeData)
            buffer.writeString(number)
            buffer.writeBytes(Self.stanzaEnd)
        }
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    static let markerBytes = Array(marker.utf8)
    static let stanzaStart = Array(#"<message id=""#.utf8)
    static let beforeToken = Array(#""><gcm xmlns="google:mobile:data">{"to":""#.utf8)
    static let beforeID = Array(#"","message_id":"m"#.utf8)
    static let beforeData = Array(#"","data":{"n":""#.utf8)
    static let stanzaEnd = Array(#""}}</gcm></message>"#.utf8)

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
