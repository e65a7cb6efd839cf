import FCMEngine
import FCMEventGuide
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
            // A time reads as the event's own does.
            if EventDescription.timeFields.contains(field.name), case .int(let millis) = field.value {
                lines.append(("\(field.name): \(DurationText.stamp(millis))", .normal))
            } else {
                lines.append(("\(field.name): \(field.value.text)", .normal))
            }
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
        let usage = model.device.storeUsage(ofPhoneAt: model.shownIndex)
        let inner = panel(width: 100, height: grid.height - 2, title: "Held on the connection server", into: &grid)
        let counts =
            "non-collapsible \(usage.nonCollapsible)/\(usage.nonCollapsibleLimit)   "
            + "collapse keys \(usage.collapseKeys)/\(usage.collapseKeyLimit)   "
            + "upstream awaiting an ack \(model.device.server.awaitingAck.count)"
        grid.put(counts, x: inner.x + 1, y: inner.y, style: .bold, limit: inner.width - 2)
        // Columns as wide as what they hold, in the room there is: nothing is cut
        // while blank columns stand beside it.
        let rows = max(0, inner.height - 5)
        let first = max(0, min(selected - rows + 1, held.count - rows))
        let shown = Array(held.dropFirst(first).prefix(rows))
        let header = ["id", "sender", "held because", "collapse key", "ttl left"]
        let cells = shown.map { heldCells($0, now: model.now) }
        let widths = tableWidths([header] + cells, width: inner.width - 2)
        grid.put(tableRow(header, widths), x: inner.x + 1, y: inner.y + 2, style: .dim, limit: inner.width - 2)
        for (offset, row) in cells.enumerated() {
            let index = first + offset
            let y = inner.y + 3 + offset
            grid.put(
                tableRow(row, widths), x: inner.x + 1, y: y, style: index == selected ? .selected : .normal,
                limit: inner.width - 2)
            if index == selected { grid.paint(x: inner.x + 1, y: y, count: inner.width - 2, style: .selected) }
        }
        if held.isEmpty {
            grid.put(nothingHeld(model), x: inner.x + 1, y: inner.y + 3, style: .dim, limit: inner.width - 2)
        }
        if shown.contains(where: \.collapseKeyIsDefault) {
            grid.put(
                "* no collapse_key: a notification collapses under the app's package name", x: inner.x + 1,
                y: inner.y + inner.height - 2, style: .dim, limit: inner.width - 2)
        }
        grid.put(
            "↑↓ select · Enter or j the message's journey · Esc close", x: inner.x + 1,
            y: inner.y + inner.height - 1, style: .dim, limit: inner.width - 2)
    }
}

extension View {
    /// What an empty held list says: why nothing waits.
    static func nothingHeld(_ model: TUIModel) -> String {
        model.shown.installed
            ? "nothing held: the device takes messages as they come"
            : "nothing held: uninstalled, the app's tokens are refused (NotRegistered)"
    }

    /// A held message's cells: id, sender, why, collapse key, TTL left.
    static func heldCells(_ message: HeldMessage, now: Millis) -> [String] {
        let reason = (message.reason ?? "goes out at the next chance") + (message.priority == .high ? " (high)" : "")
        return [
            message.id, message.sender, reason,
            message.collapseKey.map { $0 + (message.collapseKeyIsDefault ? "*" : "") } ?? "-",
            countdown(max(0, message.expiresAt - now)),
        ]
    }

    /// Column widths (each with two columns of gap) for `rows` in `width` columns:
    /// each as wide as its widest cell; when they do not fit, the widest columns give
    /// way first, down to 6.
    static func tableWidths(_ rows: [[String]], width: Int) -> [Int] {
        let count = rows.map(\.count).max() ?? 0
        var widths = (0..<count).map { column in
            (rows.map { column < $0.count ? TextWidth.columns(of: $0[column]) : 0 }.max() ?? 0) + 2
        }
        while widths.reduce(0, +) > width, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }),
            widths[widest] > 6
        {
            widths[widest] -= 1
        }
        return widths
    }

    /// One row of a table laid out by `tableWidths`: a cell too long is cut in the
    /// middle, where ids and tokens differ least.
    static func tableRow(_ cells: [String], _ widths: [Int]) -> String {
        zip(cells, widths).map { TextWidth.middle($0, width: $1 - 2).padded($1) }.joined()
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
        let phones = model.device.devices
        let rows = devicesListRows(screenHeight: grid.height)
        // A list longer than the box says where the selection is in it.
        let position = phones.count > rows ? " · \(selected + 1) of \(phones.count)" : ""
        let inner = panel(
            width: 110, height: grid.height - 2,
            title: "Devices \(phones.count) · showing \(model.shown.settings.name)\(position)", into: &grid)
        let header = deviceColumns(["device", "platform", "app", "network", "tokens", "topics"])
        grid.put(TextWidth.fit(header, width: inner.width - 2), x: inner.x + 1, y: inner.y, style: .dim)
        assert(rows == max(0, inner.height - 3), "the rows counted for the title are the rows drawn")
        let first = max(0, min(selected - rows + 1, phones.count - rows))
        for offset in 0..<min(rows, phones.count - first) {
            let index = first + offset
            let phone = phones[index]
            let topics = phone.senders.flatMap { phone.topics(of: $0.id) }
            let cells = [
                (index == model.shownIndex ? "▸ " : "  ") + phone.name,
                kind(ofPhoneAt: index, model),
                phone.installed ? phone.appState.rawValue : "uninstalled",
                phone.network.rawValue + (phone.doze ? " " + (phone.platform.idleNames?.reason ?? "doze") : ""),
                "\(phone.tokens.count)",
                topics.isEmpty ? "-" : topics.joined(separator: ", "),
            ]
            let y = inner.y + 1 + offset
            let style: CellStyle = index == selected ? .selected : phone.installed ? .normal : .dim
            grid.put(TextWidth.fit(deviceColumns(cells), width: inner.width - 2), x: inner.x + 1, y: y, style: style)
            if index == selected { grid.paint(x: inner.x + 1, y: y, count: inner.width - 2, style: .selected) }
        }
        grid.put(
            "↑↓ select · Enter show it · a add a device · [ ] prev / next · Esc close",
            x: inner.x + 1, y: inner.y + inner.height - 1, style: .dim, limit: inner.width - 2)
    }

    /// The phones the devices list shows at once on a screen this high.
    static func devicesListRows(screenHeight: Int) -> Int { max(0, screenHeight - 2 - 2 - 3) }

    static func deviceColumns(_ cells: [String]) -> String {
        // Narrow enough that the topics column has room at 80 columns.
        let widths = [18, 12, 12, 13, 8]
        return zip(cells, widths).map { TextWidth.middle($0, width: $1 - 2).padded($1) }.joined() + (cells.last ?? "")
    }
}
