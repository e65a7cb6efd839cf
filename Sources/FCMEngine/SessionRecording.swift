/// What a session's `w` saves: the inputs the device took from every door, in the
/// order it took them. The rule is kept here once: an input the engine refused did
/// nothing, and is left out.
public struct SessionRecording: Sendable {
    public private(set) var inputs: [JournalEntry] = []

    public init() {}

    /// Keeps `input` unless the engine's `reply` says it was refused.
    public mutating func note(_ input: JournalEntry, _ reply: EngineReply) {
        if reply != .refused { inputs.append(input) }
    }
}
