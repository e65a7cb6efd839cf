import FCMEngine
import FCMProfiles
import FCMTerminalUI
import Testing

/// `R`: the app server's report card in the TUI, and Enter on its evidence.
@Suite("The report card in the TUI")
struct ReportKeysTests {
    static let profile = Scenes.profile(
        """
        version: 1
        device: { name: Pixel 8, platform: android, network: offline, seed: 12 }
        senders:
          - { id: "123456789012", key: k1 }
        timeline:
          - at: 1s
            push: { sender: "123456789012", id: a, collapse_key: a, data: { n: "1" } }
          - at: 1s
            push: { sender: "123456789012", id: b, collapse_key: b, data: { n: "1" } }
          - at: 1s
            push: { sender: "123456789012", id: c, collapse_key: c, data: { n: "1" } }
          - at: 1s
            push: { sender: "123456789012", id: d, collapse_key: d, data: { n: "1" } }
          - at: 1s
            push: { sender: "123456789012", id: e, collapse_key: e, data: { n: "1" } }
          - at: 2s
            network: online
          - at: 3s
            push: { sender: "123456789012", id: sync, priority: high, data: { s: "1" } }
        """)

    /// The profile played to its end, its report open.
    static func played() -> TUIModel {
        var model = TUIModel(playing: profile)
        Scenes.press(&model, [.end, .character("R")])
        return model
    }

    @Test func theReportAgreesWithTheReportOfTheSameEventsElsewhere() {
        let model = Self.played()
        #expect(model.overlay == .report(selected: 0))
        let replayed = Replayer.run(Self.profile)
        var card = ReportCard()
        for event in replayed.log { card.observe(event) }
        #expect(model.appServerReport.findings.map(\.rule) == card.report.findings.map(\.rule))
        #expect(model.appServerReport.findings.map(\.rule) == [.collapseKeyLimit, .highPriorityUnseen])
    }

    @Test func enterOnEvidenceGoesToItsEvent() {
        var model = Self.played()
        Scenes.press(&model, [.down, .enter])
        #expect(model.overlay == nil)
        #expect(model.focus == .events)
        #expect(model.cursorEvent?.kind == .onMessageReceived)
        #expect(model.cursorEvent?.string("id") == "sync")
        #expect(model.status?.hasPrefix("event ") == true)
    }

    @Test func aLiveSessionsReportFollowsItsEvents() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("R")])
        #expect(model.appServerReport.isClean)
        Scenes.press(&model, [.escape, .character("n")] + Array(repeating: .character("s"), count: 0))
        #expect(model.overlay == nil)
    }

    @Test func aProfilesOwnPushesAreJudgedNotNothing() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("p"), .enter, .character("R")])
        let screen = View.render(model, width: 200, height: 50).lines.joined(separator: "\n")
        #expect(screen.contains("0 app-server requests, 1 message read"), "\(screen)")
        #expect(!screen.contains("Nothing to judge yet"))
    }

    @Test func theReportScreen() {
        Snapshot.checkSizes(Self.played(), "report")
        var clean = Scenes.fresh()
        Scenes.press(&clean, [.character("R")])
        Snapshot.checkSizes(clean, "report-clean")
    }
}
