import Foundation
import NIOCore

/// One app server that receives upstream messages and acks each at once, as a CCS
/// app server must; counts them, and notes when the first and the last arrived.
final class UpstreamClient: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let negotiation: LoadClient
    let shared: UpstreamTally
    var pending = ""
    static let idMarker = #""message_id":""#

    init(negotiation: LoadClient, tally: UpstreamTally) {
        self.negotiation = negotiation
        shared = tally
    }

    func channelActive(context: ChannelHandlerContext) {
        negotiation.channelActive(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let chunk = buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) ?? ""
        guard negotiation.phase == .running else { return negotiation.negotiate(context, chunk) }
        pending += chunk
        var acks = ""
        var count = 0
        while let end = pending.range(of: "</message>") {
            let stanza = pending[..<end.upperBound]
            if stanza.contains("\"category\""), let start = stanza.range(of: Self.idMarker),
                let close = stanza[start.upperBound...].firstIndex(of: "\"")
            {
                let id = stanza[start.upperBound..<close]
                acks +=
                    #"<message><gcm xmlns="google:mobile:data">{"to":"t","message_id":"\#(id)","message_type":"ack"}</gcm></message>"#
                count += 1
            }
            pending.removeSubrange(..<end.upperBound)
        }
        if count > 0 {
            var out = context.channel.allocator.buffer(capacity: acks.utf8.count)
            out.writeString(acks)
            context.writeAndFlush(wrapOutboundOut(out), promise: nil)
            shared.received(count)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        negotiation.errorCaught(context: context, error: error)
    }
}

/// Upstream messages received over all connections of a run.
final class UpstreamTally: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    private var first: ContinuousClock.Instant?
    private var last: ContinuousClock.Instant?
    let expected: Int
    let done: DispatchSemaphore = DispatchSemaphore(value: 0)

    init(expected: Int) {
        self.expected = expected
    }

    func received(_ new: Int) {
        lock.lock()
        let now = ContinuousClock.now
        if first == nil { first = now }
        last = now
        count += new
        let finished = count >= expected && count - new < expected
        lock.unlock()
        if finished { done.signal() }
    }

    /// Messages a second from the first arrival to the last.
    var rate: Double {
        lock.withLock {
            guard let first, let last, count > 1 else { return 0 }
            let span = last - first
            return Double(count - 1) / (Double(span.components.seconds) + Double(span.components.attoseconds) / 1e18)
        }
    }
}

/// A profile whose device sends `count` upstream messages at `at` seconds, with no
/// built-in app server: only the load's connections ack them.
enum UpstreamProfile {
    static func write(count: Int, at seconds: Int, sender: String, key: String) throws -> String {
        var yaml = """
            version: 1
            description: Upstream load for xmpp-load
            device: { seed: 5 }
            senders:
              - { id: "\(sender)", key: \(key) }
            app_server: none
            timeline:

            """
        for n in 1...count {
            yaml +=
                "  - { at: \(seconds)s, send: { sender: \"\(sender)\", id: u-\(n), ttl: 600, data: { n: \"\(n)\" } } }\n"
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-upstream-\(getpid()).yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
