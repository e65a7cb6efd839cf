import Foundation
import Testing

@testable import FCMEngine

@Suite("A phone's maps by sender")
struct SenderMapTests {
    @Test func itAgreesWithADictionaryThroughSetsRemovesAndChangesInPlace() {
        var map: SenderMap<Int> = [:]
        var model: [String: Int] = [:]
        var random = SeededGenerator(seed: 11)
        let senders = (0..<12).map { "1234567890\($0)" } + ["", "a-much-longer-sender-id-than-any-real-one"]
        for step in 0..<2_000 {
            let sender = senders[Int(random.next() % UInt64(senders.count))]
            switch random.next() % 4 {
            case 0:
                map[sender] = nil
                model[sender] = nil
            case 1:
                map[sender, default: 0] += 1
                model[sender, default: 0] += 1
            default:
                map[sender] = step
                model[sender] = step
            }
        }
        #expect(senders.allSatisfy { map[$0] == model[$0] } && map.count == model.count)
        #expect(Dictionary(uniqueKeysWithValues: map.map { ($0.key, $0.value) }) == model)
    }

    @Test func sendersKeepTheOrderTheyWereAddedIn() {
        var map: SenderMap<String> = ["b": "1"]
        map["a"] = "2"
        map["c"] = "3"
        map["a"] = "4"
        #expect(Array(map.keys) == ["b", "a", "c"] && Array(map.values) == ["1", "4", "3"])
        map["b"] = nil
        #expect(Array(map.keys) == ["a", "c"])
    }

    @Test func itIsSavedAsTheJSONObjectADictionaryWas() throws {
        let map: SenderMap<[String]> = ["222": ["x", "y"], "111": ["z"]]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let saved = try encoder.encode(map)
        #expect(saved == (try encoder.encode(["111": ["z"], "222": ["x", "y"]])))
        let read = try JSONDecoder().decode(SenderMap<[String]>.self, from: saved)
        #expect(read == map && read["222"] == ["x", "y"])
        // Equal whatever the order the senders came in.
        #expect(Array(read.keys) == ["111", "222"] && Array(map.keys) == ["222", "111"])
    }
}
