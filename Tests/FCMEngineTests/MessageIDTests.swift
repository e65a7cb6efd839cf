import Testing

@testable import FCMEngine

@Suite("message ids")
struct MessageIDTests {
    /// The service's form, as the engine has always written it: `0:`, the time in
    /// microseconds since an epoch with the counter in its last three digits, `%`, and
    /// sixteen hex digits drawn from the device's seed.
    static func expected(seed: UInt64, counter: UInt64, now: Millis) -> String {
        var rng = SeededGenerator(seed: seed ^ (counter &* 0x9E37_79B9))
        let stamp = (1_700_000_000_000 + now) * 1_000 + Int64(counter % 1_000)
        let hex = String(rng.next(), radix: 16)
        return "0:\(stamp)%" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test("ids keep the service's form, digit for digit, for any seed and time")
    func serviceForm() {
        for seed: UInt64 in [0, 7, 0xFFFF_FFFF_FFFF_FFFF] {
            var harness = Harness(seed: seed)
            for step in 0..<300 {
                harness.wait(Millis(step * 37))
                let counter = harness.engine.server.messageCounter + 1
                let id = harness.engine.nextMessageID()
                #expect(id == Self.expected(seed: seed, counter: counter, now: harness.engine.now))
                #expect(id.utf8.count == 2 + 16 + 1 + 16)
            }
        }
    }
}
