import FCMEngine
import Foundation
import SwiftProtobuf

/// The server's side of one MCS connection, pure: the bytes a client sends become
/// what the engine is told (its login, its acks) and what is written back at once
/// (heartbeat acks); what the engine asks to write becomes frames. Every rule about
/// who may log in and what is sent is the engine's.
public struct MCSServerSession: Sendable {
    public enum Output: Sendable, Equatable {
        /// Bytes to write on the connection.
        case write([UInt8])
        /// Something for the engine.
        case input(MCSInput)
        /// The stream is over (after the writes before it): the connection closes.
        case end(reason: String)
    }

    public let connection: ConnectionID
    var reader = MCSFrameReader()
    var wroteFirst = false
    var loginRead = false
    var ended = false
    /// The login's `id` (the client's version), echoed in the `LoginResponse`.
    var loginID = ""
    /// Frames read so far: what a heartbeat ack says was received.
    var framesRead: Int32 = 0
    /// How often the client asked the server to ping it (`heartbeat_stat.interval_ms`,
    /// kept within `pingIntervals`), once it logged in.
    public private(set) var pingInterval: Int64?
    /// The server's pings: at least every 5 s, at most every 30 minutes.
    public static let pingIntervals: ClosedRange<Int64> = 5_000...1_800_000
    /// Whether a frame came since the server's last ping (a client that answers the
    /// ping, or says anything else, is alive).
    var heardSincePing = true

    public init(connection: ConnectionID) {
        self.connection = connection
    }

    /// What the client's bytes make: writes, the engine's inputs, or the end.
    public mutating func receive(_ bytes: some Sequence<UInt8>) -> [Output] {
        guard !ended else { return [] }
        reader.append(bytes)
        var outputs: [Output] = []
        while !ended {
            let frame: MCSFrame?
            do throws(MCSFramingError) {
                frame = try reader.next()
            } catch {
                outputs.append(end(error.description))
                break
            }
            guard let frame else { break }
            framesRead &+= 1
            heardSincePing = true
            outputs += take(frame)
        }
        return outputs
    }

    mutating func end(_ reason: String) -> Output {
        ended = true
        return .end(reason: reason)
    }

    mutating func take(_ frame: MCSFrame) -> [Output] {
        guard loginRead else {
            guard frame.tag == MCSTag.loginRequest.rawValue else {
                return [end("the first frame is tag \(frame.tag); a client logs in first (LoginRequest, tag 2)")]
            }
            guard let login = try? MCSLoginRequest(serializedBytes: frame.payload) else {
                return [end("the LoginRequest is not a protobuf message")]
            }
            loginRead = true
            loginID = login.id
            if login.hasHeartbeatStat, login.heartbeatStat.intervalMs > 0 {
                pingInterval = min(
                    max(Int64(login.heartbeatStat.intervalMs), Self.pingIntervals.lowerBound),
                    Self.pingIntervals.upperBound)
            }
            return [
                .input(
                    .login(
                        connection,
                        MCSLogin(user: login.user, authToken: login.authToken, received: login.receivedPersistentID)))
            ]
        }
        switch MCSTag(rawValue: frame.tag) {
        case .heartbeatPing:
            var ack = MCSHeartbeatAck()
            ack.lastStreamIDReceived = framesRead
            return [.write(encode(.heartbeatAck, ack))]
        case .heartbeatAck, .dataMessageStanza, .loginResponse, .streamErrorStanza:
            return []
        case .close:
            return [end(Self.clientClosed)]
        case .iqStanza:
            guard let iq = try? MCSIqStanza(serializedBytes: frame.payload) else {
                return [end("an IqStanza that is not a protobuf message")]
            }
            guard iq.extension.id == Self.selectiveAck,
                let acks = try? MCSSelectiveAck(serializedBytes: iq.extension.data), !acks.id.isEmpty
            else { return [] }
            return [.input(.acked(connection, acks.id))]
        case .loginRequest:
            return [end("a second LoginRequest on a logged-in stream")]
        case nil:
            return [end("a frame with tag \(frame.tag), which MCS does not have")]
        }
    }

    /// Why a stream ends when the client answered no ping in an interval.
    static func silentReason(_ interval: Int64?) -> String {
        "nothing from the client in the \(DurationText.span(interval ?? 0)) after the server's heartbeat ping: the "
            + "connection is closed as dead"
    }

    /// Why a stream ends when the client sends `Close`.
    public static let clientClosed = "the client closed the stream"

    /// A heartbeat ping from the server (the client answers with an ack), every
    /// `pingInterval`. A client that sent nothing since the last one, not even the
    /// ack, is gone (a suspended process, a network that dropped it without a reset):
    /// the stream ends, and the server holds for the phone as for any phone offline.
    public mutating func ping() -> [Output] {
        guard !ended, loginRead else { return [] }
        guard heardSincePing else { return [end(Self.silentReason(pingInterval))] }
        heardSincePing = false
        var ping = MCSHeartbeatPing()
        ping.lastStreamIDReceived = framesRead
        return [.write(encode(.heartbeatPing, ping))]
    }

    /// The `IqStanza` extension of selective acks.
    public static let selectiveAck: Int32 = 12

    /// The frames for what the engine asked to write (`unixMillis`: the server's
    /// time, for the login's answer).
    public mutating func render(_ stanza: MCSStanza, unixMillis: Int64) -> [Output] {
        guard !ended else { return [] }
        switch stanza {
        case .loginAccepted:
            var response = MCSLoginResponse()
            response.id = loginID
            response.serverTimestamp = unixMillis
            return [.write(encode(.loginResponse, response))]
        case .loginRefused(let code, let message):
            var response = MCSLoginResponse()
            response.id = loginID
            response.error.code = Int32(clamping: code)
            response.error.message = message
            return [.write(encode(.loginResponse, response)), end("the login was refused: \(message)")]
        case .data(let message):
            return [.write(encode(.dataMessageStanza, Self.stanza(message)))]
        case .close:
            return [.write(encode(.close, MCSClose())), end("the device logged in on another connection")]
        }
    }

    static func stanza(_ message: ReceiverMessage) -> MCSDataMessageStanza {
        var stanza = MCSDataMessageStanza()
        stanza.id = message.persistentID
        stanza.persistentID = message.persistentID
        stanza.from = message.from
        stanza.category = message.category
        stanza.appData = message.appData.map { pair in
            var data = MCSAppData()
            data.key = pair.key
            data.value = pair.value
            return data
        }
        stanza.rawData = Data(message.rawData)
        stanza.ttl = Int32(clamping: message.ttl)
        stanza.sent = message.sent
        return stanza
    }

    mutating func encode(_ tag: MCSTag, _ message: some SwiftProtobuf.Message) -> [UInt8] {
        defer { wroteFirst = true }
        return MCSFrame.encode(tag: tag, message, first: !wroteFirst)
    }
}
