import FCMEngine
import Foundation

/// How a journal entry is stored. Downstream messages (`push`, `send`), upstream
/// acks and timers, the bulk of any busy journal, have a compact binary form of
/// their own (JSONEncoder cost as much CPU as the server's loop did); every other
/// input is JSON. The first byte tells which: 1 push, 2 send, 3 ack, 4 advance,
/// 5 an app server's ack on a connection, 6 a downstream message on a connection,
/// `{` JSON.
enum InputCoding {
    static let pushTag: UInt8 = 1
    static let sendTag: UInt8 = 2
    static let ackTag: UInt8 = 3
    static let advanceTag: UInt8 = 4
    static let linkAckTag: UInt8 = 5
    static let linkDownstreamTag: UInt8 = 6

    static func encode(_ input: JournalEntry, json: JSONEncoder) throws -> [UInt8] {
        var writer = ByteWriter()
        switch input {
        case .input(.push(let request), let time):
            writer.byte(pushTag)
            writer.int(time)
            writer.request(request)
        case .input(.send(let orders), let time):
            writer.byte(sendTag)
            writer.int(time)
            writer.int(Int64(orders.count))
            for order in orders {
                // Bit 0: by installation; bit 1: platform blocks follow the request (as JSON);
                // bit 2: the app server's API and the request's digest follow; bit 3: where
                // and when the HTTP request started; bit 4: its access token's digest.
                let exchange = order.origin?.exchange
                let bearer = order.origin?.bearer
                writer.byte(
                    (order.byInstallation ? 1 : 0) | (order.overrides != nil ? 2 : 0) | (order.origin != nil ? 4 : 0)
                        | (exchange != nil ? 8 : 0) | (bearer != nil ? 16 : 0))
                writer.request(order.request)
                if let overrides = order.overrides {
                    writer.string(String(decoding: try json.encode(overrides), as: UTF8.self))
                }
                if let origin = order.origin {
                    writer.string(origin.api.rawValue)
                    writer.string(origin.digest)
                }
                if let exchange {
                    writer.int(exchange.connection)
                    writer.int(exchange.request ?? -1)
                    writer.int(exchange.started)
                }
                if let bearer { writer.string(bearer) }
            }
        case .input(.ackUpstream(let sender, let id), let time):
            writer.byte(ackTag)
            writer.int(time)
            writer.string(sender)
            writer.string(id)
        case .advance(let time):
            writer.byte(advanceTag)
            writer.int(time)
        case .input(.appServer(.received(let connection, .ack(let id))), let time):
            writer.byte(linkAckTag)
            writer.int(time)
            writer.int(Int64(connection))
            writer.string(id)
        case .input(.appServer(.received(let connection, .downstream(let request, let id))), let time):
            writer.byte(linkDownstreamTag)
            writer.int(time)
            writer.int(Int64(connection))
            writer.string(id)
            writer.request(request)
        default:
            return Array(try json.encode(input))
        }
        return writer.bytes
    }

    static func decode(_ bytes: [UInt8], json: JSONDecoder) throws -> JournalEntry {
        var reader = ByteReader(bytes: bytes)
        switch try reader.byte() {
        case pushTag:
            // A push; journals of state format 2 wrote a CCS downstream message so too.
            let time = try reader.int()
            return .input(.push(try reader.request()), at: time)
        case sendTag:
            let time = try reader.int()
            let count = try reader.int()
            guard count >= 0, count <= 1_000_000 else { throw ByteReader.Malformed() }
            var orders: [SendOrder] = []
            for _ in 0..<count {
                let flags = try reader.byte()
                let request = try reader.request()
                let overrides =
                    flags & 2 == 0 ? nil : try json.decode(PlatformOverrides.self, from: Data(try reader.string().utf8))
                var origin: WireOrigin?
                if flags & 4 != 0 {
                    guard let api = AppServerAPI(rawValue: try reader.string()) else { throw ByteReader.Malformed() }
                    origin = WireOrigin(api: api, digest: try reader.string())
                }
                if flags & 8 != 0 {
                    let connection = try reader.int()
                    let request = try reader.int()
                    origin?.exchange = HTTPExchange(
                        connection: connection, request: request < 0 ? nil : request, started: try reader.int())
                }
                if flags & 16 != 0 { origin?.bearer = try reader.string() }
                orders.append(
                    SendOrder(request, byInstallation: flags & 1 != 0, overrides: overrides, origin: origin))
            }
            return .input(.send(orders), at: time)
        case ackTag:
            let time = try reader.int()
            return .input(.ackUpstream(sender: try reader.string(), id: try reader.string()), at: time)
        case advanceTag:
            return .advance(to: try reader.int())
        case linkAckTag:
            let time = try reader.int()
            let connection = try reader.connection()
            return .input(.appServer(.received(connection, .ack(messageID: try reader.string()))), at: time)
        case linkDownstreamTag:
            let time = try reader.int()
            let connection = try reader.connection()
            let id = try reader.string()
            return .input(
                .appServer(.received(connection, .downstream(try reader.request(), messageID: id))), at: time)
        default:
            let data = Data(bytes)
            do {
                return try json.decode(JournalEntry.self, from: data)
            } catch {
                if let bare = try? json.decode(BarePhoneCommand.self, from: data) {
                    return .input(.on(bare.apply.command), at: bare.apply.at)
                }
                if let aimed = try? json.decode(PushAimedAtAPhone.self, from: data) {
                    return .input(
                        .pushToUnknownPhone(aimed.apply.command.on.device), at: aimed.apply.at)
                }
                if let call = try? json.decode(AppServerCallOfFormatNine.self, from: data) {
                    if let topics = call.topics { return .input(.topics(topics.order), at: topics.at) }
                    if let group = call.group { return .input(.group(group.order), at: group.at) }
                    if let faults = call.httpFaults { return .input(.httpFaults(path: faults.path), at: faults.at) }
                }
                throw error
            }
        }
    }
}

/// A command for the only phone as journals of state format 9 and before wrote it,
/// bare (`{"apply":{"_0":{"setNetwork":…},"at":…}}`), before a phone's commands had a
/// type of their own; read, no longer written.
private struct BarePhoneCommand: Decodable {
    struct Apply: Decodable {
        let command: PhoneCommand
        let at: Millis
        enum CodingKeys: String, CodingKey {
            case command = "_0"
            case at
        }
    }
    let apply: Apply
}

/// A profile's push to the token of a phone that was not there, as journals of state
/// format 9 and before wrote it (`{"on":{"device":NAME,"_1":{"push":…}}}`), before a
/// push to a phone no name names had a case of its own (`Input.pushToUnknownPhone`);
/// read, no longer written.
private struct PushAimedAtAPhone: Decodable {
    struct Apply: Decodable {
        let command: Aimed
        let at: Millis
        enum CodingKeys: String, CodingKey {
            case command = "_0"
            case at
        }
    }
    struct Aimed: Decodable { let on: On }
    struct On: Decodable {
        let device: String
        let push: Push
        enum CodingKeys: String, CodingKey {
            case device
            case push = "_1"
        }
    }
    struct Push: Decodable { let push: Request }
    struct Request: Decodable {
        let request: DownstreamRequest
        enum CodingKeys: String, CodingKey { case request = "_0" }
    }
    let apply: Apply
}

/// Little-endian integers and length-prefixed UTF-8 strings.
struct ByteWriter {
    var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(256) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func int(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            int(Int64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func optional(_ value: String?) {
        guard let value else { return byte(0) }
        byte(1)
        string(value)
    }

    mutating func pairs(_ items: [KeyValue]) {
        int(Int64(items.count))
        for item in items {
            string(item.key)
            string(item.value)
        }
    }

    mutating func request(_ request: DownstreamRequest) {
        string(request.sender)
        optional(request.to)
        optional(request.messageID)
        pairs(request.data)
        if let notification = request.notification {
            byte(1)
            pairs(notification)
        } else {
            byte(0)
        }
        optional(request.collapseKey)
        optional(request.priority)
        if let ttl = request.timeToLive {
            byte(1)
            int(ttl)
        } else {
            byte(0)
        }
        let flags: [Bool] = [
            request.deliveryReceiptRequested, request.dryRun, request.contentAvailable, request.mutableContent,
            request.condition != nil, request.details != nil,
        ]
        byte(flags.enumerated().reduce(0) { $0 | ($1.element ? 1 << $1.offset : 0) })
        // Since state format 4: a topic condition follows when its flag is set.
        if let condition = request.condition { string(condition) }
        // Then the message's details when their flag is set (older entries have none).
        if let details = request.details { self.details(details) }
    }

    mutating func details(_ details: MessageDetails) {
        optional(details.restrictedPackageName)
        optional(details.analyticsLabel)
        byte(details.directBootOK.map { $0 ? 2 : 1 } ?? 0)
        optional(details.liveActivityToken)
        int(Int64(details.ignored?.count ?? 0))
        for name in details.ignored ?? [] { string(name) }
        optional(details.readNote)
    }
}

struct ByteReader {
    struct Malformed: Error, CustomStringConvertible {
        var description: String { "a binary journal entry is cut short or out of range" }
    }

    let bytes: [UInt8]
    var offset = 0

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw Malformed() }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func int() throws -> Int64 {
        guard offset + 8 <= bytes.count else { throw Malformed() }
        var value: Int64 = 0
        withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes[offset..<offset + 8]) }
        offset += 8
        return Int64(littleEndian: value)
    }

    mutating func string() throws -> String {
        let count = try int()
        guard count >= 0, offset + Int(count) <= bytes.count else { throw Malformed() }
        defer { offset += Int(count) }
        return String(decoding: bytes[offset..<offset + Int(count)], as: UTF8.self)
    }

    mutating func connection() throws -> ConnectionID {
        let value = try int()
        guard let id = ConnectionID(exactly: value) else { throw Malformed() }
        return id
    }

    mutating func optional() throws -> String? {
        try byte() == 1 ? try string() : nil
    }

    mutating func pairs() throws -> [KeyValue] {
        let count = try int()
        guard count >= 0, count <= Int64(bytes.count) else { throw Malformed() }
        var items: [KeyValue] = []
        items.reserveCapacity(Int(count))
        for _ in 0..<count { items.append(KeyValue(try string(), try string())) }
        return items
    }

    mutating func request() throws -> DownstreamRequest {
        let sender = try string()
        let to = try optional()
        let messageID = try optional()
        let data = try pairs()
        let notification = try byte() == 1 ? try pairs() : nil
        let collapseKey = try optional()
        let priority = try optional()
        let timeToLive = try byte() == 1 ? try int() : nil
        let flags = try byte()
        let condition = flags & 16 != 0 ? try string() : nil
        var request = DownstreamRequest(
            sender: sender, to: to, messageID: messageID, data: data, notification: notification,
            collapseKey: collapseKey, priority: priority, timeToLive: timeToLive,
            deliveryReceiptRequested: flags & 1 != 0, dryRun: flags & 2 != 0, contentAvailable: flags & 4 != 0,
            mutableContent: flags & 8 != 0, condition: condition)
        if flags & 32 != 0 { request.details = try details() }
        return request
    }

    mutating func details() throws -> MessageDetails {
        var details = MessageDetails(restrictedPackageName: try optional(), analyticsLabel: try optional())
        switch try byte() {
        case 0: break
        case 1: details.directBootOK = false
        case 2: details.directBootOK = true
        default: throw Malformed()
        }
        details.liveActivityToken = try optional()
        let count = try int()
        guard count >= 0, count <= Int64(bytes.count) else { throw Malformed() }
        if count > 0 { details.ignored = try (0..<count).map { _ in try string() } }
        details.readNote = try optional()
        return details
    }
}

/// An app server's call as journals of state format 9 wrote it, an entry of its own
/// (`{"topics":{"_0":…,"at":…}}`, `{"httpFaults":{"path":…,"at":…}}`) before it was an
/// input with its reply; read, no longer written. (Sends were always written in the
/// compact coding, which reads as before.)
private struct AppServerCallOfFormatNine: Decodable {
    struct FaultCheck: Decodable {
        let path: String
        let at: Millis
    }
    struct Call<Order: Decodable>: Decodable {
        let order: Order
        let at: Millis
        enum CodingKeys: String, CodingKey {
            case order = "_0"
            case at
        }
    }
    let topics: Call<TopicOrder>?
    let group: Call<GroupOrder>?
    let httpFaults: FaultCheck?
}
