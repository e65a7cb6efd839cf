import FCMEngine
import FCMEventGuide
import Foundation
import Testing

@Suite("The event vocabulary")
struct EventVocabularyTests {
    static let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../../docs/events.md")
    static let listStart =
        "<!-- every event: made from EventName.described (SNAPSHOT_RECORD=1 swift test writes it) -->\n"
    static let listEnd = "<!-- end of every event -->"

    /// docs/events.md's list is the one the events' descriptions make: an event added,
    /// a field or a meaning changed shows there, or this fails.
    @Test func theEventsGuideListsEveryEventAsDescribed() throws {
        var text = try String(contentsOf: Self.guide, encoding: .utf8)
        let start = try #require(text.range(of: Self.listStart), "docs/events.md has no list marker")
        let end = try #require(text.range(of: Self.listEnd, range: start.upperBound..<text.endIndex))
        let list = EventName.guideList
        if ProcessInfo.processInfo.environment["SNAPSHOT_RECORD"] == "1" {
            text.replaceSubrange(start.upperBound..<end.lowerBound, with: list)
            try text.write(to: Self.guide, atomically: true, encoding: .utf8)
            Issue.record("wrote docs/events.md's list; run again without SNAPSHOT_RECORD")
        }
        #expect(String(text[start.upperBound..<end.lowerBound]) == list, "docs/events.md drifted: SNAPSHOT_RECORD=1")
        for kind in EventName.allCases {
            #expect(list.contains("`\(kind.rawValue)`"), "the list leaves out \(kind.rawValue)")
        }
    }

    @Test func everyKindSaysWhatItMeans() {
        for kind in EventName.allCases {
            #expect(!kind.described.meaning.isEmpty, "\(kind.rawValue) says nothing of what it means")
        }
    }

    @Test func aRulePickedByWhatTheEventSaysFallsBackWhenItSaysSomethingElse() {
        let throttled = Event(at: 0, side: .server, kind: .stored, fields: [Field("reason", .string("throttled"))])
        let offline = Event(at: 0, side: .server, kind: .stored, fields: [Field("reason", .string("offline"))])
        #expect(throttled.ruleNote.rule.contains("burst of 20"))
        #expect(offline.ruleNote.rule.contains("stores it"))
        let topic = Event(at: 0, side: .server, kind: .downstreamAccepted, fields: [Field("subscribers", .int(2))])
        #expect(topic.ruleNote.source.contains("Topics"))
        #expect(Event(at: 0, side: .server, kind: .downstreamAccepted).ruleNote.source.contains("acceptance"))
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
