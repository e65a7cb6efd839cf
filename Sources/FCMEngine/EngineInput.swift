/// One call a shell made on the engine. The engine is deterministic, so replaying
/// the calls in order on the engine they started from gives the same engine: this
/// is what a persistent store writes ahead.
public enum EngineInput: Sendable, Equatable, Codable {
    case start(at: Millis)
    case apply(Command, at: Millis)
    /// Time passing that fired a timer (time passing that fires none is not kept:
    /// the next input carries its own time).
    case advance(to: Millis)
    /// A downstream message, at the engine time it came in: how journals of state
    /// format 2 recorded CCS downstream (now `.apply(.appServer(.received(…)))`);
    /// read, no longer written.
    case push(DownstreamRequest, at: Millis)
    case send([SendOrder], at: Millis)
    /// An app server's topic-management call.
    case topics(TopicOrder, at: Millis)
    /// An app server's device-group call.
    case group(GroupOrder, at: Millis)
    /// An HTTP request on `path` that faults were in scope for (they were used).
    case httpFaults(path: String, at: Millis)
}

/// The calls made on an engine since a shell last took them, and the phones they
/// changed. Off by default; it never travels with the engine's state (it encodes as
/// nothing).
public struct InputRecord: Sendable, Codable {
    public var isOn = false
    public private(set) var inputs: [EngineInput] = []
    /// The phones changed since a shell last took them (while on). A fleet's start
    /// forgets them: what `start` makes is made again from the configuration.
    public var changedPhones = ChangedPhones()

    public init(isOn: Bool = false) {
        self.isOn = isOn
    }

    mutating func record(_ input: EngineInput) {
        if isOn { inputs.append(input) }
    }

    /// Notes that `fields` of the phone at `index` changed (while on).
    @inline(__always)
    mutating func notePhone(_ index: Int, _ fields: Installation.Fields) {
        if isOn { changedPhones.insert(index, fields) }
    }

    /// The recorded calls, oldest first; the record starts empty again.
    public mutating func take() -> [EngineInput] {
        defer { inputs.removeAll(keepingCapacity: true) }
        return inputs
    }

    public init(from decoder: any Decoder) throws {}
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

extension DeviceEngine {
    /// Replays one recorded call (its events are those the call produced first time).
    public mutating func replay(_ input: EngineInput, into out: inout [Event]) {
        switch input {
        case .start(let time): start(at: time, into: &out)
        case .apply(let command, let time): apply(command, at: time, into: &out)
        case .advance(let time): advance(to: time, into: &out)
        case .push(let request, let time):
            runTimers(to: time, into: &out)
            admit(request, into: &out)
        case .send(let orders, let time):
            runTimers(to: time, into: &out)
            _ = send(orders, into: &out)
        case .topics(let order, let time):
            runTimers(to: time, into: &out)
            _ = manageTopics(order, into: &out)
        case .group(let order, let time):
            runTimers(to: time, into: &out)
            _ = manageGroup(order, into: &out)
        case .httpFaults(let path, let time):
            runTimers(to: time, into: &out)
            _ = httpFaults(path: path, into: &out)
        }
    }
}

extension EngineInput {
    /// Whether the fleet is made here as its configuration starts it: every phone
    /// changed before is the fleet as started again (`start` forgets what changed).
    /// A store keeps the journal up to here to make that fleet again, not rows.
    public var startsFleet: Bool {
        if case .start = self { true } else { false }
    }
}
