/// What a session's `w` saves: the inputs the device took from every door and its
/// own timeline, in the order it took them, as the engine recorded them
/// (`DeviceEngine.takeRecorded()`: the one writer). The rule is kept here once: an
/// input the engine refused did nothing, and is left out.
public struct SessionRecording: Sendable {
    public private(set) var inputs: [JournalEntry] = []

    public init() {}

    /// Keeps what the engine recorded, less the inputs at the places it refused.
    public mutating func note(_ recorded: [JournalEntry], refused: [Int]) {
        guard !refused.isEmpty else { return inputs += recorded }
        var skip = refused.makeIterator()
        var next = skip.next()
        for (index, input) in recorded.enumerated() {
            if index == next {
                next = skip.next()
            } else {
                inputs.append(input)
            }
        }
    }
}
