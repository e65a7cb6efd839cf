import FCMEngine

/// The devices list (`v`): which phone the panes show, phones joining, and `[` `]`
/// to step between phones without opening the list.
extension TUIModel {
    mutating func openDevices() {
        overlay = .devices(selected: shownIndex)
    }

    /// PgUp and PgDn in the devices list move by the rows it shows.
    var devicesPage: Int { max(1, View.devicesListRows(screenHeight: screenHeight)) }

    mutating func handleDevices(selected: Int, _ key: Key) -> [Effect] {
        let count = device.devices.count
        switch key {
        case .up: overlay = .devices(selected: max(0, selected - 1))
        case .down: overlay = .devices(selected: min(count - 1, selected + 1))
        case .pageUp: overlay = .devices(selected: max(0, selected - devicesPage))
        case .pageDown: overlay = .devices(selected: min(count - 1, selected + devicesPage))
        case .home: overlay = .devices(selected: 0)
        case .end: overlay = .devices(selected: count - 1)
        case .enter:
            show(device: selected)
            overlay = nil
        case .character("a"), .character("+"): openAddDevice()
        case .character("["), .character("]"):
            stepDevice(key == .character("]") ? 1 : -1)
            overlay = .devices(selected: shownIndex)
        case .escape, .character("q"), .character("v"): overlay = nil
        default: break
        }
        return []
    }

    /// Shows another phone in the panes (selections start again at the top).
    mutating func show(device index: Int) {
        guard device.devices.indices.contains(index) else { return }
        shownName = device.devices[index].name
        selection = [:]
        inboxSeen = shown.inbox.count
        selection[.inbox] = max(0, inboxSeen - 1)
        say("showing \(device.devices[index].name) (\(index + 1) of \(device.devices.count))")
    }

    /// `]` and `[`: the next or previous phone.
    mutating func stepDevice(_ step: Int) {
        let count = device.devices.count
        guard count > 1 else { return say("one device: v opens the devices list, a there adds one") }
        show(device: (shownIndex + step + count) % count)
    }

    mutating func openAddDevice() {
        overlay = .form(
            Form(
                purpose: .addDevice,
                fields: [
                    FormField(.name, suggestDeviceName()),
                    FormField(.platform, shown.settings.platform.rawValue, choices: Platform.allCases.map(\.rawValue)),
                    FormField(.sdk, shown.settings.sdk.rawValue, choices: SDK.allCases.map(\.rawValue)),
                ]))
    }

    func suggestDeviceName() -> String {
        var number = device.devices.count + 1
        while device.deviceNumber(named: "device-\(number)") != nil { number += 1 }
        return "device-\(number)"
    }

    mutating func submitAddDevice(_ form: inout Form, at time: Millis) {
        let name = form.value(.name).trimmingCharacters(in: .whitespaces)
        // The engine's rule, shown under the field instead of as a refusal.
        if let problem = device.deviceNameProblem(name) { form.fail(.name, problem) }
        guard !form.hasErrors else { return }
        var settings = shown.settings
        settings.name = name
        settings.platform = Platform(rawValue: form.value(.platform)) ?? settings.platform
        settings.sdk = SDK(rawValue: form.value(.sdk)) ?? settings.sdk
        settings.state = AppState.foreground
        settings.network = Network.online
        settings.doze = false
        // Shown once the session has taken it (`took`).
        if run(.addDevice(DeviceSpec(settings.fitted)), at: time) { joining = name }
    }
}
