import FCMEngine
import Foundation
import Testing

/// A downstream message held once: its copies share one box of fields until one of
/// them changes, and it is coded as it was before it was boxed.
@Suite("A downstream message held once")
struct DownstreamRequestBoxTests {
    static let full: DownstreamRequest = {
        var request = DownstreamRequest(
            sender: "1", to: "token", messageID: "m-1", data: [KeyValue("a", "b")],
            notification: [KeyValue("title", "t")], collapseKey: "c", priority: "high", timeToLive: 60,
            deliveryReceiptRequested: true, dryRun: true, contentAvailable: true, mutableContent: true,
            condition: "'x' in topics")
        request.details = MessageDetails(analyticsLabel: "label")
        return request
    }()

    @Test("coded under the names the journal and saved states have always used")
    func theCodedKeysAreTheFormats() throws {
        let data = try JSONEncoder().encode(Self.full)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(
            Set(object.keys)
                == [
                    "sender", "to", "condition", "messageID", "data", "notification", "collapseKey", "priority",
                    "timeToLive", "deliveryReceiptRequested", "dryRun", "contentAvailable", "mutableContent",
                    "detailsBox",
                ])
        // A message as a journal line of the format before the box holds it.
        let written =
            #"{"sender":"1","to":"token","messageID":"m-1","data":[{"key":"a","value":"b"}],"#
            + #""deliveryReceiptRequested":false,"dryRun":false,"contentAvailable":false,"mutableContent":false}"#
        let read = try JSONDecoder().decode(DownstreamRequest.self, from: Data(written.utf8))
        #expect(read == DownstreamRequest(sender: "1", to: "token", messageID: "m-1", data: [KeyValue("a", "b")]))
        #expect(try JSONDecoder().decode(DownstreamRequest.self, from: data) == Self.full)
    }

    @Test("a copy that changes leaves the others as they were")
    func aChangedCopyLeavesTheOthers() {
        let original = Self.full
        var copy = original
        copy.to = "/topics/news"
        copy.data.append(KeyValue("c", "d"))
        copy.details = nil
        #expect(original == Self.full)
        #expect(original.to == "token" && original.data == [KeyValue("a", "b")])
        #expect(original.details?.analyticsLabel == "label")
        #expect(copy.to == "/topics/news" && copy.data.count == 2 && copy.details == nil)
        #expect(copy != original)
    }

    @Test("copies that differ only in their target: each its own, coded with it")
    func copiesDifferingOnlyInTheirTarget() throws {
        var first = Self.full
        var second = Self.full
        first.to = "token-1"
        second.to = "token-2"
        #expect(first != second)
        second.to = "token-1"
        #expect(first == second)
        let read = try JSONDecoder().decode(DownstreamRequest.self, from: JSONEncoder().encode(first))
        #expect(read.to == "token-1" && read == first)
        first.to = nil
        let untargeted = try JSONDecoder().decode(DownstreamRequest.self, from: JSONEncoder().encode(first))
        #expect(untargeted.to == nil && untargeted.condition == "'x' in topics")
    }

    @Test("it prints as its fields")
    func itPrintsAsItsFields() {
        let printed = String(describing: Self.full)
        #expect(printed.contains("sender: \"1\"") && printed.contains("to: Optional(\"token\")"), "\(printed)")
    }
}
