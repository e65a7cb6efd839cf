/// What the engine handles, in time order: an input a door made (`Input`, the one
/// vocabulary), at its time, or the session's own clock (the start, time passing, a
/// resume, the stop, a topic's next batch). The engine is deterministic, so handling
/// the entries in order on the engine they started from gives the same engine: this
/// is what a persistent store writes ahead.
public enum JournalEntry: Sendable, Equatable, Codable {
    case start(at: Millis)
    /// An input a door made, at the engine time it came.
    case input(Input, at: Millis)
    /// Time passing that fired a timer (time passing that fires none is not kept:
    /// the next input carries its own time).
    case advance(to: Millis)
    /// A device resumed from its state: the app servers it had are gone.
    case resume(at: Millis)
    /// The session stops: what is due fires, and the clock is kept as it stands
    /// whether or not anything fired (time stands still while the device is stopped).
    case stop(at: Millis)
    /// The next batch of a topic message's copies (`TopicFanOut`).
    case fanOut(at: Millis)

    /// Journals keep the name an input's entry had when inputs were commands (`apply`).
    enum CodingKeys: String, CodingKey {
        case start, input = "apply", advance, resume, stop, fanOut
    }
}

/// The calls made on an engine since a shell last took them, and the phones they
/// changed. Off by default; it never travels with the engine's state (it encodes as
/// nothing).
public struct InputRecord: Sendable, Codable {
    var isOn = false
    private(set) var inputs: [JournalEntry] = []
    /// The places in `inputs` of the inputs the engine refused: they changed nothing,
    /// so a recording of what the device took (`SessionRecording`) leaves them out.
    private(set) var refused: [Int] = []
    /// The phones changed since a shell last took them (while on). A fleet's start
    /// forgets them: what `start` makes is made again from the configuration.
    var changedPhones = ChangedPhones()

    init(isOn: Bool = false) {
        self.isOn = isOn
    }

    mutating func record(_ input: JournalEntry, refused: Bool = false) {
        guard isOn else { return }
        if refused { self.refused.append(inputs.count) }
        inputs.append(input)
    }

    /// Notes that `fields` of the phone at `index` changed (while on).
    @inline(__always)
    mutating func notePhone(_ index: Int, _ fields: Phone.Fields) {
        if isOn { changedPhones.insert(index, fields) }
    }

    /// The recorded calls, oldest first, and the places of those refused; the record
    /// starts empty again.
    mutating func take() -> (inputs: [JournalEntry], refused: [Int]) {
        defer {
            inputs.removeAll(keepingCapacity: true)
            refused.removeAll()
        }
        return (inputs, refused)
    }

    public init(from decoder: any Decoder) throws {}
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

extension JournalEntry {
    /// When the input happened, in engine time.
    public var time: Millis? {
        switch self {
        case .start(let time), .input(_, let time), .advance(let time), .resume(let time), .stop(let time),
            .fanOut(let time):
            time
        }
    }

    /// Whether the fleet is made here as its configuration starts it: every phone
    /// changed before is the fleet as started again (`start` forgets what changed).
    /// A store keeps the journal up to here to make that fleet again, not rows.
    public var startsFleet: Bool {
        if case .start = self { true } else { false }
    }
}
