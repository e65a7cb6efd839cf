import FCMEngine
import Foundation
import Testing

@testable import FCMStore

/// Values of every shape `Codable` makes, for the compact coding's round trip.
private struct Shapes: Codable, Equatable {
    enum Choice: Codable, Equatable {
        case none
        case one(String)
        case pair(Int, label: Double?)
    }
    enum Raw: String, Codable { case up, down }

    var empty = ""
    var unicode = "Grüße, 東京 🚀"
    var numbers: [Int] = [0, 1, -1, Int.max, Int.min, 300, -300]
    var unsigned: [UInt64] = [0, 127, 128, UInt64.max]
    var small: [Int8] = [Int8.min, -1, Int8.max]
    var bytes: [UInt8] = [0, 255]
    var doubles: [Double] = [0, -0.5, 1e300, .infinity]
    var float: Float = 1.5
    var flags: [Bool] = [true, false]
    var optionals: [String?] = ["a", nil, "c"]
    var missing: Int?
    var present: Int? = 7
    var byNumber: [Int: String] = [3: "three", -1: "minus one"]
    var byName: [String: [String: Int]] = ["a": ["x": 1], "b": [:]]
    var set: Set<String> = ["x", "y"]
    var nested: [[Int]] = [[], [1], [2, 3]]
    var choices: [Choice] = [.none, .one("o"), .pair(2, label: nil), .pair(-3, label: 0.25)]
    var raws: [Raw] = [.up, .down]
    var millis: Millis = 1_700_000_000_000
}

@Suite("The compact coding of saved phones")
struct CompactCodingTests {
    static func roundTrip<T: Codable>(_ value: T) throws -> T {
        try CompactDecoder.decode(T.self, from: CompactEncoder.encode(value))
    }

    /// Equal as JSON with sorted keys: the same fields and values.
    static func json<T: Encodable>(_ value: T, _ userInfo: [CodingUserInfoKey: any Sendable] = [:]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.userInfo = userInfo
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test("every shape Codable makes comes back equal")
    func shapesComeBack() throws {
        #expect(try Self.roundTrip(Shapes()) == Shapes())
        var other = Shapes()
        other.missing = 0
        other.present = nil
        other.choices = []
        #expect(try Self.roundTrip(other) == other)
    }

    /// A fleet after a few hundred calls of every kind (queues, stores, trays,
    /// inboxes, topics, refreshed and uninstalled tokens).
    static func busyFleet() -> DeviceEngine {
        var driver = FleetDriver(engine: DeviceEngine(FleetDriver.configuration(phones: 6)), seed: 11)
        driver.start(into: nil)
        for _ in 0..<400 { _ = driver.next(into: nil) }
        return driver.engine
    }

    @Test("a busy fleet's phones come back equal, whole or as changed fields over the phone as started")
    func phonesComeBack() throws {
        let fleet = Self.busyFleet()
        let started = DeviceEngine(fleet.startConfiguration)
        let coder = PhoneCoder()
        var compactBytes = 0
        var jsonBytes = 0
        for (index, phone) in fleet.devices.enumerated() {
            let whole = try coder.decode(coder.encode(phone, fields: .all), fields: .all, over: nil)
            #expect(try Self.json(whole) == Self.json(phone), "phone \(index) whole")
            guard index < started.devices.count else { continue }
            let fields: Phone.Fields = [.inbox, .tray, .tokens, .batch, .unreachableSince, .network]
            let saved = try coder.encode(phone, fields: fields)
            compactBytes += saved.count
            jsonBytes += try Self.json(phone, [Phone.fieldsSaved: fields]).utf8.count
            let over = try coder.decode(saved, fields: fields, over: started.devices[index])
            #expect(over.inbox == phone.inbox && over.tray == phone.tray && over.tokens == phone.tokens)
            #expect(over.batch == phone.batch && over.network == phone.network)
            // The saved fields, nil ones too, as JSON would have them.
            let asSaved = [Phone.fieldsSaved: fields]
            #expect(try Self.json(over, asSaved) == Self.json(phone, asSaved), "phone \(index) over its start")
            #expect(over.stored == started.devices[index].stored, "a field not saved is the phone's as started")
        }
        #expect(compactBytes < jsonBytes, "compact rows are smaller than JSON rows")
    }

    @Test("a row saved in JSON (state format 7) is still read")
    func jsonRowsAreRead() throws {
        let fleet = Self.busyFleet()
        let started = DeviceEngine(fleet.startConfiguration)
        let coder = PhoneCoder()
        let phone = fleet.devices[2]
        let fields: Phone.Fields = [.inbox, .appState, .unreachableSince]
        let encoder = JSONEncoder()
        encoder.userInfo[Phone.fieldsSaved] = fields
        let row = try encoder.encode(phone)
        #expect(row.first == UInt8(ascii: "{"))
        let read = try coder.decode(row, fields: fields, over: started.devices[2])
        #expect(read.inbox == phone.inbox && read.appState == phone.appState)
        let saved = [Phone.fieldsSaved: fields]
        #expect(try Self.json(read, saved) == Self.json(phone, saved))
        let whole = try coder.decode(JSONEncoder().encode(phone), fields: .all, over: nil)
        #expect(try Self.json(whole) == Self.json(phone))
    }

    @Test("a row cut short anywhere, or with a byte changed, is an error, never a crash")
    func brokenRowsAreErrors() throws {
        let coder = PhoneCoder()
        let row = try coder.encode(Self.busyFleet().devices[1], fields: .all)
        for length in 0..<row.count {
            #expect(throws: (any Error).self, "cut at \(length)") {
                try coder.decode(row.prefix(length), fields: .all, over: nil)
            }
        }
        var random = SeededGenerator(seed: 4)
        for _ in 0..<2_000 {
            var broken = row
            let at = 1 + Int(random.next() % UInt64(row.count - 1))
            broken[at] = UInt8(truncatingIfNeeded: random.next())
            // Some changes still read (a letter of a token); none may crash.
            _ = try? coder.decode(broken, fields: .all, over: nil)
        }
        #expect(throws: (any Error).self) { try coder.decode(row + [0], fields: .all, over: nil) }
    }

    @Test("a value that writes to a container it already finished is refused, not saved wrong")
    func containersOutOfOrderAreRefused() {
        struct Interleaved: Encodable {
            enum Keys: String, CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var outer = encoder.container(keyedBy: Keys.self)
                var inner = outer.nestedUnkeyedContainer(forKey: .a)
                try outer.encode(1, forKey: .b)
                try inner.encode(2)
            }
        }
        #expect(throws: EncodingError.self) { try CompactEncoder.encode(Interleaved()) }
    }
}
