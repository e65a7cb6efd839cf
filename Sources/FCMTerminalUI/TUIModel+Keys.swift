import FCMEngine
import FCMProfiles

/// The update function: a key and the current time in, a new state and effects out.
extension TUIModel {
    /// Handles one key at engine time `time` (real elapsed plus the offset).
    public mutating func handle(_ key: Key, at time: Millis) -> [Effect] {
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
        status = nil
        // A removal asked about holds for the next key only.
        let asked = removalAsked
        removalAsked = nil
        if let effects = handlePlayKey(key) { return effects }
        if fork != nil, key == .home {
            replayProfile()
            return []
        }
        switch key {
        case .character("q"), .control("c"): return [.quit]
        case .character("?"): overlay = .help
        case .tab: focus = focus.next(1)
        case .backTab: focus = focus.next(-1)
        case .up: scroll(-1)
        case .down: scroll(1)
        case .pageUp: scroll(-10)
        case .pageDown: scroll(10)
        case .home: scroll(-1_000_000)
        case .end: scroll(1_000_000)
        case .enter:
            if focus == .senders, let sender = selectedSender { overlay = .tokenDetail(sender: sender.id) }
            if focus == .tray { tapSelected(at: time) }
            if focus == .inbox, !shown.inbox.isEmpty {
                overlay = .messageDetail(index: min(selected(.inbox), shown.inbox.count - 1))
            }
            if focus == .server { serverRaw.toggle() }
            if focus == .events, let event = cursorEvent { overlay = .eventDetail(event) }
        case .character("h"): overlay = .held(selected: 0)
        case .character("R"): overlay = .report(selected: 0)
        case .character("j"): openJourneyOfSelection()
        case .character("s"): openCompose()
        case .character("p"): openPush()
        case .character("n"): run(.setNetwork(shown.network == .online ? .offline : .online), at: time)
        case .character("o"): run(.setService(up: !device.server.serviceUp), at: time)
        case .character("z"): run(.setDoze(!shown.doze), at: time)
        case .character("f"): run(.setAppState(.foreground), at: time)
        case .character("b"): run(.setAppState(.background), at: time)
        case .character("x"): run(.setAppState(.stopped), at: time)
        case .character("u"): run(shown.installed ? PhoneCommand.uninstall : .reinstall, at: time)
        case .character("r"):
            if let sender = selectedSender { run(.refreshToken(sender: sender.id), at: time) }
        case .character("a"): openAddSender()
        case .character("i"): openReinstallAs()
        case .character("T"): openTopic()
        case .character("v"): openDevices()
        case .character("]"): stepDevice(1)
        case .character("["): stepDevice(-1)
        case .character("d"):
            guard let sender = selectedSender else { break }
            // The only sender leaves the app registered with none: asked first.
            if shown.senders.count == 1, asked != sender.id {
                removalAsked = sender.id
                status = "d again removes \(sender.id), the only sender (no token left)"
                break
            }
            run(.removeSender(sender.id), at: time)
        case .character("t"): tapSelected(at: time)
        case .character("D"): run(.drain, at: time)
        case .character("P"): run(.setPermission(nextPermission), at: time)
        case .character("1"): return advanceClock(Span.minute)
        case .character("2"): return advanceClock(Span.hour)
        case .character("3"): return advanceClock(Span.day)
        case .character("/"): overlay = .filter("")
        case .character("w"): openSaveProfile()
        case .character(let c): status = "\(c) does nothing here: ? lists every key"
        default: break
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
        case .queue: shown.pending.count
        case .events: visibleEvents.count
        case .tray: shown.tray.count
        case .inbox: shown.inbox.count
        case .server: serverEvents.count
        case .held: shown.stored.count
        }
    }

    mutating func tapSelected(at time: Millis) {
        let index = min(selected(.tray), shown.tray.count - 1)
        run(.tap(shown.tray.isEmpty ? .last : .index(index + 1)), at: time)
        selection[.tray] = max(0, min(selected(.tray), shown.tray.count - 1))
    }

    /// Moves the session's clock on: TTLs run out and doze ends without waiting.
    public mutating func advanceClock(_ span: Millis) -> [Effect] {
        forkIfPlaying()
        guard let door else { return [] }
        door.moveClock(by: span)
        absorb(refresh: true)
        status = "clock moved on \(span / Span.minute >= 1440 ? "1 day" : span >= Span.hour ? "1 hour" : "1 minute")"
        // A session the TUI runs on the real clock follows the runner's clock, which
        // moves on with it (the runner applies the effect); a served session and a
        // fork have moved their own.
        return hasVirtualClock || door.keepsItsOwnClock ? [] : [.moveClock(by: span)]
    }

    mutating func handleTokenDetail(sender: String, _ key: Key) -> [Effect] {
        let token = shown.tokens[sender] ?? ""
        switch key {
        case .character("c"):
            status = "token of \(sender) copied to the clipboard (OSC 52)"
            overlay = nil
            return [.copyToClipboard(token)]
        case .character("w"):
            let path = "token-\(sender).txt"
            status = "token of \(sender) written to \(path)"
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
