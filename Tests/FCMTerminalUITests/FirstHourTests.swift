import FCMEngine
import FCMProfiles
import FCMTerminalUI
import Foundation
import Testing

/// The rough edges of a new user's first hour in the TUI, each kept from coming back.
@Suite("A new user's first hour")
struct FirstHourTests {
    func screen(_ model: TUIModel, width: Int = 80, height: Int = 24) -> [String] {
        View.render(model, width: width, height: height).lines
    }

    func openForm(_ model: TUIModel) -> Form? {
        if case .form(let form)? = model.overlay { return form }
        return nil
    }

    @Test func aListPaneSaysHowManyItemsAreBelowWhatItShows() {
        var model = Scenes.fresh()
        // Offline, six upstream messages wait: 80x24 shows four of them.
        Scenes.press(
            &model, [.character("n")] + Array(repeating: [Key.character("s"), .enter], count: 6).flatMap { $0 })
        #expect(model.shown.pending.count == 6)
        let title = screen(model).first { $0.contains("Pending upstream 6/20") } ?? ""
        #expect(title.contains("Pending upstream 6/20 ↓2 ─"), "\(title)")
        // Tall enough for all of them: no mark.
        #expect(screen(model, width: 200, height: 50).contains { $0.contains("Pending upstream 6/20 ─") })
    }

    @Test func anErrorIsShownWholeAndOtherFieldsAreShortenedFirst() {
        var model = Scenes.fresh()
        // Uninstalled, a push to the token it had is refused NotRegistered.
        Scenes.press(&model, [.character("u"), .character("p"), .enter])
        #expect(model.log.contains { $0.string("error") == "NotRegistered" })
        let lines = screen(model)
        #expect(lines.contains { $0.contains("downstreamRejected NotRegistered") }, "\(lines.joined(separator: "\n"))")
    }

    /// Play mode on one Android phone of one sender, with this timeline (its steps).
    static func playing(_ timeline: String) -> TUIModel {
        TUIModel(
            playing: Scenes.profile(
                """
                version: 1
                device: { name: Pixel 8, platform: android, seed: 3 }
                senders:
                  - { id: "123456789012", key: k1 }
                timeline:
                """ + "\n" + timeline))
    }

    @Test func aLongErrorNameStaysWholeAndTheEventsNameGivesWay() {
        // A push to a token no app holds: refused InvalidRegistration, longer than the
        // events pane at 80x24 has room for beside the event's name.
        var model = Self.playing(
            """
              - at: 1s
                push: { sender: "123456789012", to: not-a-token, data: { x: "1" } }
            """)
        Scenes.press(&model, [.character(".")])
        #expect(model.log.contains { $0.string("error") == "InvalidRegistration" })
        let lines = screen(model)
        #expect(
            lines.contains { $0.contains("downstr") && $0.contains("ejected InvalidRegistration") },
            "\(lines.joined(separator: "\n"))")
    }

    @Test func anExpectationsErrorComesRightAfterItsEventOnANarrowLine() {
        var model = Self.playing(
            """
              - at: 0s
                service: down
              - at: 1s
                send: { sender: "123456789012", id: now-or-never, ttl: 0 }
              - at: 1s
                expect: { event: onSendError, id: now-or-never, error: SERVICE_NOT_AVAILABLE }
            """)
        Scenes.press(&model, [.end])
        #expect(model.log.contains { $0.name == "expectationHeld" })
        let lines = screen(model)
        #expect(
            lines.contains { $0.contains("✔ onSendError SERVICE_NOT_AVAILABLE") },
            "\(lines.joined(separator: "\n"))")
    }

    @Test func aTimeInAnEventsDetailsReadsAsTheEventsOwn() {
        var model = PlayModeScreenTests.journeyModel()
        // The newest event: the step's check, whose step_at is a time.
        Scenes.press(&model, [.enter])
        let lines = screen(model, width: 200, height: 50)
        #expect(lines.contains { $0.contains("step_at: +00:00:04.000") }, "\(lines.joined(separator: "\n"))")
    }

    @Test func removingTheOnlySenderIsAskedFirst() {
        var model = Scenes.fresh()
        // Two senders: d removes the selected one at once.
        Scenes.press(&model, [.character("d")])
        #expect(model.shown.senders.count == 1)
        Scenes.press(&model, [.character("d")])
        #expect(model.shown.senders.count == 1)
        #expect(model.status?.contains("d again removes") == true, "\(model.status ?? "")")
        // Another key between: asked again.
        Scenes.press(&model, [.character("f"), .character("d")])
        #expect(model.shown.senders.count == 1)
        Scenes.press(&model, [.character("d")])
        #expect(model.shown.senders.isEmpty)
    }

    @Test func aBrowsersSecondPaneShowsItsPushSubscriptionNotAnUpstreamQueue() {
        let model = Scenes.fresh(Scenes.web)
        let lines = screen(model)
        #expect(lines.contains { $0.contains("Push subscription") })
        #expect(lines.contains { $0.contains("endpoint https:") })
        #expect(lines.contains { $0.contains("p256dh B") })
        #expect(!lines.contains { $0.contains("Pending upstream") })
    }

    @Test func theFirstKeyTypedReplacesAPrefilledValueAndEditingKeysEditIt() throws {
        var model = PlayModeTests.playing()
        Scenes.press(&model, [.character("g")] + Scenes.type("8:40"))
        #expect(try #require(openForm(model)).value(.time) == "8:40")
        var edited = PlayModeTests.playing()
        Scenes.press(&edited, [.character("g"), .backspace, .character("9")])
        #expect(try #require(openForm(edited)).value(.time) == "+00:00:09")
    }

    @Test func aPrefilledValueIsDrawnSelectedAndATypedOneWithACursor() {
        var model = PlayModeTests.playing()
        Scenes.press(&model, [.character("g")])
        let grid = View.render(model, width: 80, height: 24)
        // The form's row (the header shows the clock too).
        let row = grid.lines.lastIndex { $0.contains("+00:00:00") } ?? 0
        let line = grid.lines[row]
        let column = line.distance(from: line.startIndex, to: line.range(of: "+00:00:00")!.lowerBound)
        #expect(grid[column, row].style == .selected)
        Scenes.press(&model, [.character("1")])
        #expect(screen(model).contains { $0.contains("1▏") })
    }

    @Test func savingOffersTheSaveFolderAndAsksBeforeReplacingAFile() throws {
        var model = Scenes.fresh()
        model.setSaveFolder("/tmp/state/sessions")
        Scenes.press(&model, [.character("w")])
        #expect(try #require(openForm(model)).value(.file) == "/tmp/state/sessions/session.yaml")
        let first = Scenes.press(&model, [.enter])
        guard case .saveProfile(let path, _, let replacing)? = first.first else {
            Issue.record("no save effect: \(first)")
            return
        }
        #expect(path == "/tmp/state/sessions/session.yaml" && !replacing)
        // The shell found a file there: the form says so, and Enter again replaces it.
        model.saveFound(existing: path)
        #expect(try #require(openForm(model)).fields[0].error?.contains("a file is there already") == true)
        #expect(screen(model).contains { $0.contains("Enter replaces it") })
        guard case .saveProfile(_, _, let second)? = Scenes.press(&model, [.enter]).first else {
            Issue.record("no save effect")
            return
        }
        #expect(second)
    }

    @Test func aWarningShowsItsDetailInTheEventsPane() {
        var model = Scenes.fresh(Scenes.ios)
        // An iPhone clamps an upstream TTL over a day, with a warning that says so.
        Scenes.press(&model, [.character("s"), .down, .down, .character("2"), .character("d"), .enter])
        let line = screen(model, width: 200, height: 50).first { $0.contains("warning") } ?? ""
        #expect(line.contains("clamped"), "\(line)")
    }

    @Test func theLineLookedAtKeepsItsColour() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("p")] + Array(repeating: .down, count: 4) + [.character("x"), .enter])
        Scenes.press(&model, [.character("u"), .character("p"), .enter])
        let grid = View.render(model, width: 80, height: 24)
        // The events pane's newest line, above the status line.
        let row = grid.lines.prefix(21).lastIndex { $0.contains("downstreamRejected") } ?? 0
        #expect(grid.lines[row].contains("downstreamRejected"))
        let styles = Set((0..<80).map { grid[$0, row].style })
        #expect(styles.contains(.selectedError), "\(styles)")
    }

    @Test func scrolledBackTheEventsTitleCountsTheNewerEventsBelowAndTheViewStays() {
        var model = Scenes.fresh()
        for n in 0..<12 { Scenes.press(&model, [.character("r")], from: 1_000 + Millis(n) * 200) }
        Scenes.press(&model, [.up, .up], from: 4_000)
        #expect(screen(model).contains { $0.contains("Callbacks and events ↓2 newer") })
        let eventsPane = { (model: TUIModel) in self.screen(model)[3..<12].map { $0.dropFirst(32) } }
        let before = eventsPane(model)
        let count = model.log.count
        Scenes.press(&model, [.character("r")], from: 5_000)
        let newer = 2 + model.log.count - count
        #expect(screen(model).contains { $0.contains("↓\(newer) newer") })
        #expect(eventsPane(model) == before, "the lines looked at stay put")
    }

    @Test func theInboxFollowsNewMessagesUnlessAnOlderOneIsSelected() {
        var model = Scenes.fresh()
        for n in 0..<3 { Scenes.press(&model, [.character("p"), .enter], from: 1_000 + Millis(n) * 500) }
        #expect(model.selection[.inbox] == 2)
        while model.focus != .inbox { Scenes.press(&model, [.tab]) }
        Scenes.press(&model, [.up, .up])
        Scenes.press(&model, [.character("p"), .enter], from: 4_000)
        #expect(model.selection[.inbox] == 0)
    }

    @Test func theDevicesListPagesByTheRowsItShows() {
        let fleet = Scenes.profile(
            """
            version: 1
            senders: [{ id: "1", key: k }]
            devices: [{ name: phone, count: 100 }]
            """)
        var model = Scenes.fresh(fleet)
        model.setScreenHeight(30)
        Scenes.press(&model, [.character("v"), .pageDown])
        #expect(model.overlay == .devices(selected: 23), "30 rows show 23 phones")
        model.setScreenHeight(50)
        Scenes.press(&model, [.pageDown])
        #expect(model.overlay == .devices(selected: 23 + 43))
    }

    @Test func aDeviceNameIsAtMostFortyCharacters() {
        #expect(
            DeviceSpec.nameProblem(String(repeating: "n", count: 41), isTaken: { _ in false })?.contains("40") == true)
        #expect(DeviceSpec.nameProblem(String(repeating: "n", count: 40), isTaken: { _ in false }) == nil)
        #expect(throws: ProfileError.self) {
            _ = try ProfileParser.parse(
                "version: 1\ndevice: { name: \(String(repeating: "x", count: 50)) }\nsenders: [{ id: \"1\", key: k }]\n",
                file: "long.yaml")
        }
    }

    @Test func theFooterNamesTheDevicesListAndAnIPhoneSleepsInsteadOfDozing() {
        #expect(screen(Scenes.fresh()).last?.contains("v phones") == true)
        var iphone = Scenes.fresh(Scenes.ios)
        #expect(screen(iphone).last?.contains("z sleep") == true)
        Scenes.press(&iphone, [.character("z")])
        #expect(screen(iphone)[1].contains("asleep"))
        var pixel = Scenes.fresh()
        Scenes.press(&pixel, [.character("z")])
        #expect(screen(pixel)[1].contains("dozing"))
    }

    @Test func playModeSaysAt80ColumnsThatNoPortsAreServed() {
        #expect(screen(PlayModeTests.playing())[1].contains("no ports served"))
    }

    @Test func playModeKeepsThePanesStillWhenTheCaptionChangesLength() {
        var model = PlayModeTests.playing()
        let borders = { (model: TUIModel) in self.screen(model).indices.filter { self.screen(model)[$0].hasPrefix("└") }
        }
        let start = borders(model)
        for _ in 0..<6 {
            Scenes.press(&model, [.character(".")])
            #expect(borders(model) == start)
        }
    }

    @Test func endPlaysToTheEndAndSpaceThereSaysWhatToPressPlainly() {
        var model = PlayModeTests.playing()
        Scenes.press(&model, [.end])
        #expect(model.play?.playback.finished == true)
        Scenes.press(&model, [.character(" ")])
        #expect(model.status == "the profile has ended: Home plays it again, ← steps back")
    }

    @Test func anUpstreamJourneyReachesTheAppServer() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("s"), .enter])
        // The events pane's cursor is on the newest event, the echo's ack of m-1.
        Scenes.press(&model, [.character("j")])
        let lines = screen(model, width: 200, height: 50)
        #expect(lines.contains { $0.contains("to the app server (echo)") }, "\(lines.joined(separator: "\n"))")
    }

    @Test func aJourneysWhyIsWrappedNotCut() {
        var model = PlayModeScreenTests.journeyModel()
        Scenes.press(&model, Array(repeating: .character("."), count: 2))
        Scenes.press(&model, [.tab, .tab, .character("j")])
        for (width, height) in [(80, 24), (200, 50)] {
            // The box's inside: 150 columns at most, centred.
            let box = min(width - 2, 150)
            let left = (width - box) / 2 + 1
            let lines = screen(model, width: width, height: height).dropFirst(2).dropLast(3)
            let cut = lines.map { String($0.dropFirst(left).prefix(box - 2)) }.filter { $0.contains("…") }
            #expect(cut.isEmpty, "\(width)x\(height): \(cut.joined(separator: "\n"))")
        }
    }

    @Test func theHeldListFitsItsColumnsToWhatTheyHold() {
        var model = PlayModeScreenTests.journeyModel()
        Scenes.press(&model, [.character("h")])
        let lines = screen(model)
        #expect(lines.contains { $0.contains("collapse key") }, "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("com.example.chat") })
    }

    @Test func anEmptyPaneWrapsItsTextInsteadOfCuttingAWord() throws {
        let lines = screen(Scenes.fresh(), width: 200, height: 50)
        let first = try #require(lines.firstIndex { $0.contains("nothing held: the device takes messages") })
        #expect(!lines[first].contains("…"))
        #expect(lines[first + 1].contains("list)"), "the rest on the next line: \(lines[first + 1])")
    }

    @Test func aLongFormErrorWrapsAndALongValueShowsWhereTheTypingIs() throws {
        var model = Scenes.fresh()
        let name = String(repeating: "a-long-phone-name-", count: 4)
        Scenes.press(&model, [.character("v"), .character("a")] + Scenes.type(name))
        let line = screen(model).first { $0.contains("name") } ?? ""
        #expect(line.contains("…") && line.contains(String(name.suffix(10)) + "▏"), "the end typed shows: \(line)")
        Scenes.press(&model, [.enter])
        let text = screen(model).joined(separator: "\n")
        #expect(text.contains("is at most 40 characters;"), "\(text)")
        #expect(text.contains("has 72"), "the error's end is on screen, wrapped: \(text)")
    }

    @Test func aFormsKeyLineNamesOnlyTheKeysThatWorkInIt() {
        var model = PlayModeTests.playing()
        Scenes.press(&model, [.character("g")])
        let text = screen(model).joined(separator: "\n")
        #expect(text.contains("Enter submit · Esc cancel"))
        #expect(!text.contains("↑↓ field") && !text.contains("←→ choice"), "one free-text field: \(text)")
        #expect(text.contains("Ctrl-U clears"))
    }

    @Test func theHeldListSaysWhyNothingWaitsForAnUninstalledApp() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("u"), .character("h")])
        #expect(screen(model).contains { $0.contains("nothing held: uninstalled, the app's tokens are refused") })
    }

    @Test func scrolledWithRoomToSpareTheTitleCountsNoHiddenLines() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.up, .up, .up])
        #expect(!screen(model).contains { $0.contains("newer") }, "nothing is hidden below")
    }

    @Test func anIPhoneAsleepHoldsANormalPushAsAsleepNotDoze() {
        var iphone = Scenes.fresh(Scenes.ios)
        Scenes.press(&iphone, [.character("z")])
        Scenes.press(&iphone, [.character("p")] + Array(repeating: .down, count: 5) + [.left, .enter])
        let stored = iphone.log.filter { $0.name == "stored" }
        #expect(stored.last?.string("reason") == "asleep", "\(iphone.log.map(\.name))")
    }

    @Test func inPlayModeAKeyTheDeviceRefusesSaysWhyAndDoesNotFork() {
        var model = PlayModeTests.playing()
        Scenes.press(&model, [.character("t")])
        #expect(model.play != nil && model.fork == nil, "still playing the profile")
        #expect(model.status?.contains("the tray is empty") == true, "\(model.status ?? "")")
    }

    @Test func aKeyTheDeviceRefusedIsNotSavedSoTheSavedSessionLoads() throws {
        var model = Scenes.fresh(Scenes.web)
        Scenes.press(&model, [.character("z"), .character("b")])
        guard case .saveProfile(_, let yaml, _)? = Scenes.press(&model, [.character("w"), .enter]).first else {
            Issue.record("nothing saved")
            return
        }
        #expect(!yaml.contains("doze: true"), "\(yaml)")
        _ = try ProfileParser.parse(yaml, file: "saved.yaml")
    }
}

@Suite("Web Push in the TUI")
struct WebPushScreenTests {
    @Test func aWebPushJourneyRunsFromTheAppServerThroughThePushServiceToTheWorker() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../profiles/web-push.yaml").path
        let profile = try ProfileParser.parse(try String(contentsOfFile: path, encoding: .utf8), file: path)
        var model = TUIModel(playing: profile)
        // Played to the end: the Topic's message held while offline, then delivered.
        Scenes.press(&model, [.end])
        let held = try #require(model.log.first { $0.kind == .webPushReplaced }?.string("by"))
        #expect(
            model.journey(of: held).map(\.name)
                == ["webPushAccepted", "webPushReplaced", "webPushHeld", "pushEvent", "notificationPosted"])
        #expect(model.overlay == nil)
        // deleteToken, the profile's last step, ended the subscription.
        #expect(View.render(model, width: 200, height: 50).text.contains("No push subscription"))
        model.openJourney(held)
        let screen = View.render(model, width: 200, height: 50).text
        #expect(screen.contains("Web Push: 201"))
        #expect(screen.contains("decrypted: the worker's push event"))
    }
}
