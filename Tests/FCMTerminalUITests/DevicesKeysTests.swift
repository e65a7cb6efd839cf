import FCMEngine
import FCMTerminalUI
import Testing

@Suite("The devices list")
struct DevicesKeysTests {
    @Test func oneDeviceKeepsTheSingleDeviceHeader() {
        let model = Scenes.fresh()
        let header = View.render(model, width: 80, height: 24).lines[0]
        #expect(!header.contains("v lists"))
    }

    @Test func theHeaderNamesThePhoneShownAndHowManyThereAre() {
        let model = Scenes.fresh(Scenes.threePhones)
        let header = View.render(model, width: 80, height: 24).lines[0]
        #expect(header.contains("pixel (1/3, v lists)"))
    }

    @Test func choosingAPhoneShowsItsPanesAndKeysActOnIt() {
        var model = Scenes.fresh(Scenes.threePhones)
        Scenes.press(&model, [.character("v"), .down, .enter])
        #expect(model.shown.settings.name == "iphone")
        #expect(View.render(model, width: 80, height: 24).lines[0].contains("iphone (2/3"))
        Scenes.press(&model, [.character("n")], from: 2_000)
        #expect(model.device.phone(named: "iphone")?.network == .offline)
        #expect(model.device.phone(named: "pixel")?.network == .online)
        #expect(model.recording.last == .input(.on(device: "iphone", .setNetwork(.offline)), at: 2_000))
    }

    @Test func bracketsStepBetweenPhonesAndWrapAround() {
        var model = Scenes.fresh(Scenes.threePhones)
        Scenes.press(&model, [.character("[")])
        #expect(model.shown.settings.name == "tablet")
        Scenes.press(&model, [.character("]"), .character("]")], from: 2_000)
        #expect(model.shown.settings.name == "iphone")
    }

    @Test func bracketsInTheListStepTheShownPhoneAndTheSelectionFollows() {
        var model = Scenes.fresh(Scenes.threePhones)
        Scenes.press(&model, [.character("v"), .character("]")])
        #expect(model.shown.settings.name == "iphone")
        #expect(model.overlay == .devices(selected: 1))
        Scenes.press(&model, [.character("["), .character("[")], from: 2_000)
        #expect(model.shown.settings.name == "tablet")
        #expect(model.overlay == .devices(selected: 2))
    }

    @Test func aFormThatActsOnAPhoneNamesIt() {
        var model = Scenes.fresh(Scenes.threePhones)
        Scenes.press(&model, [.character("]"), .character("p")])
        #expect(View.render(model, width: 80, height: 24).text.contains("iphone · Push downstream message"))
        Scenes.press(&model, [.escape, .character("v"), .character("a")], from: 2_000)
        #expect(!View.render(model, width: 80, height: 24).text.contains("iphone · Add a device"))
    }

    @Test func aPhoneAddedFromTheListRegistersAndIsShown() {
        var model = Scenes.fresh(Scenes.threePhones)
        Scenes.press(&model, [.character("v"), .character("a"), .control("u")] + Scenes.type("watch") + [.enter])
        #expect(model.device.devices.map(\.name) == ["pixel", "iphone", "tablet", "watch"])
        #expect(model.shown.settings.name == "watch")
        #expect(model.shown.tokens.count == 1)
        // Made like the phone shown, same seed and all, yet a token of its own.
        #expect(Set(model.device.devices.compactMap { $0.tokens["123456789012"] }).count == 4)
        #expect(model.log.contains { $0.name == "deviceAdded" && $0.string("device") == "watch" })
    }

    @Test func aTakenNameIsRefusedInTheForm() {
        var model = Scenes.fresh(Scenes.threePhones)
        Scenes.press(&model, [.character("v"), .character("a"), .control("u")] + Scenes.type("pixel") + [.enter])
        guard case .form(let form)? = model.overlay else {
            Issue.record("the form should stay open with the error")
            return
        }
        #expect(form.fields.first { $0.name == .name }?.error == "a device is already named pixel")
        #expect(model.device.devices.count == 3)
    }

    @Test func aFleetOfTenThousandDrawsOnlyTheRowsThatFit() throws {
        let profile = Scenes.profile(
            """
            version: 1
            devices: { count: 10000, like: { name: phone, seed: 1 } }
            senders: [ { id: "1", key: k } ]
            """)
        var model = TUIModel(profile: profile)
        Scenes.press(&model, [.character("v"), .end])
        let screen = View.render(model, width: 80, height: 24).text
        #expect(screen.contains("phone-10000"))
        #expect(screen.contains("Devices 10000 · showing phone-1 · 10000 of 10000"))
        #expect(!screen.contains("▸ phone-1 "))
        // Three phones fit: the title says no position.
        var three = Scenes.fresh(Scenes.threePhones)
        Scenes.press(&three, [.character("v")])
        #expect(!View.render(three, width: 80, height: 24).text.contains(" of 3"))
    }
}

@Suite("The phone shown, when phones go away")
struct ShownPhoneTests {
    static let joining = Scenes.profile(
        """
        version: 1
        device: { name: pixel, platform: android, seed: 7 }
        senders:
          - { id: "123456789012", key: k1 }
        timeline:
          - at: 1s
            add_device: { name: tablet, platform: android }
          - at: 2s
            device: pixel
            network: offline
        """)

    @Test func steppingBackBeforeAPhoneJoinedShowsTheFirstInsteadOfTrapping() {
        var model = TUIModel(playing: Self.joining)
        Scenes.press(&model, [.character("."), .character(".")])
        #expect(model.device.devices.count == 2)
        Scenes.press(&model, [.character("]")])
        #expect(model.shown.name == "tablet")
        // Back before the tablet joined: the panes show the first phone, and every pane draws.
        Scenes.press(&model, [.character(","), .character(",")])
        #expect(model.device.devices.count == 1)
        #expect(model.shown.name == "pixel")
        // Said, not stood in for silently: keys now act on the phone shown, by its name.
        #expect(model.status == "tablet is gone; showing pixel")
        for (width, height) in [(80, 24), (200, 50)] {
            let screen = View.render(model, width: width, height: height).lines.joined(separator: "\n")
            #expect(screen.contains("pixel"))
        }
        Scenes.press(&model, [.character("h")])
        _ = View.render(model, width: 80, height: 24)
    }
}

@Suite("Notification permission in the TUI")
struct PermissionKeyTests {
    @Test func capitalPStepsThroughThePlatformsPermissionsAndTheHeaderSaysWhichHolds() {
        var model = Scenes.fresh(Scenes.threePhones)
        Scenes.press(&model, [.character("]")])
        #expect(model.shown.settings.name == "iphone")
        Scenes.press(&model, [.character("P")], from: 2_000)
        #expect(model.device.phone(named: "iphone")?.settings.permission == .denied)
        #expect(model.recording.last == .input(.on(device: "iphone", .setPermission(.denied)), at: 2_000))
        #expect(View.render(model, width: 200, height: 50).lines[1].contains("notifications denied"))
        // At 80 columns the ports come first in the header; the tray says it.
        let narrow = View.render(model, width: 80, height: 24).lines
        #expect(narrow.contains { $0.contains("permission is denied") }, "\(narrow.joined(separator: "\n"))")
        Scenes.press(&model, [.character("P"), .character("P")], from: 3_000)
        #expect(model.device.phone(named: "iphone")?.settings.permission == .provisional)
        #expect(model.device.phone(named: "pixel")?.settings.permission == nil)
    }
}

@Suite("The help overlay")
struct HelpOverlayTests {
    @Test("every key's help fits at 80x24, uncut, down to ? and q")
    func everyHelpLineFitsAt80x24() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("?")])
        let screen = View.render(model, width: 80, height: 24).lines.joined(separator: "\n")
        for (key, text) in View.helpLines {
            #expect(TextWidth.columns(of: text) <= 50, "\(key): \(text)")
            #expect(screen.contains(text), "\(key) is cut or missing at 80x24")
        }
        #expect(screen.contains("Esc or ? closes"))
    }
}
