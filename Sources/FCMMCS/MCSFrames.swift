import SwiftProtobuf

/// MCS framing: each message is `[tag][varint length][protobuf]`, and the first
/// message each side sends is preceded by the protocol version (41).
public enum MCSTag: UInt8, Sendable {
    case heartbeatPing = 0
    case heartbeatAck = 1
    case loginRequest = 2
    case loginResponse = 3
    case close = 4
    case iqStanza = 7
    case dataMessageStanza = 8
    case streamErrorStanza = 10
}

/// One frame read off the stream: its tag and its protobuf bytes.
public struct MCSFrame: Sendable, Equatable {
    public var tag: UInt8
    public var payload: [UInt8]

    public init(tag: UInt8, payload: [UInt8]) {
        self.tag = tag
        self.payload = payload
    }

    /// The version byte a stream starts with.
    public static let version: UInt8 = 41
    /// An older version the clients also take.
    public static let oldVersion: UInt8 = 38
    /// The largest frame read: a login or an ack is a few kilobytes; past this (about
    /// 1,500 persistent ids in one) it is no MCS client's.
    public static let maxPayloadBytes = 64 << 10

    /// The bytes of a frame, with the version first when it opens the stream.
    public static func encode(tag: MCSTag, _ message: some SwiftProtobuf.Message, first: Bool) -> [UInt8] {
        let payload: [UInt8] = (try? message.serializedBytes()) ?? []
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + 8)
        if first { bytes.append(version) }
        bytes.append(tag.rawValue)
        var length = UInt32(payload.count)
        while length >= 0x80 {
            bytes.append(UInt8(length & 0x7F) | 0x80)
            length >>= 7
        }
        bytes.append(UInt8(length))
        bytes += payload
        return bytes
    }
}

/// What is wrong with the bytes a peer sent: the stream cannot go on.
public struct MCSFramingError: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}

/// Reads frames from a stream's bytes as they arrive, the version byte first.
public struct MCSFrameReader: Sendable {
    var buffer: [UInt8] = []
    var start = 0
    var versionRead = false

    public init() {}

    public mutating func append(_ bytes: some Sequence<UInt8>) {
        if start > 4_096, start * 2 > buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, nil until one has arrived.
    public mutating func next() throws(MCSFramingError) -> MCSFrame? {
        var at = start
        if !versionRead {
            guard at < buffer.count else { return nil }
            let version = buffer[at]
            guard version >= MCSFrame.version || version == MCSFrame.oldVersion else {
                throw MCSFramingError(
                    "the stream starts with version \(version); MCS clients send \(MCSFrame.version)")
            }
            at += 1
        }
        guard at < buffer.count else { return nil }
        let tag = buffer[at]
        at += 1
        var length = 0
        var shift = 0
        while true {
            guard at < buffer.count else { return nil }
            let byte = buffer[at]
            at += 1
            length |= Int(byte & 0x7F) << shift
            if byte & 0x80 == 0 { break }
            shift += 7
            guard shift < 35 else { throw MCSFramingError("a frame's length is not a 32-bit varint") }
        }
        guard length <= MCSFrame.maxPayloadBytes else {
            throw MCSFramingError("a frame of \(length) bytes (at most \(MCSFrame.maxPayloadBytes) are read)")
        }
        guard buffer.count - at >= length else { return nil }
        let payload = Array(buffer[at..<(at + length)])
        start = at + length
        versionRead = true
        return MCSFrame(tag: tag, payload: payload)
    }
}
