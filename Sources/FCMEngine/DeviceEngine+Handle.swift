/// The engine's one way in: every door (a key, a stanza, an HTTP request, a
/// control-API action, a profile's step, time passing) hands it an input, and it
/// answers with events (and effects to take) and a reply for the door that asked.
/// The input is recorded here, so the journal is every input by construction.
extension DeviceEngine {
    /// Runs one entry at its time (clamped, so time never runs backwards), after
    /// every timer due by then: an input a door made, or the session's clock.
    @discardableResult
    public mutating func handle(_ entry: JournalEntry, into out: inout [Event]) -> EngineReply {
        // The two entries replay makes for every step first (the rest are rarer).
        switch entry {
        case .input(let input, let time):
            // Kept at the engine's time: a door that read the clock a moment before
            // another door moved it on replays where it ran.
            let at = max(time, now)
            let before = refusals
            let reply = apply(input, at: time, into: &out)
            if case .unchanged = reply { return reply }
            let refused = refusals != before
            if inputs.isOn { inputs.record(.input(input, at: at), refused: refused) }
            guard case .done = reply else { return reply }
            return refused ? .refused : .done
        case .advance(let time):
            // Time that fires nothing need not be kept: the next input carries its own time.
            if inputs.isOn, let deadline = nextDeadline, deadline <= time { inputs.record(entry) }
            runTimers(to: time, into: &out)
        case .start(let time):
            inputs.record(entry)
            start(at: time, into: &out)
        case .stop(let time):
            if inputs.isOn { inputs.record(.advance(to: max(time, now))) }
            runTimers(to: time, into: &out)
        case .resume(let time):
            inputs.record(entry)
            forgetAppServers(at: time, into: &out)
        case .fanOut(let time):
            // Nothing going out (another door's input finished it): time passing, as ever.
            guard hasPendingFanOut else { return handle(.advance(to: time), into: &out) }
            runTimers(to: time, into: &out)
            inputs.record(.fanOut(at: now))
            continueFanOut(into: &out)
        }
        return .done
    }

    /// Handles an input whose events nobody reads (a saved fleet made again from its
    /// journal): the rules run as ever, and no event is made.
    @discardableResult
    public mutating func handleSilently(_ input: JournalEntry) -> EngineReply {
        var none: [Event] = []
        silent = true
        defer { silent = false }
        return handle(input, into: &none)
    }

    /// The events one input makes (for tests and small shells).
    public mutating func handle(_ input: JournalEntry) -> [Event] {
        var out: [Event] = []
        handle(input, into: &out)
        return out
    }
}

/// What the engine answers the door that handed it an input, beside the events.
public enum EngineReply: Sendable, Equatable {
    /// Nothing beyond the events.
    case done
    /// The device refused the command (a `commandRefused` event says why): it changed
    /// nothing, so a recording of what the device took leaves it out.
    case refused
    /// What became of an HTTP API's downstream messages.
    case sent(SendOutcome)
    /// What became of a topic-management call.
    case topics(TopicOutcome)
    /// What became of a device-group call.
    case group(GroupOutcome)
    /// What the faults in scope do to an HTTP request (a delay, a status).
    case faults([FaultEffect])
    /// The push service's answer to a Web Push request (boxed: every input's reply
    /// is not made larger by the rare one).
    indirect case webPush(WebPushAnswer)
    /// The registration hosts' answer to a real client (boxed, as `webPush`).
    indirect case receiver(ReceiverAnswer)
    /// The input found nothing to do and changed nothing (a fault check with no
    /// fault in scope): the journal does not keep it.
    case unchanged

    public var sendOutcome: SendOutcome? { if case .sent(let outcome) = self { outcome } else { nil } }
    public var topicOutcome: TopicOutcome? { if case .topics(let outcome) = self { outcome } else { nil } }
    public var groupOutcome: GroupOutcome? { if case .group(let outcome) = self { outcome } else { nil } }
    public var webPushAnswer: WebPushAnswer? { if case .webPush(let answer) = self { answer } else { nil } }
    public var receiverAnswer: ReceiverAnswer? { if case .receiver(let answer) = self { answer } else { nil } }
    public var faultEffects: [FaultEffect] { if case .faults(let effects) = self { effects } else { [] } }
}

/// What a store journals: the inputs the engine took, at the times it took them, and
/// the phones they changed. The record is the shell's bookkeeping, not the device's:
/// it never travels with the engine's state, and switching it changes no rule.
extension DeviceEngine {
    /// Whether the inputs handled are kept for a shell to take.
    public var isRecording: Bool { inputs.isOn }

    /// The engine keeping (or not) every input it handles from now on, and the phones
    /// they change.
    public func recording(_ on: Bool) -> DeviceEngine {
        var engine = self
        engine.inputs = InputRecord(isOn: on)
        return engine
    }

    /// The inputs handled (the places of those refused among them) and the phones
    /// changed since the last call, oldest first; the record starts empty again.
    public mutating func takeRecorded() -> (
        inputs: [JournalEntry], refused: [Int], changedPhones: [(index: Int, fields: Phone.Fields)]
    ) {
        let (taken, refused) = inputs.take()
        return (taken, refused, inputs.changedPhones.take())
    }
}
