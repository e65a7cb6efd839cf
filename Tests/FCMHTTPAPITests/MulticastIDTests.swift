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

    @Test("two runs start apart")
    func runsDiffer() {
        #expect(MulticastIDs().next() != MulticastIDs().next())
    }
}
