/// The phones as started (`Fleet`), found by their first tokens without keeping the
/// tokens: each phone's token identity (`TokenFactory.identity`, eleven characters of
/// the token made without the rest), hashed to 32 bits beside the phone's index, in
/// an open-addressing table probed linearly. A lookup gives the few phones whose
/// identity hashes alike, and the engine makes their tokens again to compare. Eight
/// bytes a slot, at most three quarters full: ten million phones take 128 MiB.
/// Made when the fleet starts; not saved.
struct StartTokenIndex: Sendable {
    /// The hash's high 32 bits, then the phone's index plus one; 0 while empty.
    private var slots: [UInt64] = []

    init() {}

    /// The identities of `fleet`'s phones still as started.
    init(_ fleet: Fleet) {
        guard let start = fleet.start, start.startedAt != nil else { return }
        var count = 0
        for entry in start.entries where entry.waits {
            count += (entry.end - entry.first) * (entry.spec.settings.sdk == .fcm ? 1 : entry.senders.count)
        }
        guard count > 0 else { return }
        var size = 16
        while size / 4 * 3 < count { size *= 2 }
        slots = [UInt64](repeating: 0, count: size)
        for entry in start.entries where entry.waits {
            // An FCM token's identity is its instance id, the same for every sender.
            let senders = entry.spec.settings.sdk == .fcm ? [""] : entry.senders.map(\.id)
            for index in entry.first..<entry.end where fleet.isAsStarted(index) {
                let factory = start.tokenFactory(at: index, of: entry)
                for sender in senders {
                    insert(factory.identity(sender: sender, installation: 0, refreshes: 0), index)
                }
            }
        }
    }

    private mutating func insert(_ identity: UInt64, _ index: Int) {
        let hash = SeededGenerator.mix(identity)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 { slot = (slot + 1) & mask }
        slots[slot] = hash & 0xFFFF_FFFF_0000_0000 | UInt64(index + 1)
    }

    /// The phones whose identity hashes as `token`'s: the one that holds it among them,
    /// if any phone as started does.
    func candidates(for token: String) -> [Int] {
        guard !slots.isEmpty, let identity = TokenFactory.identity(of: token) else { return [] }
        let hash = SeededGenerator.mix(identity)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        var found: [Int] = []
        while slots[slot] != 0 {
            if slots[slot] & 0xFFFF_FFFF_0000_0000 == hash & 0xFFFF_FFFF_0000_0000 {
                found.append(Int(slots[slot] & 0xFFFF_FFFF) - 1)
            }
            slot = (slot + 1) & mask
        }
        return found
    }
}
