import FCMEngine
import FCMProfiles
import FCMTerminalUI
import Testing

/// What a new user ran into, each kept from coming back.
@Suite("Defects found by new users")
struct NewUserDefectTests {
    func screen(_ model: TUIModel, width: Int = 80, height: Int = 24) -> [String] {
        View.render(model, width: width, height: height).lines
    }

    @Test func aRefreshedTokenLooksDifferentInTheSendersPane() throws {
        var model = Scenes.fresh()
        let before = try #require(screen(model).first { $0.contains("123456789012  ") })
        Scenes.press(&model, [.character("r")])
        let after = try #require(screen(model).first { $0.contains("123456789012  ") })
        #expect(before != after)
    }

    @Test func aNewTokenIsShownInTheEvents() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("r")])
        let token = model.device.devices[0].tokens["123456789012"] ?? ""
        #expect(
            screen(model, width: 200, height: 50).contains { $0.contains("onNewToken token=\(TokenText.short(token))") }
        )
    }

    @Test func aLongStatusIsCutWithAnEllipsis() {
        var model = Scenes.fresh()
        model.report(
            "could not write " + String(repeating: "very-long-folder/", count: 8) + "session.yaml: permission denied")
        let status = screen(model)[22]
        #expect(status.hasSuffix("…"))
        #expect(status.count == 80)
    }

    @Test func aRefusedCommandSaysItsReasonWithOneSpace() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("t")])
        #expect(model.status == "commandRefused: the tray is empty")
    }

    @Test func theFilterPromptOpensEmpty() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("/")] + Scenes.type("token") + [.enter])
        #expect(model.eventFilter == "token")
        Scenes.press(&model, [.character("/")])
        #expect(model.overlay == .filter(""))
    }

    @Test func aCancelledPushFormUsesUpNoID() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("p"), .escape, .character("p")])
        guard case .form(let form)? = model.overlay else {
            Issue.record("no push form")
            return
        }
        #expect(form.value(.messageID) == "p-1")
        Scenes.press(&model, [.enter, .character("p")])
        guard case .form(let next)? = model.overlay else {
            Issue.record("no second push form")
            return
        }
        #expect(next.value(.messageID) == "p-2")
    }

    @Test func aCancelledSendFormUsesUpNoID() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("s"), .escape, .character("s")])
        guard case .form(let form)? = model.overlay else {
            Issue.record("no send form")
            return
        }
        #expect(form.value(.messageID) == "m-1")
    }

    @Test func scrollingUpWithRoomToSpareKeepsTheNewestLineInView() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("s"), .enter])
        let before = screen(model).filter { $0.contains("│+00:00:") }
        #expect(before.count == model.log.count)
        Scenes.press(&model, [.up])
        #expect(model.eventScroll == 1)
        #expect(screen(model).filter { $0.contains("│+00:00:") } == before)
    }

    @Test func iReinstallsTheAppAsIOSAndSaysSo() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("i"), .right, .enter])
        #expect(model.device.devices[0].platform == .ios)
        #expect(model.log.contains { $0.kind == .didReceiveRegistrationToken })
        #expect(model.status?.contains("reinstalled as ios/fcm") == true)
        #expect(View.render(model, width: 80, height: 24).lines[0].contains("ios/fcm"))
    }

    @Test func thePushFormSendsContentAvailableAndMutableContent() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("p")] + Array(repeating: .down, count: 8) + [.right, .down, .right, .enter])
        let saved = ProfileWriter.yaml(profile: model.profile, inputs: model.recording)
        #expect(saved.contains("content_available: true"))
        #expect(saved.contains("mutable_content: true"))
    }

    @Test func formTTLsTakeDurations() throws {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("p")] + Array(repeating: .down, count: 6) + Scenes.type("3d") + [.enter])
        let accepted = try #require(model.log.last { $0.kind == .downstreamAccepted })
        #expect(accepted["ttl"] == .int(259_200))
    }

    @Test func aLongIDIsShortenedInTheMiddleInTheEventsPane() {
        var model = Scenes.fresh()
        let id = "order-2026-11-23-0042-confirmation-final"
        Scenes.press(
            &model, [.character("p"), .down] + Array(repeating: .backspace, count: 4) + Scenes.type(id) + [.enter])
        let screen = View.render(model, width: 80, height: 24).lines
        #expect(
            screen.contains { $0.contains("downstreamAccepted id=" + TextWidth.middle(id, width: 12)) },
            Comment(rawValue: screen.joined(separator: "\n") + "\n" + model.log.map(\.name).joined(separator: ",")))
        let wide = View.render(model, width: 200, height: 50).lines
        #expect(wide.contains { $0.contains("id=order-2026-11") && $0.contains("tion-final") })
    }
}
