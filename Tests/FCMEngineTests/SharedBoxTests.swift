import Testing

@testable import FCMEngine

@Suite("A value shared by its copies until one changes")
struct SharedBoxTests {
    @Test func aCopyThatChangesTakesABoxOfItsOwn() {
        var first = SharedBox([1, 2])
        let second = first
        #expect(first.sharesStorage(with: second))
        first.value.append(3)
        #expect(first.value == [1, 2, 3] && second.value == [1, 2])
        #expect(!first.sharesStorage(with: second))
        // Alone in its box, a copy changes in place.
        var alone = SharedBox(["a"])
        alone.value[0] = "b"
        alone.value.append("c")
        #expect(alone.value == ["b", "c"])
    }
}
