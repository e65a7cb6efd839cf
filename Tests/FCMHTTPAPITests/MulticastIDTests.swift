import Testing

@testable import FCMHTTPAPI

@Suite("multicast ids")
struct MulticastIDTests {
    @Test("ids are positive and distinct, from any start, the largest one included")
    func positiveAndDistinct() {
        for start: UInt64 in [0, 1, UInt64.max, UInt64.max - 0x9E37_79B9_7F4A_7C15, 12_345] {
            let ids = MulticastIDs(start: start)
            let drawn = (0..<10_000).map { _ in ids.next() }
            #expect(drawn.allSatisfy { $0 > 0 })
            #expect(Set(drawn).count == drawn.count)
        }
    }

    @Test("consecutive ids do not follow a pattern a client could count on")
    func notSequential() {
        let ids = MulticastIDs(start: 0)
        let drawn = (0..<1_000).map { _ in ids.next() }
        let steps = Set(zip(drawn, drawn.dropFirst()).map { $0.1 &- $0.0 })
        #expect(steps.count > 990, "ids step by a few fixed amounts: \(steps.count) distinct steps")
    }

    @Test("two runs start apart")
    func runsDiffer() {
        #expect(MulticastIDs().next() != MulticastIDs().next())
    }
}
