import Testing

@testable import FCMEngine

@Suite("String tables: the fleet's token index and a phone's used message ids")
struct StringTableTests {
    /// Tokens as a fleet makes them, from a seed.
    static func tokens(_ count: Int, seed: UInt64 = 5) -> [String] {
        (0..<count).map {
            TokenFactory(seed: seed &+ UInt64($0), sdk: .fcm).token(sender: "1", installation: 0, refreshes: 0)
        }
    }

    @Test func aTokenFindsItsPhoneAndAnUnknownOneNone() {
        var index = PhoneMap()
        #expect(index.isEmpty && index["x"] == nil)
        let tokens = Self.tokens(3)
        for (phone, token) in tokens.enumerated() { index[token] = phone }
        #expect(tokens.map { index[$0] } == [0, 1, 2] && index.count == 3)
        #expect(index[tokens[0] + "x"] == nil && index[String(tokens[0].dropLast())] == nil)
        // Set again: the phone it was last issued on.
        index[tokens[1]] = 7
        #expect(index[tokens[1]] == 7 && index.count == 3)
    }

    @Test func itAgreesWithADictionaryThroughInsertsRemovesAndGrowth() {
        var index = PhoneMap()
        var model: [String: Int] = [:]
        var random = SeededGenerator(seed: 42)
        let tokens = Self.tokens(600) + ["", "a", "short", "exactly8", "ninebytes"]
        for step in 0..<5_000 {
            let token = tokens[Int(random.next() % UInt64(tokens.count))]
            if random.next() % 3 == 0 {
                index[token] = nil
                model[token] = nil
            } else {
                index[token] = step
                model[token] = step
            }
            if step % 500 == 0 {
                #expect(tokens.allSatisfy { index[$0] == model[$0] }, "differs at step \(step)")
            }
        }
        #expect(tokens.allSatisfy { index[$0] == model[$0] } && index.count == model.count)
        index.removeAll(keepingCapacity: true)
        #expect(index.isEmpty && tokens.allSatisfy { index[$0] == nil })
    }

    @Test func tokensThatShareAHomeSlotAreEachFoundAndRemovedApart() {
        // Sixteen slots: of 12 tokens, many share a home; removing some moves the
        // others back without losing any.
        var index = PhoneMap()
        let tokens = Self.tokens(12, seed: 900)
        for (phone, token) in tokens.enumerated() { index[token] = phone }
        for token in tokens where token.utf8.last! % 2 == 0 { index[token] = nil }
        for (phone, token) in tokens.enumerated() {
            #expect(index[token] == (token.utf8.last! % 2 == 0 ? nil : phone))
        }
    }

    @Test func tokensCompareByTheirBytes() {
        // The same text to Unicode (K and the Kelvin sign), not the same token.
        var index = PhoneMap()
        index["token-K"] = 1
        #expect("token-K" == "token-\u{212A}")
        #expect(index["token-\u{212A}"] == nil && index["token-K"] == 1)
        #expect(StringSet.hash("abc") == StringSet.hash("abc") && StringSet.hash("abc") != StringSet.hash("abd"))
    }

    @Test func aStringSetAgreesWithASetThroughInsertsAndRemoves() {
        var set = StringSet()
        var model: Set<String> = []
        var random = SeededGenerator(seed: 7)
        let ids = (0..<300).map { "m-\($0)" } + ["", "exactly8", "ninebytes"]
        for _ in 0..<3_000 {
            let id = ids[Int(random.next() % UInt64(ids.count))]
            if random.next() % 4 == 0 {
                set.remove(id)
                model.remove(id)
            } else {
                #expect(set.insert(id) == model.insert(id).inserted, "\(id)")
            }
        }
        #expect(ids.allSatisfy { set.contains($0) == model.contains($0) } && set.count == model.count)
        #expect(Set(set.keys) == model)
    }

    @Test func heldMessagesAreKeyedByTheBytesOfTheirIDsAsUsedIDsAre() {
        // The same text to Unicode, two ids to a phone's used ids: so two messages held.
        var used = StringSet()
        #expect(used.insert("K") && used.insert("\u{212A}"))
        let keys: Set<MessageKey> = [MessageKey(sender: "1", id: "K"), MessageKey(sender: "1", id: "\u{212A}")]
        #expect(keys.count == 2 && keys.contains(MessageKey(sender: "1", id: "K")))
        #expect(MessageKey(sender: "1", id: "a") != MessageKey(sender: "2", id: "a"))
    }
}
