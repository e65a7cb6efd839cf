import FCMEngine

/// The one judge of `expect` and `expect_none`, for a profile's runner and for the
/// control API alike. An `expect` is met by the first event it matches that no
/// earlier `expect` was met by (two `expect`s of the same event need two events); an
/// `expect_none` holds when no event matches. Checks themselves are never evidence.
/// Events are keyed by where they stand (a position in the runner's list, a sequence
/// number in the control API's log).
public struct ExpectationJudge: Sendable {
    /// The keys of events earlier `expect`s were met by.
    public private(set) var claimed: Set<Int64> = []

    public init() {}

    /// What a judgement found: held or not, the event that decided it, and for a
    /// failure the events of the same name (for "what happened instead").
    public struct Verdict: Sendable {
        public var held: Bool
        /// The event met (`expect`) or the one that should not have happened (`expect_none`).
        public var decisive: (key: Int64, event: Event)?
        public var sameName: [(key: Int64, event: Event)] = []
    }

    /// Whether `event` at `key` may meet an `expect` now.
    public func isCandidate(_ key: Int64, _ event: Event, for expectation: Expectation) -> Bool {
        event.side != .check && !claimed.contains(key) && expectation.matches(event)
    }

    /// Judges `expectation` against `events`, in order; an `expect` met claims its event.
    public mutating func judge<Events: Sequence>(
        _ expectation: Expectation, negated: Bool, among events: Events
    ) -> Verdict where Events.Element == (key: Int64, event: Event) {
        if negated {
            for entry in events where entry.event.side != .check && expectation.matches(entry.event) {
                return Verdict(held: false, decisive: entry)
            }
            return Verdict(held: true, decisive: nil)
        }
        var sameName: [(key: Int64, event: Event)] = []
        for entry in events {
            if isCandidate(entry.key, entry.event, for: expectation) {
                claimed.insert(entry.key)
                return Verdict(held: true, decisive: entry)
            }
            if entry.event.name == expectation.event, entry.event.side != .check { sameName.append(entry) }
        }
        return Verdict(held: false, decisive: nil, sameName: sameName)
    }

    /// Forgets every claim (the device was reset).
    public mutating func forget() { claimed.removeAll() }

    /// Why a judgement failed, naming events by `label` (a time, a sequence number),
    /// or nil when it held. `happened` words the event an `expect_none` should not
    /// have seen (up to its summary).
    public static func detail(
        _ verdict: Verdict, _ expectation: Expectation, negated: Bool, by deadline: String? = nil,
        label: (Int64, Event) -> String, happened: (Int64, Event) -> String
    ) -> String? {
        guard !verdict.held else { return nil }
        if negated, let hit = verdict.decisive {
            return happened(hit.key, hit.event) + TranscriptFormatter.summary(hit.event)
        }
        if verdict.sameName.isEmpty {
            return "no \(expectation.event) event happened" + (deadline.map { " by \($0)" } ?? "")
        }
        // Each event of the name, and the fields in which it differs from what was wanted.
        return "what happened instead: "
            + verdict.sameName.suffix(3).map { entry in
                let differs = expectation.differences(from: entry.event)
                return "\(label(entry.key, entry.event)) \(TranscriptFormatter.summary(entry.event))"
                    + (differs.isEmpty ? "" : " (differs: \(differs.joined(separator: ", ")))")
            }
            .joined(separator: "; ")
    }
}
