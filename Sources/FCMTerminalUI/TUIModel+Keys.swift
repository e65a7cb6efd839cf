import FCMDoor
import FCMEngine
import FCMProfiles

/// The update function: a key and the current time in, a new state and effects out.
extension TUIModel {
    /// Handles one key at engine time `time` (real elapsed plus the offset): the
    /// model's new state, and the effects for the runner to perform in order (what
    /// goes to the session first). The update hands the door nothing and moves no
    /// clock: the runner hands the session's effects to `performOnSession` (`press`
    /// does both). It reads the door once: `w` writes what the session recorded.
    public mutating func handle(_ key: Key, at time: Millis) -> [Effect] {
        let effects = update(key, at: time)
        defer { outbox = [] }
        return outbox + effects
    }

    mutating func update(_ key: Key, at time: Millis) -> [Effect] {
        // Play mode and a fork keep their own clock: commands happen at its time.
        let time = hasVirtualClock ? device.now : time
        switch overlay {
        case .form(var form)?:
            return handleForm(&form, key, at: time)
        case .help?:
            if key == .escape || key == .character("?") || key == .character("q") { overlay = nil }
            return []
        case .tokenDetail(let sender)?:
            return handleTokenDetail(sender: sender, key)
        case .messageDetail(let index)?:
            if key == .character("j"), shown.inbox.indices.contains(index) { openJourney(shown.inbox[index].id) }
            if key == .escape || key == .enter || key == .character("q") { overlay = nil }
            return []
        case .eventDetail(let event)?:
            if key == .character("j"), let id = event.messageIDs.first { openJourney(id) }
            if key == .escape || key == .enter || key == .character("q") { overlay = nil }
            return []
        case .held(let selected)?:
            return handleHeld(selected: selected, key)
        case .devices(let selected)?:
            return handleDevices(selected: selected, key)
        case .report(let selected)?:
            return handleReport(selected: selected, key)
        case .journey?:
            if key == .escape || key == .enter || key == .character("q") || key == .character("j") { overlay = nil }
            return []
        case .filter(var text)?:
            switch key {
            case .escape: overlay = nil
            case .enter:
                eventFilter = text
                eventScroll = 0
                overlay = nil
            case .backspace, .delete:
                if !text.isEmpty { text.removeLast() }
                overlay = .filter(text)
            case .character(let c):
                text.append(c)
                overlay = .filter(text)
            default: break
            }
            return []
        case nil:
            return handleMain(key, at: time)
        }
    }

    mutating func handleMain(_ key: Key, at time: Millis) -> [Effect] {
        statusLine = nil
        // A removal asked about holds for the next key only.
        let asked = removalAsked
        removalAsked = nil
        if let effects = handlePlayKey(key) { return effects }
        guard let action = KeyTable.mainAction(for: key) else {
            if case .character(let c) = key { say("\(c) does nothing here: ? lists every key") }
            return []
        }
        return perform(action, removalAsked: asked, at: time)
    }

    /// What a main-screen key does (`KeyTable.main` says which key does which).
    mutating func perform(_ action: MainAction, removalAsked asked: String?, at time: Millis) -> [Effect] {
        switch action {
        case .quit: return [.quit]
        case .help: overlay = .help
        case .nextPane: focus = focus.next(1)
        case .previousPane: focus = focus.next(-1)
        case .scroll(let lines): scroll(lines)
        case .top:
            // A fork plays its profile again from the start.
            if fork != nil { replayProfile() } else { scroll(-1_000_000) }
        case .bottom: scroll(1_000_000)
        case .details:
            if focus == .senders, let sender = selectedSender { overlay = .tokenDetail(sender: sender.id) }
            if focus == .tray { tapSelected(at: time) }
            if focus == .inbox, !shown.inbox.isEmpty {
                overlay = .messageDetail(index: min(selected(.inbox), shown.inbox.count - 1))
            }
            if focus == .server { serverRaw.toggle() }
            if focus == .events, let event = cursorEvent { overlay = .eventDetail(event) }
        case .held: overlay = .held(selected: 0)
        case .report: overlay = .report(selected: 0)
        case .journey: openJourneyOfSelection()
        case .send: openCompose()
        case .push: openPush()
        case .network: run(.setNetwork(shown.network == .online ? .offline : .online), at: time)
        case .outage: run(.setService(up: !device.server.serviceUp), at: time)
        case .doze: run(.setDoze(!shown.doze), at: time)
        case .foreground: run(.setAppState(.foreground), at: time)
        case .background: run(.setAppState(.background), at: time)
        case .stopApp: run(.setAppState(.stopped), at: time)
        case .uninstall: run(shown.installed ? PhoneCommand.uninstall : .reinstall, at: time)
        case .refreshToken:
            if let sender = selectedSender { run(.refreshToken(sender: sender.id), at: time) }
        case .addSender: openAddSender()
        case .reinstallAs: openReinstallAs()
        case .topics: openTopic()
        case .devicesList: openDevices()
        case .nextDevice: stepDevice(1)
        case .previousDevice: stepDevice(-1)
        case .removeSender:
            guard let sender = selectedSender else { break }
            // The only sender leaves the app registered with none: asked first.
            if shown.senders.count == 1, asked != sender.id {
                removalAsked = sender.id
                say("d again removes \(sender.id), the only sender (no token left)")
                break
            }
            run(.removeSender(sender.id), at: time)
        case .tap: tapSelected(at: time)
        case .drain: run(.drain, at: time)
        case .permission: run(.setPermission(nextPermission), at: time)
        case .clock(let span): return advanceClock(span)
        case .filter: overlay = .filter("")
        case .saveProfile: openSaveProfile()
        }
        return []
    }

    mutating func scroll(_ step: Int) {
        switch focus {
        case .events:
            eventScroll = max(0, min(visibleEvents.count - 1, eventScroll - step))
        case .server:
            serverScroll = max(0, min(serverEvents.count - 1, serverScroll - step))
        default:
            let count = itemCount(focus)
            selection[focus] = max(0, min(count - 1, selected(focus) + step))
        }
    }

    func itemCount(_ pane: Pane) -> Int {
        switch pane {
        case .senders: shown.senders.count
        case .queue: shown.platform == .web ? shownPushLines.count : shown.pending.count
        case .events: visibleEvents.count
        case .tray: shown.tray.count
        case .inbox: shown.inbox.count
        case .server: serverEvents.count
        case .held: shownHeld.count
        }
    }

    mutating func tapSelected(at time: Millis) {
        let index = min(selected(.tray), shown.tray.count - 1)
        run(.tap(shown.tray.isEmpty ? .last : .index(index + 1)), at: time)
    }

    /// Moves the session's clock on: TTLs run out and doze ends without waiting.
    mutating func advanceClock(_ span: Millis) -> [Effect] {
        forkIfPlaying()
        guard door != nil else { return [] }
        outbox.append(.moveSessionClock(by: span))
        say("clock moved on \(span / Span.minute >= 1440 ? "1 day" : span >= Span.hour ? "1 hour" : "1 minute")")
        // A session the TUI runs on the real clock follows the runner's clock, which
        // moves on with it (the runner applies the effect); a served session and a
        // fork have moved their own.
        return hasVirtualClock || sessionKeepsItsClock ? [] : [.moveClock(by: span)]
    }

    mutating func handleTokenDetail(sender: String, _ key: Key) -> [Effect] {
        let token = shown.tokens[sender] ?? ""
        switch key {
        case .character("c"):
            say("token of \(sender) copied to the clipboard (OSC 52)")
            overlay = nil
            return [.copyToClipboard(token)]
        case .character("w"):
            let path = "token-\(sender).txt"
            say("token of \(sender) written to \(path)")
            overlay = nil
            return [.writeFile(path: path, contents: token + "\n")]
        case .escape, .enter, .character("q"):
            overlay = nil
        default: break
        }
        return []
    }
}

extension TUIModel {
    /// The permission `P` moves the shown phone to: the next of its platform's values.
    var nextPermission: NotificationPermission {
        let values = shown.settings.permissionValues
        let index = values.firstIndex(of: shown.settings.notificationPermission) ?? -1
        return values[(index + 1) % values.count]
    }
}
