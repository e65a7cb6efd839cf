import FCMEngine
import FCMProfiles

/// The overlays that show why: an event whole with its rule, what the connection
/// server holds, and a message's journey drawn as a small sequence diagram.
extension View {
    /// Lines of text drawn in a panel, long ones wrapped, as many as fit.
    static func drawLines(_ lines: [(String, CellStyle)], in inner: Rect, bottom: Int, into grid: inout Grid) {
        var y = inner.y
        let width = max(10, inner.width - 2)
        for (text, style) in lines {
            for piece in TextWidth.wrap(text, width: width, maxLines: 50) where y < bottom {
                grid.put(piece, x: inner.x + 1, y: y, style: style)
                y += 1
            }
            if text.isEmpty { y += 1 }
        }
    }

    static func drawEventDetail(_ event: Event, into grid: inout Grid) {
        var lines: [(String, CellStyle)] = [
            ("\(event.name)  \(event.side.rawValue)  at \(DurationText.stamp(event.at))", .bold)
        ]
        for field in event.fields {
            lines.append(("\(field.name): \(field.value.text)", .normal))
        }
        let note = event.ruleNote
        lines.append(("", .normal))
        lines.append(("Why: " + note.rule, .accent))
        lines.append(("Source: " + note.source, .dim))
        let inner = panel(width: 90, height: grid.height - 2, title: "Event", into: &grid)
        drawLines(lines, in: inner, bottom: inner.y + inner.height - 1, into: &grid)
        let hint = event.messageIDs.isEmpty ? "Esc close" : "j the message's journey · Esc close"
        grid.put(hint, x: inner.x + 1, y: inner.y + inner.height - 1, style: .dim)
    }

    static func drawHeld(selected: Int, _ model: TUIModel, into grid: inout Grid) {
        let held = model.shownHeld
        let usage = model.engine.storeUsage(ofPhoneAt: model.shownIndex)
        let inner = panel(width: 100, height: grid.height - 2, title: "Held on the connection server", into: &grid)
        let counts =
            "non-collapsible \(usage.nonCollapsible)/\(usage.nonCollapsibleLimit)   "
            + "collapse keys \(usage.collapseKeys)/\(usage.collapseKeyLimit)   "
            + "upstream awaiting an ack \(model.engine.awaitingAck.count)"
        grid.put(counts, x: inner.x + 1, y: inner.y, style: .bold, limit: inner.width - 2)
        let wide = inner.width >= 96
        let header = heldColumns(["id", "sender", "held because", "collapse key", "ttl left"], wide: wide)
        grid.put(header, x: inner.x + 1, y: inner.y + 2, style: .dim, limit: inner.width - 2)
        let rows = max(0, inner.height - 5)
        let first = max(0, min(selected - rows + 1, held.count - rows))
        for (offset, message) in held.dropFirst(first).prefix(rows).enumerated() {
            let index = first + offset
            let text = heldRow(message, now: model.now, wide: wide).text
            let y = inner.y + 3 + offset
            grid.put(text, x: inner.x + 1, y: y, style: index == selected ? .selected : .normal, limit: inner.width - 2)
            if index == selected { grid.paint(x: inner.x + 1, y: y, count: inner.width - 2, style: .selected) }
        }
        if held.isEmpty {
            grid.put(
                "nothing held: the device takes every message as it comes", x: inner.x + 1, y: inner.y + 3,
                style: .dim, limit: inner.width - 2)
        }
        grid.put(
            "↑↓ select · Enter or j the message's journey · Esc close", x: inner.x + 1,
            y: inner.y + inner.height - 1, style: .dim, limit: inner.width - 2)
    }
}

extension View {
    /// Columns of the held list: id, sender, why, collapse key, then the TTL left;
    /// narrower on a small screen.
    static func heldColumns(_ cells: [String], wide: Bool) -> String {
        let widths = wide ? [22, 15, 28, 18] : [10, 14, 18, 12]
        return zip(cells, widths).map { TextWidth.middle($0, width: $1 - 2).padded($1) }.joined() + (cells.last ?? "")
    }

    /// One held message as a row of the held list or pane.
    static func heldRow(_ message: HeldMessage, now: Millis, wide: Bool) -> Row {
        let reason = (message.reason ?? "goes out at the next chance") + (message.priority == .high ? " (high)" : "")
        let cells = [
            message.id, message.sender, reason, message.collapseKey ?? "-",
            countdown(max(0, message.expiresAt - now)),
        ]
        return Row(text: heldColumns(cells, wide: wide))
    }
}

extension String {
    /// The text followed by spaces up to `width` columns (at least one space).
    func padded(_ width: Int) -> String {
        let used = TextWidth.columns(of: self)
        return self + String(repeating: " ", count: max(1, width - used))
    }
}

extension View {
    /// Every phone: its name, platform, conditions, tokens and topics; only the rows
    /// that fit are formatted, so a fleet of thousands draws as fast as three.
    static func drawDevices(selected: Int, _ model: TUIModel, into grid: inout Grid) {
        let engine = model.engine
        let phones = engine.devices
        let rows = max(0, grid.height - 2 - 2 - 3)
        // A list longer than the box says where the selection is in it.
        let position = phones.count > rows ? " · \(selected + 1) of \(phones.count)" : ""
        let inner = panel(
            width: 110, height: grid.height - 2,
            title: "Devices \(phones.count) · showing \(model.shown.settings.name)\(position)", into: &grid)
        let header = deviceColumns(["device", "platform", "app", "network", "tokens", "topics"])
        grid.put(header, x: inner.x + 1, y: inner.y, style: .dim, limit: inner.width - 2)
        assert(rows == max(0, inner.height - 3), "the rows counted for the title are the rows drawn")
        let first = max(0, min(selected - rows + 1, phones.count - rows))
        for offset in 0..<min(rows, phones.count - first) {
            let index = first + offset
            let phone = phones[index]
            let topics = phone.senders.flatMap { phone.topics(of: $0.id) }
            let cells = [
                (index == model.shownIndex ? "▸ " : "  ") + phone.name,
                "\(phone.platform.rawValue)/\(phone.settings.sdk.rawValue)",
                phone.installed ? phone.appState.rawValue : "uninstalled",
                phone.network.rawValue + (phone.doze ? " doze" : ""),
                "\(phone.tokens.count)",
                topics.isEmpty ? "-" : topics.joined(separator: ", "),
            ]
            let y = inner.y + 1 + offset
            let style: CellStyle = index == selected ? .selected : phone.installed ? .normal : .dim
            grid.put(deviceColumns(cells), x: inner.x + 1, y: y, style: style, limit: inner.width - 2)
            if index == selected { grid.paint(x: inner.x + 1, y: y, count: inner.width - 2, style: .selected) }
        }
        grid.put(
            "↑↓ select · Enter show it · a add a device · [ ] prev / next · Esc close",
            x: inner.x + 1, y: inner.y + inner.height - 1, style: .dim, limit: inner.width - 2)
    }

    static func deviceColumns(_ cells: [String]) -> String {
        let widths = [20, 13, 13, 13, 8]
        return zip(cells, widths).map { TextWidth.middle($0, width: $1 - 2).padded($1) }.joined() + (cells.last ?? "")
    }
}
