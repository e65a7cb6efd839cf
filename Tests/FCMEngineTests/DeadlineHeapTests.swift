import Testing

@testable import FCMEngine

@Suite("Deadline heap")
struct DeadlineHeapTests {
    @Test func aKeyWhoseDeadlineCameBackIsDueOnce() {
        var heap = DeadlineHeap<[Int: Millis]>()
        heap.set(2, 5)  // holds the top, so that key 1's entries stay below it
        heap.set(1, 10)
        heap.set(1, 20)  // (10, 1) is stale now
        heap.set(1, 10)  // and current again, next to a second (10, 1)
        #expect(heap.due(by: 10).sorted() == [1, 2])
        #expect(heap.earliest == 5)
    }

    @Test func staleEntriesDoNotPileUpBelowTheTop() {
        var heap = DeadlineHeap<[Int: Millis]>()
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
        var heap = DeadlineHeap<[Int: Millis]>()
        for key in 0..<50 { heap.set(key, Millis(key * 10)) }
        heap.remove(3)
        #expect(heap.due(by: 45).sorted() == [0, 1, 2, 4])
        heap.update(4, nil)
        heap.update(5, 0)
        #expect(heap.due(by: 45).sorted() == [0, 1, 2, 5])
    }

    @Test func thePhonesTableAgreesWithADictionary() {
        var phones = DeadlineHeap<PhoneDeadlineTable>()
        var model = DeadlineHeap<[Int: Millis]>()
        var random = SeededGenerator(seed: 3)
        for step in 0..<4_000 {
            let phone = Int(random.next() % 40)
            let deadline: Millis? = random.next() % 4 == 0 ? nil : Millis(random.next() % 1_000)
            phones.update(phone, deadline)
            model.update(phone, deadline)
            #expect(phones.earliest == model.earliest && phones.deadline(of: phone) == deadline, "step \(step)")
            if step % 200 == 0 {
                let time = Millis(random.next() % 1_000)
                #expect(phones.due(by: time).sorted() == model.due(by: time).sorted(), "step \(step)")
            }
        }
        // A phone past the end of the table has no deadline, and removing it is nothing.
        #expect(phones.deadline(of: 10_000) == nil)
        phones.update(10_000, nil)
        #expect(phones.earliest == model.earliest)
    }
}
