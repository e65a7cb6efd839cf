import Testing

@testable import FCMEngine

@Suite("Deadline heap")
struct DeadlineHeapTests {
    @Test func aKeyWhoseDeadlineCameBackIsDueOnce() {
        var heap = DeadlineHeap<Int>()
        heap.set(2, 5)  // holds the top, so that key 1's entries stay below it
        heap.set(1, 10)
        heap.set(1, 20)  // (10, 1) is stale now
        heap.set(1, 10)  // and current again, next to a second (10, 1)
        #expect(heap.due(by: 10).sorted() == [1, 2])
        #expect(heap.earliest == 5)
    }

    @Test func staleEntriesDoNotPileUpBelowTheTop() {
        var heap = DeadlineHeap<Int>()
        heap.set(0, 1)
        for round in 0..<10_000 { heap.set(1, Millis(100 + round)) }
        #expect(heap.entryCount <= 2 * 2 + 64)
        #expect(heap.earliest == 1)
        heap.remove(0)
        let last: Millis = 100 + 9_999
        #expect(heap.earliest == last)
        #expect(heap.due(by: .max) == [1])
    }

    @Test func dueVisitsOnlyWhatIsDueAndSkipsRemovedKeys() {
        var heap = DeadlineHeap<Int>()
        for key in 0..<50 { heap.set(key, Millis(key * 10)) }
        heap.remove(3)
        #expect(heap.due(by: 45).sorted() == [0, 1, 2, 4])
        heap.update(4, nil)
        heap.update(5, 0)
        #expect(heap.due(by: 45).sorted() == [0, 1, 2, 5])
    }
}
