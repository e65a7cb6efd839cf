import FCMHTTPAPI
import FCMHTTPPort
import NIOCore
import NIOHTTP2

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a fault ends a connection with no reply: a TCP reset, or HTTP/2 GOAWAY. The
/// send path on the event loop and the general responder both end connections here.
enum FaultedConnection {
    static func end(_ channel: any Channel, _ ending: HTTPReply.ConnectionEnding) {
        switch ending {
        case .reset: reset(channel)
        case .goaway: goAway(channel)
        }
    }

    /// Tells an HTTP/2 connection GOAWAY, no stream processed (its clients send again
    /// on a new connection), and closes it; resets an HTTP/1.1 connection.
    static func goAway(_ channel: any Channel) {
        // An HTTP/2 stream's parent is its connection, whose own parent is the
        // listener; an HTTP/1.1 connection's parent is the listener itself.
        guard let connection = channel.parent, connection.parent != nil else { return reset(channel) }
        let frame = HTTP2Frame(
            streamID: .rootStream, payload: .goAway(lastStreamID: .rootStream, errorCode: .noError, opaqueData: nil))
        connection.writeAndFlush(frame).whenComplete { _ in connection.close(promise: nil) }
    }

    /// Ends the connection at once, with a TCP reset where the socket allows it (an
    /// HTTP/2 stream is reset on its own).
    static func reset(_ channel: any Channel) {
        guard let socket = channel as? any SocketOptionProvider else { return channel.close(promise: nil) }
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
    }
}
