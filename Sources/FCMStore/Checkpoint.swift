import FCMEngine
import Foundation
import GRDB

/// What a checkpoint saves: the connection server's part of the engine, the phones
/// changed since the last checkpoint (each in a row of its own), and how far the
/// journal it replaces reaches. Saving costs what changed, not the size of the fleet.
struct Checkpoint {
    /// The last journal entry it holds the effect of.
    var seq: Int64
    /// Journal entries up to this one stay: replayed on a fleet made from the start
    /// configuration, they make every phone no row holds (the fleet as started).
    var baseSeq: Int64
    /// The base moved since the last checkpoint (the fleet started): rows saved
    /// before it are dropped.
    var rebase: Bool
    /// The engine without its phones.
    var server: DeviceEngine
    var phoneCount: Int
    /// The phones changed since the last checkpoint, by index, with the fields of each
    /// that differ from the fleet as started (all of them for a phone that joined later).
    var phones: [(index: Int, fields: Phone.Fields)]
    /// Where a changed phone is read from: its copy taken when the checkpoint was made,
    /// or else `fleet`, the engine's phones then (shared, not copied, when many changed).
    var copies: [Int: Phone] = [:]
    var fleet: [Phone] = []

    /// Writes it inside the caller's transaction and drops the journal it replaces;
    /// answers how many bytes it encoded.
    @discardableResult
    func write(in db: Database, coder: PhoneCoder) throws -> Int {
        if rebase { try db.execute(sql: "DELETE FROM phones") }
        let insert = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO phones(idx, fields, phone) VALUES (?, ?, ?)")
        var bytes = 0
        for (index, fields) in phones {
            let encoded = try coder.encode(copies[index] ?? fleet[index], fields: fields)
            bytes += encoded.count
            try insert.execute(arguments: [index, Int64(fields.rawValue), encoded])
        }
        // A reset leaves fewer phones than were added since the start.
        try db.execute(sql: "DELETE FROM phones WHERE idx >= ?", arguments: [phoneCount])
        let encoded = try coder.encodeServer(server)
        try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO server(id, seq, base_seq, phones, engine) VALUES (1, ?, ?, ?, ?)"
        ).execute(arguments: [seq, baseSeq, phoneCount, encoded])
        try db.cachedStatement(sql: "DELETE FROM journal WHERE seq > ? AND seq <= ?").execute(arguments: [
            baseSeq, seq,
        ])
        return bytes + encoded.count
    }
}

/// How a phone and the connection server's part are encoded in the state file. A
/// phone is saved as its fields that differ from the fleet as started: after a topic
/// message to every phone, each row holds an inbox and not the phone's tokens. Phones
/// are saved in the compact coding (`CompactEncoder`, since state format 8) and read in
/// it or in JSON (format 7); the connection server's part, one row, stays JSON.
struct PhoneCoder {
    /// The first byte of a phone saved in the compact coding. A phone saved in JSON
    /// begins with "{".
    static let compactMark: UInt8 = 0xC7
    private let jsonDecoder = JSONDecoder()
    private let serverEncoder: JSONEncoder
    private let serverDecoder: JSONDecoder

    init() {
        serverEncoder = JSONEncoder()
        serverEncoder.userInfo[DeviceEngine.phonesApart] = true
        serverDecoder = JSONDecoder()
        serverDecoder.userInfo[DeviceEngine.phonesApart] = true
    }

    func encode(_ phone: Phone, fields: Phone.Fields) throws -> Data {
        Data(
            try CompactEncoder.encode(
                phone, header: [Self.compactMark], userInfo: [Phone.fieldsSaved: fields]))
    }

    /// A saved phone: every field (`.all`) or those laid over `base`.
    func decode(_ data: Data, fields: Phone.Fields, over base: Phone?) throws -> Phone {
        let over = fields == .all ? nil : base
        guard data.first == Self.compactMark else {
            guard let over else { return try jsonDecoder.decode(Phone.self, from: data) }
            jsonDecoder.userInfo[Self.base] = over
            return try jsonDecoder.decode(PhoneOverBase.self, from: data).phone
        }
        let bytes = [UInt8](data)
        guard let over else { return try CompactDecoder.decode(Phone.self, from: bytes, at: 1) }
        return try CompactDecoder.decode(PhoneOverBase.self, from: bytes, at: 1, userInfo: [Self.base: over]).phone
    }

    static let base = CodingUserInfoKey(rawValue: "fcm-device.phoneBase")!

    /// A phone read as fields laid over the phone as the fleet started.
    private struct PhoneOverBase: Decodable {
        let phone: Phone
        init(from decoder: any Decoder) throws {
            guard let base = decoder.userInfo[PhoneCoder.base] as? Phone else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no phone to lay it over"))
            }
            phone = try Phone(decoding: decoder, over: base)
        }
    }
    func encodeServer(_ engine: DeviceEngine) throws -> Data { try serverEncoder.encode(engine) }
    func decodeServer(_ data: Data) throws -> DeviceEngine { try serverDecoder.decode(DeviceEngine.self, from: data) }
}
