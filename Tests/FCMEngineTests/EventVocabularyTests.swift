import FCMEngine
import Foundation
import Testing

@Suite("The event vocabulary")
struct EventVocabularyTests {
    /// The names docs/events.md lists before its first `##` section: the first name in
    /// each cell of the callback table, and the names before the colon of each bullet.
    static func documentedEventNames() throws -> Set<String> {
        let events = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../docs/events.md")
        let text = try String(contentsOf: events, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "\n## ").first)
        var names = Set<String>()
        var inCallbackTable = false
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("| what |") {
                inCallbackTable = true
            } else if inCallbackTable, line.hasPrefix("| "), !line.hasPrefix("| ---") {
                // The callback table: one name per platform column.
                for cell in line.split(separator: "|").dropFirst().map(String.init) {
                    if let name = backticked(cell).first { names.insert(name) }
                }
            } else if line.hasPrefix("- `") {
                let head = line.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
                names.formUnion(backticked(head))
            } else if !line.hasPrefix("| ---") {
                inCallbackTable = false
            }
        }
        return names
    }

    static func backticked(_ text: String) -> [String] {
        text.split(separator: "`", omittingEmptySubsequences: false).enumerated().compactMap {
            $0.offset % 2 == 1 ? String($0.element) : nil
        }
    }

    @Test func theEventsGuideListsEveryEventAndNoOther() throws {
        let listed = try Self.documentedEventNames()
        let known = Set(EventName.allCases.map(\.rawValue))
        #expect(known.subtracting(listed).sorted() == [], "events docs/events.md does not list")
        #expect(listed.subtracting(known).sorted() == [], "names docs/events.md lists that no event has")
    }

    @Test func everyPlatformNamesItsCallbacksFromTheVocabulary() {
        for platform in Platform.allCases {
            for sdk in SDK.allCases {
                let names = CallbackNames(platform: platform, sdk: sdk)
                let callbacks = [names.newToken, names.messageSent, names.sendError, names.messageReceived]
                #expect(Set(callbacks).count == 4, "\(platform) \(sdk) gives two callbacks one name")
            }
        }
    }
}
