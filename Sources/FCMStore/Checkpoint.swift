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
    var phones: [(index: Int, phone: Installation, fields: Installation.Fields)]

    /// Writes it inside the caller's transaction and drops the journal it replaces;
    /// answers how many bytes it encoded.
    @discardableResult
    func write(in db: Database, coder: PhoneCoder) throws -> Int {
        if rebase { try db.execute(sql: "DELETE FROM phones") }
        let insert = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO phones(idx, fields, phone) VALUES (?, ?, ?)")
        var bytes = 0
        for (index, phone, fields) in phones {
            let encoded = try coder.encode(phone, fields: fields)
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
/// message to every phone, each row holds an inbox and not the phone's tokens.
struct PhoneCoder {
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()
    private let serverEncoder: JSONEncoder
    private let serverDecoder: JSONDecoder

    init() {
        serverEncoder = JSONEncoder()
        serverEncoder.userInfo[DeviceEngine.phonesApart] = true
        serverDecoder = JSONDecoder()
        serverDecoder.userInfo[DeviceEngine.phonesApart] = true
    }

    func encode(_ phone: Installation, fields: Installation.Fields) throws -> Data {
        encoder.userInfo[Installation.fieldsSaved] = fields
        return try encoder.encode(phone)
    }

    /// A saved phone: every field (`.all`) or those laid over `base`.
    func decode(_ data: Data, fields: Installation.Fields, over base: Installation?) throws -> Installation {
        guard fields != .all, let base else { return try decoder.decode(Installation.self, from: data) }
        decoder.userInfo[Self.base] = base
        return try decoder.decode(PhoneOverBase.self, from: data).phone
    }

    static let base = CodingUserInfoKey(rawValue: "fcm-device.phoneBase")!

    /// A phone read as fields laid over the phone as the fleet started.
    private struct PhoneOverBase: Decodable {
        let phone: Installation
        init(from decoder: any Decoder) throws {
            guard let base = decoder.userInfo[PhoneCoder.base] as? Installation else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no phone to lay it over"))
            }
            phone = try Installation(decoding: decoder, over: base)
        }
    }
    func encodeServer(_ engine: DeviceEngine) throws -> Data { try serverEncoder.encode(engine) }
    func decodeServer(_ data: Data) throws -> DeviceEngine { try serverDecoder.decode(DeviceEngine.self, from: data) }
}
