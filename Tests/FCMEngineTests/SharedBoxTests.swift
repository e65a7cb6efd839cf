import Testing

@testable import FCMEngine

@Suite("A value shared by its copies until one changes")
struct SharedBoxTests {
    @Test func aCopyThatChangesTakesABoxOfItsOwn() {
        var first = SharedBox([1, 2])
        let second = first
        first.change { $0.append(3) }
        #expect(first.value == [1, 2, 3] && second.value == [1, 2])
        // Alone in its box, a copy changes in place.
        var alone = SharedBox(["a"])
        alone.change { $0[0] = "b" }
        alone.change { $0.append("c") }
        #expect(alone.value == ["b", "c"])
    }
}
