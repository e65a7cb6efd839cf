import FCMEngine
import Synchronization

/// The `multicast_id`s of legacy replies: positive, random-looking as the service's,
/// and as unlikely to repeat as random draws (the mixer is one-to-one on 64 bits; the
/// top bit is dropped for a positive number). Each is a counter, from a random start,
/// passed through SplitMix64's mixer: no system call per reply, as drawing each one
/// from the system's generator made.
final class MulticastIDs: Sendable {
    private let counter: Atomic<UInt64>

    init(start: UInt64 = UInt64.random(in: 0...UInt64.max)) {
        counter = Atomic(start)
    }

    func next() -> Int64 {
        let mixed = SeededGenerator.mix(
            counter.wrappingAdd(SeededGenerator.step, ordering: .relaxed).newValue)
        // Positive, never zero: the top bit cleared, and 0 moved to 1.
        return max(1, Int64(bitPattern: mixed >> 1))
    }
}
