/// A small, fast, reproducible random generator (SplitMix64). Tokens and message
/// ids come from it, so a profile's seed replays the same strings every time.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= Self.step
        return Self.mix(state)
    }

    /// What the generator adds to its state at each draw.
    public static let step: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// SplitMix64's finalizer: one-to-one on 64 bits, every bit of `word` moving every
    /// bit of the result.
    @inlinable
    public static func mix(_ word: UInt64) -> UInt64 {
        var z = word
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A stable 64-bit hash of a string (FNV-1a); Swift's own hash changes per run.
    public static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}
