import FCMDoor
import FCMEngine
import FCMMCS
import NIOCore

/// One real client's MCS connection: bytes in through the MCS session, what they
/// mean handed to the engine (through the host), frames out. Runs on the host's
/// event loop; decides nothing.
final class MCSConnection: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let host: DeviceHost
    /// The id the engine knows this connection by.
    let number: ConnectionID
    var session: MCSServerSession
    var context: ChannelHandlerContext?
    /// The engine knows the connection is open (it was told when it opened, so it is
    /// told when it closes: a connection that does not log in in time is closed).
    var engineKnows = false
    /// The next heartbeat ping, when the client asked for them.
    var pinging: Scheduled<Void>?

    init(host: DeviceHost, number: ConnectionID) {
        self.host = host
        self.number = number
        session = MCSServerSession(connection: number)
    }

    func channelActive(context: ChannelHandlerContext) {
        self.context = context
        host.attach(self, as: number)
        engineKnows = true
        host.submit { _, time in [.input(.mcs(.opened(number)), at: time)] }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        pinging?.cancel()
        pinging = nil
        host.detach(number)
        if engineKnows { host.submit { _, time in [.input(.mcs(.closed(number)), at: time)] } }
        self.context = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard let bytes = buffer.readBytes(length: buffer.readableBytes) else { return }
        perform(session.receive(bytes), engineAsked: false)
        if pinging == nil, let interval = session.pingInterval { schedulePing(in: interval) }
    }

    /// Pings the client every interval it asked for, as the service does (the session
    /// ends a stream that answered none).
    func schedulePing(in interval: Int64) {
        guard let context else { return }
        pinging = context.eventLoop.scheduleTask(in: .milliseconds(interval)) { [self] in
            perform(session.ping(), engineAsked: false)
            schedulePing(in: interval)
        }
    }

    /// Writes what the engine asked for on this connection.
    func write(_ stanza: MCSStanza) {
        perform(session.render(stanza, unixMillis: SessionClock.unixMillisNow), engineAsked: true)
    }

    /// Does what the session said; an end the client caused (by what it sent, or by
    /// answering no ping) is the engine's to hear (with why), one the engine asked
    /// for is not.
    func perform(_ outputs: [MCSServerSession.Output], engineAsked: Bool) {
        guard let context else { return }
        for output in outputs {
            switch output {
            case .write(let bytes):
                context.write(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
            case .input(let input):
                host.submit { _, time in [.input(.mcs(input), at: time)] }
            case .end(let reason):
                if !engineAsked, reason != MCSServerSession.clientClosed {
                    engineKnows = false
                    host.submit { _, time in [.input(.mcs(.closed(number, reason: reason)), at: time)] }
                }
                context.flush()
                context.close(promise: nil)
                return
            }
        }
        context.flush()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
