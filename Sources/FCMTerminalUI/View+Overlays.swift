import FCMEngine
import FCMProfiles

/// Help, forms, token details and the filter prompt, drawn over the main screen.
extension View {
    static func drawOverlay(_ overlay: Overlay, _ model: TUIModel, into grid: inout Grid) {
        switch overlay {
        case .help: model.play == nil ? drawHelp(into: &grid) : drawPlayHelp(into: &grid)
        case .form(let form):
            // With several phones, a form that acts on one names it.
            let named = model.device.devices.count > 1 && form.purpose.actsOnThePhoneShown
            drawForm(form, phone: named ? model.shown.settings.name : nil, into: &grid)
        case .tokenDetail(let sender): drawTokenDetail(sender, model, into: &grid)
        case .messageDetail(let index): drawMessageDetail(index, model, into: &grid)
        case .eventDetail(let event): drawEventDetail(event, into: &grid)
        case .held(let selected): drawHeld(selected: selected, model, into: &grid)
        case .journey(let id): drawJourney(id, model, into: &grid)
        case .devices(let selected): drawDevices(selected: selected, model, into: &grid)
        case .report(let selected): drawReport(selected: selected, model, into: &grid)
        case .filter(let text):
            let y = grid.height - 2
            grid.fill(x: 0, y: y, width: grid.width, height: 1, style: .selected)
            grid.put(
                " Filter events: \(text)▏  (Enter apply, Esc cancel, empty shows all)", x: 0, y: y, style: .selected)
        }
    }

    /// A cleared, boxed area in the middle of the screen.
    static func panel(width: Int, height: Int, title: String, into grid: inout Grid) -> Rect {
        let w = min(grid.width - 2, width)
        let h = min(grid.height - 2, height)
        let rect = Rect(x: (grid.width - w) / 2, y: (grid.height - h) / 2, width: w, height: h)
        grid.fill(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        grid.box(x: rect.x, y: rect.y, width: rect.width, height: rect.height, title: title, focused: true)
        return rect.inner
    }

    /// The live keys, as `?` lists them: (keys, what they do), made from `KeyTable`.
    public static var helpLines: [(String, String)] {
        KeyTable.mainHelp.map { (KeyTable.keyColumn($0), $0.says) }
    }

    /// Play mode's keys, as its `?` lists them.
    static var playHelpLines: [(String, String)] {
        KeyTable.playHelp.map { (KeyTable.keyColumn($0), $0.says) }
    }

    /// Help in play mode: the play keys, then what the live keys do there.
    static func drawPlayHelp(into grid: inout Grid) {
        let lines = playHelpLines
        let inner = panel(width: 76, height: lines.count + 9, title: "Keys in play mode", into: &grid)
        for (index, line) in lines.enumerated() where index < inner.height - 1 {
            grid.put(line.0, x: inner.x + 1, y: inner.y + index, style: .key, limit: 16)
            grid.put(TextWidth.fit(line.1, width: inner.width - 18), x: inner.x + 17, y: inner.y + index)
        }
        let noteTop = inner.y + lines.count + 1
        let room = max(0, inner.y + inner.height - 1 - noteTop)
        for (index, line) in TextWidth.wrap(KeyTable.playHelpNote, width: inner.width - 2, maxLines: room).enumerated()
        {
            grid.put(line, x: inner.x + 1, y: noteTop + index, style: .dim)
        }
        grid.put("Esc or ? closes", x: inner.x + 1, y: inner.y + inner.height - 1, style: .dim)
    }

    static func drawHelp(into grid: inout Grid) {
        let lines = helpLines
        let inner = panel(width: 70, height: lines.count + 4, title: "Keys", into: &grid)
        for (index, line) in lines.enumerated() where index < inner.height - 1 {
            grid.put(line.0, x: inner.x + 1, y: inner.y + index, style: .key, limit: 16)
            grid.put(TextWidth.fit(line.1, width: inner.width - 18), x: inner.x + 17, y: inner.y + index)
        }
        grid.put("Esc or ? closes", x: inner.x + 1, y: inner.y + inner.height - 1, style: .dim)
    }

    static func drawForm(_ form: Form, phone: String? = nil, into grid: inout Grid) {
        let title = phone.map { "\($0) · " + form.purpose.rawValue } ?? form.purpose.rawValue
        // Wider on a wide screen, so paths and errors fit; errors and keys wrap.
        let width = min(grid.width - 2, max(72, min(110, grid.width * 3 / 5)))
        let labelWidth = 20
        let valueWidth = width - 2 - labelWidth - 2
        let errorLines = form.fields.map { field in
            field.error.map { TextWidth.wrap("↳ " + $0, width: valueWidth, maxLines: 3) } ?? []
        }
        let formError = form.error.map { TextWidth.wrap($0, width: width - 4, maxLines: 3) } ?? []
        let hint = TextWidth.wrap(formHint(form), width: width - 4, maxLines: 2)
        let height = form.fields.count + errorLines.joined().count + formError.count + hint.count + 4
        let inner = panel(width: width, height: height, title: title, into: &grid)
        let bottom = inner.y + inner.height - hint.count - formError.count - 1
        var y = inner.y
        let firstVisible = max(0, form.focused - (inner.height - 4))
        for (index, field) in form.fields.enumerated() where index >= firstVisible {
            guard y < bottom else { break }
            let focused = index == form.focused
            grid.put(field.label, x: inner.x + 1, y: y, style: focused ? .accent : .dim, limit: labelWidth)
            var value = field.value
            if !field.choices.isEmpty { value = "‹ \(value) ›" } else if focused && !field.prefilled { value += "▏" }
            // A value being typed shows its end (where the typing is) when it is long.
            let shown =
                focused && TextWidth.columns(of: value) > valueWidth
                ? "…" + String(value.suffix(max(1, valueWidth - 1))) : TextWidth.fit(value, width: valueWidth)
            // A focused value that typing replaces shows selected, as a form's field does.
            let style: CellStyle = focused ? (field.prefilled ? .selected : .bold) : .normal
            grid.put(shown, x: inner.x + labelWidth + 1, y: y, style: style, limit: valueWidth)
            y += 1
            for line in errorLines[index] where y < bottom {
                grid.put(line, x: inner.x + labelWidth + 1, y: y, style: .error, limit: valueWidth)
                y += 1
            }
        }
        for (offset, line) in formError.enumerated() {
            grid.put(line, x: inner.x + 1, y: bottom + offset, style: .error, limit: inner.width - 2)
        }
        for (offset, line) in hint.enumerated() {
            grid.put(
                line, x: inner.x + 1, y: inner.y + inner.height - hint.count + offset, style: .dim,
                limit: inner.width - 2)
        }
    }

    /// The keys a form takes, only those that do something in it.
    static func formHint(_ form: Form) -> String {
        var keys = ["Enter submit", "Esc cancel"]
        if form.fields.count > 1 { keys.append("↑↓ field") }
        if form.fields.contains(where: { !$0.choices.isEmpty }) { keys.append("←→ choice") }
        keys += ["typing replaces a value", "Backspace edits", "Ctrl-U clears"]
        if form.fields.contains(where: \.isData) { keys.append("Ctrl-N data pair") }
        return keys.joined(separator: " · ")
    }

    /// Every field of a delivered message, long values wrapped.
    static func drawMessageDetail(_ index: Int, _ model: TUIModel, into grid: inout Grid) {
        guard model.shown.inbox.indices.contains(index) else { return }
        let message = model.shown.inbox[index]
        var lines: [(String, CellStyle)] = [
            ("id \(message.id)", .bold),
            ("from \(message.from ?? message.sender)  via \(message.via)  at \(DurationText.stamp(message.at))", .dim),
            (
                "priority \(message.priority.rawValue)" + (message.collapseKey.map { "  collapse_key \($0)" } ?? ""),
                .dim
            ),
        ]
        if let notification = message.notification {
            lines.append(("notification", .accent))
            lines += notification.map { ("  \($0.key): \($0.value)", .normal) }
        }
        lines.append(("data", .accent))
        lines +=
            message.data.isEmpty ? [("  (none)", .dim)] : message.data.map { ("  \($0.key): \($0.value)", .normal) }
        let inner = panel(width: 76, height: grid.height - 2, title: "Delivered message", into: &grid)
        let width = max(10, inner.width - 2)
        var y = inner.y
        for (text, style) in lines {
            var rest = Substring(text)
            repeat {
                guard y < inner.y + inner.height - 1 else { break }
                var piece = ""
                var used = 0
                while let next = rest.first, used + TextWidth.columns(of: next) <= width {
                    piece.append(next)
                    used += TextWidth.columns(of: next)
                    rest = rest.dropFirst()
                }
                grid.put(piece, x: inner.x + 1, y: y, style: style)
                y += 1
            } while !rest.isEmpty
        }
        grid.put("j journey · Esc close", x: inner.x + 1, y: inner.y + inner.height - 1, style: .dim)
    }

    static func drawTokenDetail(_ sender: String, _ model: TUIModel, into grid: inout Grid) {
        let token = model.shown.tokens[sender] ?? "(no token: the app is uninstalled)"
        let inner = panel(width: 72, height: 12, title: "Token of sender \(sender)", into: &grid)
        var chunks: [String] = []
        var rest = Substring(token)
        let width = max(10, inner.width - 2)
        while !rest.isEmpty {
            chunks.append(String(rest.prefix(width)))
            rest = rest.dropFirst(width)
        }
        for (index, chunk) in chunks.enumerated() where index < inner.height - 3 {
            grid.put(chunk, x: inner.x + 1, y: inner.y + index, style: .bold)
        }
        let length = "\(token.count) characters"
        grid.put(length, x: inner.x + 1, y: inner.y + inner.height - 3, style: .dim)
        let topics = model.shown.topics(of: sender)
        let topicText = topics.isEmpty ? "Topics: none (T subscribes)" : "Topics: " + topics.joined(separator: ", ")
        grid.put(
            TextWidth.fit(topicText, width: inner.width - 2), x: inner.x + 1, y: inner.y + inner.height - 2,
            style: .dim)
        grid.put(
            "c copy (OSC 52) · w write token-\(sender).txt · Esc close", x: inner.x + 1,
            y: inner.y + inner.height - 1, style: .dim, limit: inner.width - 2)
    }
}
