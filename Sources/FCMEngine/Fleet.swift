/// The phones of a device, by index. A phone the profile starts is made when a rule
/// first changes it: until then it is its profile entry's phone as started (its
/// settings, its senders and, once the fleet has started, its first tokens), made
/// again whenever it is read, and it costs the fleet four bytes. Ten million phones
/// nothing has touched take 40 MB, not ten gigabytes.
///
/// The first phone is always made, and so are a web app's (its first token also
/// subscribes its browser to push, which the connection server keeps).
public struct Fleet: Sendable, RandomAccessCollection {
    /// The phones made so far, in the order they were made.
    var made: [Phone] = []
    /// By index: where the phone is in `made`, or -1 while it is as started.
    private var places: [Int32] = []
    /// How the phones not made yet are made; nil when every phone is made.
    private(set) var start: FleetStart?

    public init() {}

    /// Every phone `phones`, made.
    init(_ phones: [Phone]) {
        made = phones
        places = phones.indices.map { Int32($0) }
    }

    /// The phones `configuration` starts, none with a token yet: the first and every
    /// web app made now, the rest as started.
    init(starting configuration: EngineConfiguration) {
        let start = FleetStart(configuration)
        places = [Int32](repeating: -1, count: start.count)
        for entry in start.entries where entry.first == 0 || !entry.waits {
            for index in entry.first..<(entry.waits ? Swift.min(1, entry.end) : entry.end) {
                replace(at: index, with: start.madeAtStart(at: index, of: entry))
            }
        }
        self.start = start.count > made.count ? start : nil
    }

    /// How many phones are made (the rest are as started).
    public var madeCount: Int { made.count }

    public var startIndex: Int { 0 }
    public var endIndex: Int { places.count }

    /// The phone at `index`: made, or made again as started (a copy either way).
    public subscript(index: Int) -> Phone {
        let place = places[index]
        return place >= 0 ? made[Int(place)] : startingPhone(at: index)
    }

    /// Where the phone at `index` lies in `made`, or -1 while it is as started.
    @inline(__always) func place(of index: Int) -> Int { Int(places[index]) }

    /// Whether the phone at `index` is still as started (not made).
    @inline(__always) func isAsStarted(_ index: Int) -> Bool { places[index] < 0 }

    /// A phone joins at the end, made.
    mutating func append(_ phone: Phone) {
        places.append(Int32(made.count))
        made.append(phone)
    }

    /// Puts `phone` in the place of the phone at `index`, making it if it was as started.
    mutating func replace(at index: Int, with phone: Phone) {
        let place = places[index]
        if place >= 0 {
            made[Int(place)] = phone
        } else {
            places[index] = Int32(made.count)
            made.append(phone)
        }
    }

    /// Makes the phone at `index`, as started, where it was not made: where it lies.
    mutating func make(_ index: Int) -> Int {
        let place = places[index]
        if place >= 0 { return Int(place) }
        replace(at: index, with: startingPhone(at: index))
        return made.count - 1
    }

    /// Each phone made so far, with its index, lowest index first, read where it lies.
    func forEachMade(_ body: (Int, borrowing Phone) -> Void) {
        made.withUnsafeBufferPointer { buffer in
            guard let phones = buffer.baseAddress else { return }
            for index in places.indices where places[index] >= 0 {
                // A pointer's subscript addresses the element; a buffer's returns a copy.
                body(index, phones[Int(places[index])])
            }
        }
    }

    /// From now on the phones as started have their first tokens (issued at `time`;
    /// those that could not reach the connection server then were unreachable since).
    mutating func started(at time: Millis, serviceUp: Bool) {
        start?.startedAt = time
        start?.serviceUp = serviceUp
    }

    /// The phone at `index` as started, made now (it is not made).
    func startingPhone(at index: Int) -> Phone {
        guard let start else { preconditionFailure("no phone at \(index)") }
        return start.phone(at: index)
    }

    /// The name of the phone at `index`, read without making it.
    func name(at index: Int) -> String {
        let place = places[index]
        if place >= 0 { return made[Int(place)].name }
        return start.unsafelyUnwrapped.name(at: index)
    }

    /// The senders of the phone at `index`, read without making it.
    func senders(at index: Int) -> [SenderConfig] {
        let place = places[index]
        if place >= 0 { return made[Int(place)].senders }
        return start.unsafelyUnwrapped.entry(of: index).senders
    }

    /// The phone named `name` while it is as started, or nil.
    func asStarted(named name: String) -> Int? {
        guard let index = start?.index(named: name), isAsStarted(index) else { return nil }
        return index
    }

    /// The phone as started holding `token` (among `candidates`), or nil.
    func asStarted(holding token: String, among candidates: [Int]) -> Int? {
        guard let start, start.startedAt != nil else { return nil }
        return candidates.first { index in
            isAsStarted(index) && start.firstTokens(at: index).contains { $0.token == token }
        }
    }
}

extension Fleet: Codable {
    public init(from decoder: any Decoder) throws {
        self.init(try [Phone](from: decoder))
    }

    /// Every phone, those as started made to be written.
    public func encode(to encoder: any Encoder) throws {
        var list = encoder.unkeyedContainer()
        for index in indices { try list.encode(self[index]) }
    }
}
