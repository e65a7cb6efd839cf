import FCMEngine
import FCMProfiles

/// Seeing why: the event under the cursor, what the server holds, and a message's
/// journey.
extension TUIModel {
    /// The event the events pane's cursor is on: the newest, or as far up as it is
    /// scrolled.
    public var cursorEvent: Event? {
        tail(of: .events, count: 1, skip: eventScroll).first
    }

    /// Opens the journey of the message selected in the focused pane.
    mutating func openJourneyOfSelection() {
        let id: String?
        switch focus {
        case .inbox: id = shown.inbox.isEmpty ? nil : shown.inbox[min(selected(.inbox), shown.inbox.count - 1)].id
        case .tray: id = shown.tray.isEmpty ? nil : shown.tray[min(selected(.tray), shown.tray.count - 1)].id
        case .queue:
            id = shown.pending.isEmpty ? nil : shown.pending[min(selected(.queue), shown.pending.count - 1)].id
        case .events, .server: id = cursorEvent?.messageIDs.first
        case .senders, .held: id = nil
        }
        guard let id else {
            say("select a message first: in the inbox, the tray, the queue, h (held) or an event")
            return
        }
        openJourney(id)
    }

    /// Opens the journey of message `id` (`j` on a selected message does this).
    public mutating func openJourney(_ id: String) {
        overlay = .journey(id: id)
    }

    mutating func handleHeld(selected: Int, _ key: Key) -> [Effect] {
        let held = shownHeld
        switch key {
        case .up: overlay = .held(selected: max(0, selected - 1))
        case .down: overlay = .held(selected: max(0, min(held.count - 1, selected + 1)))
        case .enter, .character("j"):
            if held.indices.contains(selected) { openJourney(held[selected].id) }
        case .escape, .character("q"), .character("h"): overlay = nil
        default: break
        }
        return []
    }

    /// Every event of a message's journey, oldest first.
    public func journey(of id: String) -> [Event] {
        log.filter { $0.side != .check && $0.messageIDs.contains(id) }
    }
}

extension Event {
    /// The message ids an event is about: its id, the ids it lists, the message a
    /// collapse replaced it with, and a receipt's message.
    public var messageIDs: [String] {
        var ids: [String] = []
        for field in fields {
            switch (field.name, field.value) {
            case ("id", .string(let id)), ("by", .string(let id)):
                ids.append(id.hasPrefix(OwedReceipt.idPrefix) ? String(id.dropFirst(OwedReceipt.idPrefix.count)) : id)
            case ("message_id", .string(let id)): ids.append(id)
            case ("ids", .list(let list)): ids += list
            default: break
            }
        }
        return ids
    }
}
