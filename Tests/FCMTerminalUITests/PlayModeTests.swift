import FCMEngine
import FCMProfiles
import FCMTerminalUI
import Testing

/// Play mode: a profile's timeline played in the TUI, stepped, seeked, and forked
/// into a session of the user's own that saves and replays.
@Suite("Play mode")
struct PlayModeTests {
    static let demo = Scenes.profile(
        """
        version: 1
        description: A phone in a drawer misses two pushes, then hears of them when it comes back.
        device: { name: Pixel 8, platform: android, app: com.example.chat, network: offline, seed: 7 }
        senders:
          - { id: "123456789012", key: k1 }
        timeline:
          - at: 2s
            push: { sender: "123456789012", id: m-1, data: { n: "1" } }
            note: "The phone is offline: the connection server stores m-1 for it."
          - at: 4s
            push: { sender: "123456789012", id: m-2, notification: { title: Hi, body: there } }
            note: "A second message waits in the store too."
          - at: 4s
            expect: { event: stored, id: m-2 }
          - at: 10s
            network: online
            note: "Back online: both stored messages are delivered at once."
          - at: 10s
            expect: { event: onMessageReceived, id: m-1 }
          - at: 12s
            expect: { event: onMessageReceived, id: m-404 }
            note: "This expectation fails on purpose: no m-404 was ever sent."
        """)

    static func playing() -> TUIModel { TUIModel(playing: demo) }

    @Test func playModeStartsPausedAtTheStartShowingTheDescription() {
        let model = Self.playing()
        #expect(model.play?.playing == false)
        #expect(model.play?.playback.position == 0)
        #expect(model.now == 0)
        #expect(model.play?.position == "step 0/6  +00:00:00  ‖ paused 10× ")
        let screen = View.render(model, width: 80, height: 24).text
        #expect(screen.contains("A phone in a drawer misses two pushes"))
    }

    @Test func dotAndArrowStepForwardCommaAndArrowStepBack() {
        var model = Self.playing()
        Scenes.press(&model, [.character(".")])
        #expect(model.play?.playback.position == 1)
        #expect(model.now == 2_000)
        #expect(model.device.devices[0].stored.map(\.id) == ["m-1"])
        Scenes.press(&model, [.right, .right])
        #expect(model.play?.playback.position == 3)
        #expect(model.log.last?.kind == .expectationHeld)
        Scenes.press(&model, [.character(",")])
        #expect(model.play?.playback.position == 2)
        #expect(!model.log.contains { $0.kind == .expectationHeld })
        Scenes.press(&model, [.left, .left])
        #expect(model.play?.playback.position == 0)
        #expect(model.device.devices[0].stored.isEmpty)
    }

    @Test func spacePlaysAtTheChosenSpeedOnTheVirtualClock() {
        var model = Self.playing()
        _ = model.tick(now: 100)
        Scenes.press(&model, [.character(" ")])
        #expect(model.isPlaying)
        // Half a real second at 10× is five seconds of the profile.
        _ = model.tick(now: 600)
        #expect(model.now == 5_000)
        #expect(model.play?.playback.position == 3)
        Scenes.press(&model, [.character("+")])
        #expect(model.play?.speed == .x60)
        Scenes.press(&model, [.character("-"), .character("-"), .character("-"), .character("-")])
        #expect(model.play?.speed == .x1)
        Scenes.press(&model, [.character(" ")])
        #expect(!model.isPlaying)
        _ = model.tick(now: 5_000)
        #expect(model.now == 5_000)
    }

    @Test func jumpSpeedGoesStraightToTheNextStepEachSecond() {
        var model = Self.playing()
        Scenes.press(&model, [.character("+"), .character("+"), .character(" ")])
        #expect(model.play?.speed == .jump)
        _ = model.tick(now: 0)
        _ = model.tick(now: 999)
        #expect(model.play?.playback.position == 0)
        _ = model.tick(now: 1_000)
        #expect(model.play?.playback.position == 1)
        #expect(model.now == 2_000)
    }

    @Test func playingToTheEndStopsAndSaysHowManyExpectationsHeld() {
        var model = Self.playing()
        Scenes.press(&model, [.character(" ")])
        _ = model.tick(now: 0)
        _ = model.tick(now: 10_000)
        #expect(!model.isPlaying)
        #expect(model.play?.summary == "End of the profile: 2 of 3 expectations held. Home plays it again.")
        let failed = model.log.first { $0.kind == .expectationFailed }
        #expect(failed?.string("detail")?.contains("what happened instead") == true)
        Scenes.press(&model, [.home])
        #expect(model.play?.playback.position == 0)
        #expect(model.play?.summary == nil)
    }

    @Test func gGoesToATimeTypedAsAStamp() {
        var model = Self.playing()
        Scenes.press(&model, [.character("g")])
        guard case .form(let form)? = model.overlay else {
            Issue.record("g opened no form")
            return
        }
        #expect(form.purpose == .goToTime)
        Scenes.press(&model, Array(repeating: .backspace, count: 12) + Scenes.type("0:09") + [.enter])
        #expect(model.overlay == nil)
        #expect(model.now == 9_000)
        #expect(model.play?.playback.position == 3)
        Scenes.press(
            &model, [.character("g")] + Array(repeating: .backspace, count: 12) + Scenes.type("soon") + [.enter])
        guard case .form(let refused)? = model.overlay else {
            Issue.record("a bad time closed the form")
            return
        }
        #expect(refused.fields.first?.error?.contains("a time such as") == true)
    }

    @Test func actingWhilePausedForksTheSessionAndTheSavedFileReplaysToWhatTheUserSaw() throws {
        var model = Self.playing()
        Scenes.press(&model, [.character("."), .character(".")])
        // The user takes over: the phone comes online early, and the app goes to the background.
        Scenes.press(&model, [.character("n")])
        #expect(model.play == nil)
        #expect(model.fork?.steps.count == 2)
        #expect(model.device.devices[0].network == .online)
        #expect(model.status?.contains("forked at step 2/6") == true)
        Scenes.press(&model, [.character("b")])
        // The fork's clock runs on at the real pace from where the profile stood.
        _ = model.tick(now: 50_000)
        _ = model.tick(now: 51_500)
        #expect(model.now == 5_500)
        let effects = Scenes.press(&model, [.character("w"), .enter])
        guard case .saveProfile(_, let yaml, _)? = effects.first else {
            Issue.record("w wrote nothing: \(effects)")
            return
        }
        let saved = try ProfileParser.parse(yaml, file: "fork.yaml")
        #expect(saved.steps.count == 4)
        #expect(saved.steps.first?.note == "The phone is offline: the connection server stores m-1 for it.")
        let replay = Replayer.run(saved)
        #expect(replay.events == model.log.filter { $0.side != .check })
    }

    @Test func aForkedClockRunsOnEvenWhenNothingHappens() {
        var model = Self.playing()
        Scenes.press(&model, [.character("."), .character("z")])
        let forkedAt = model.now
        // Quiet ticks, a quarter of a second apart: each moves the fork's clock on.
        for tick in 0..<8 { _ = model.tick(now: 100_000 + Millis(tick) * 250) }
        #expect(model.now == forkedAt + 7 * 250)
    }

    @Test func homeAfterAForkGoesBackToTheProfileAtItsStartPausedAtTheSpeedItHad() {
        var model = Self.playing()
        Scenes.press(&model, [.character("+"), .character("."), .character("z")])
        #expect(model.fork?.speed == .x60)
        Scenes.press(&model, [.home])
        #expect(model.fork == nil)
        #expect(model.play?.playback.position == 0)
        #expect(!model.device.devices[0].doze)
        #expect(!model.isPlaying)
        #expect(model.play?.speed == .x60, "the speed chosen before the fork")
        #expect(model.status?.hasPrefix("back to the profile at +0, paused") == true)
    }

    @Test func theClockKeysMoveAForkedClockOnlyOnce() {
        var model = Self.playing()
        let effects = Scenes.press(&model, [.character("2")])
        #expect(effects.isEmpty)
        #expect(model.now == Span.hour)
        #expect(model.fork?.steps.isEmpty == true)
    }
}

/// Play mode's screens, text and styles, at 80x24 and 200x50.
@Suite("Play mode screens")
struct PlayModeScreenTests {
    func check(_ model: TUIModel, _ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        Snapshot.checkSizes(model, name, withStyles: true, sourceLocation: sourceLocation)
    }

    @Test func pausedAtTheStart() {
        check(PlayModeTests.playing(), "play-start")
    }

    @Test func midRunWithANote() {
        var model = PlayModeTests.playing()
        Scenes.press(&model, [.character("+"), .character("."), .character("."), .character(".")])
        check(model, "play-mid")
    }

    @Test func aFailedExpectation() {
        var model = PlayModeTests.playing()
        Scenes.press(&model, Array(repeating: .character("."), count: 6))
        Scenes.press(&model, [.character("-")])
        check(model, "play-failed")
    }

    @Test func theHelpInPlayMode() {
        var model = PlayModeTests.playing()
        Scenes.press(&model, [.character("?")])
        check(model, "play-help")
    }

    /// An offline phone holding two messages, one collapsible, then back online.
    static func journeyModel() -> TUIModel {
        var model = PlayModeTests.playing()
        Scenes.press(&model, [.character("."), .character("."), .character(".")])
        return model
    }

    @Test func theHeldOnServerOverlay() {
        var model = Self.journeyModel()
        Scenes.press(&model, [.character("h"), .down])
        check(model, "held")
    }

    @Test func anEventWholeWithItsRule() {
        var model = Self.journeyModel()
        Scenes.press(&model, [.up, .enter])
        check(model, "event-detail")
    }

    @Test func aMessagesJourney() {
        var model = Self.journeyModel()
        Scenes.press(&model, Array(repeating: .character("."), count: 2))
        Scenes.press(&model, [.tab, .tab, .up, .character("j")])
        check(model, "journey")
    }

    @Test func aForkedSession() {
        var model = PlayModeTests.playing()
        Scenes.press(&model, [.character("."), .character("n")])
        check(model, "play-forked")
    }
}

/// Seeing why: the event under the cursor, what the server holds, a journey.
@Suite("Explaining overlays")
struct ExplainingOverlayTests {
    @Test func enterOnTheEventsPaneOpensTheEventUnderTheCursorWithItsRule() {
        var model = PlayModeScreenTests.journeyModel()
        Scenes.press(&model, [.up])
        let cursor = model.cursorEvent
        #expect(cursor?.kind == .stored)
        Scenes.press(&model, [.enter])
        #expect(model.overlay == cursor.map { .eventDetail($0) })
        let screen = View.render(model, width: 80, height: 24).text
        #expect(screen.contains("Why: The device cannot take the message now"))
    }

    @Test func theHeldOverlayListsWhatTheServerHoldsAndOpensAJourney() {
        var model = PlayModeScreenTests.journeyModel()
        Scenes.press(&model, [.character("h")])
        let screen = View.render(model, width: 80, height: 24).text
        #expect(screen.contains("non-collapsible 1/100"))
        #expect(screen.contains("offline"))
        Scenes.press(&model, [.down, .enter])
        #expect(model.overlay == .journey(id: "m-2"))
    }

    @Test func aJourneyShowsEachHopWithItsRule() {
        var model = PlayModeScreenTests.journeyModel()
        Scenes.press(&model, [.character("."), .character(".")])
        #expect(model.journey(of: "m-1").map(\.name) == ["downstreamAccepted", "stored", "onMessageReceived"])
        // The inbox selects its newest message, m-2; one up is m-1.
        Scenes.press(&model, [.tab, .tab, .up, .character("j")])
        #expect(model.overlay == .journey(id: "m-1"))
        let screen = View.render(model, width: 200, height: 50).text
        #expect(screen.contains("stored: offline"))
        #expect(screen.contains("accepted"))
    }

    @Test func wideScreensShowWhatTheServerHoldsInAPane() {
        let model = PlayModeScreenTests.journeyModel()
        let wide = View.render(model, width: 200, height: 50).text
        #expect(wide.contains("Held on the server 2 · non-collapsible 1/100 · keys 1/4"))
        #expect(wide.contains("offline (high)"))
        let narrow = View.render(model, width: 80, height: 24).text
        #expect(!narrow.contains("Held on the server"))
        var cycled = model
        for _ in 0..<6 { Scenes.press(&cycled, [.tab]) }
        #expect(cycled.focus == model.focus)
    }

    @Test func jWithNothingSelectedSaysWhatToSelect() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.tab, .tab, .character("j")])
        #expect(model.overlay == nil)
        #expect(model.status?.contains("select a message first") == true)
    }
}
