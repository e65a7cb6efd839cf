import FCMEngine
import Testing

/// The engine says why each event happened, and what its store holds and why.
@Suite("Explanations and what the server holds")
struct ExplanationTests {
    @Test func aNormalPriorityMessageStoredWhileDozingIsExplainedByDoze() throws {
        var h = Harness()
        h.run(.setDoze(true))
        let stored = try #require(h.push(priority: "normal", id: "m-7").named("stored").first)
        #expect(stored.ruleNote.rule.contains("dozes"))
        #expect(stored.ruleNote.source == "docs/RULES.md Delivery, storage and lifetime")
    }

    @Test func theTwentyFirstQueuedMessageIsExplainedByTheQueueLimit() throws {
        var h = Harness(network: .offline)
        for n in 1...21 { h.send("m-\(n)") }
        let failure = try #require(h.named("onSendError").first)
        #expect(failure.ruleNote.rule.contains("at most 20"))
    }

    @Test func aStoreOverflowIsExplainedAsDiscardingEverything() throws {
        var h = Harness(network: .offline, store: StorePolicy(nonCollapsibleLimit: 2))
        for n in 1...3 { h.push(id: "m-\(n)") }
        let discarded = try #require(h.named("discarded").first)
        #expect(discarded.ruleNote.rule.contains("discards everything stored"))
    }

    @Test func everyEventHasARuleAndASource() {
        for name in EventName.allCases {
            let note = Event(at: 0, side: .device, kind: name).ruleNote
            #expect(!note.rule.isEmpty && !note.source.isEmpty, "\(name)")
        }
    }

    @Test func heldMessagesSayWhyTheyWaitAndTheStoreCountsAgainstItsLimits() {
        var h = Harness(network: .offline)
        h.push(id: "m-1")
        h.push(notification: [KeyValue("title", "Hi")], collapseKey: "score", ttl: 60, id: "m-2")
        let held = h.engine.heldMessages(ofPhoneAt: 0)
        #expect(held.map(\.id) == ["m-1", "m-2"])
        #expect(held.map(\.reason) == ["offline", "offline"])
        #expect(held.map(\.collapseKey) == [nil, "score"])
        #expect(held[1].expiresAt == 60_000)
        #expect(
            h.engine.storeUsage(ofPhoneAt: 0)
                == StoreUsage(nonCollapsible: 1, nonCollapsibleLimit: 100, collapseKeys: 1, collapseKeyLimit: 4))
        h.run(.setNetwork(.online))
        h.run(.setDoze(true))
        #expect(h.engine.heldMessages(ofPhoneAt: 0).isEmpty)
    }
}
