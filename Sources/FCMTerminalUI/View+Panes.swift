import FCMEngine
import FCMProfiles

/// The contents of each pane.
extension View {
    static func drawPane(_ pane: Pane, _ model: TUIModel, _ rect: Rect, into grid: inout Grid) {
        let focused = model.focus == pane
        let inner = rect.inner
        // A log pane's title counts the newer lines hidden below, as drawn.
        let log =
            pane == .events || pane == .server ? logRows(pane, model, height: inner.height, width: inner.width) : nil
        let rows: [Row]
        var start = 0
        // Rows before the first one formatted (items scrolled past).
        var skippedRows = 0
        var cursorRow: Int?
        // A list pane's title counts the items below what it shows.
        var itemsBelow = 0
        defer {
            grid.box(
                x: rect.x, y: rect.y, width: rect.width, height: rect.height,
                title: (focused ? Self.focusMark : "") + title(pane, model, hidden: log?.skipped ?? itemsBelow),
                focused: focused)
        }
        guard inner.height > 0 else { return }
        if let log {
            rows = log.rows
            // The events pane's cursor: the event Enter opens.
            if pane == .events, focused, !rows.isEmpty {
                cursorRow = rows.count - 1 - (model.eventScroll - log.skipped)
            }
        } else {
            // The selection counts items; an item may take several rows. Only the
            // items on screen are formatted (the inbox holds up to a thousand).
            let per = pane.rowsPerItem
            let count = model.itemCount(pane)
            let total = count * per + (pane == .queue && !model.device.server.awaitingAck.isEmpty ? 1 : 0)
            let lastSelectedRow = min((model.selected(pane) + 1) * per - 1, max(0, total - 1))
            start = max(0, min(lastSelectedRow - inner.height + 1, total - inner.height))
            let first = start / per
            let items = first..<min(count, (start + inner.height) / per + 1)
            rows = self.rows(pane, model, width: inner.width, items: items)
            skippedRows = first * per
            let lastShown = (start + inner.height - 1) / per
            itemsBelow = max(0, count - 1 - lastShown)
        }
        for (offset, row) in rows.dropFirst(start - skippedRows).prefix(inner.height).enumerated() {
            let y = inner.y + offset
            let isSelected =
                focused && pane != .events && pane != .server
                && (start + offset) / pane.rowsPerItem == model.selected(pane)
            // The line looked at keeps its colour: a failure stays red when selected.
            let style = isSelected || offset == cursorRow ? row.style.selected : row.style
            grid.put(TextWidth.fit(row.text, width: inner.width), x: inner.x, y: y, style: style)
            if isSelected || offset == cursorRow { grid.paint(x: inner.x, y: y, count: inner.width, style: style) }
        }
        if rows.isEmpty && skippedRows == 0 {
            let lines = TextWidth.wrap(emptyText(pane, model), width: inner.width, maxLines: inner.height)
            for (offset, line) in lines.enumerated() {
                grid.put(line, x: inner.x, y: inner.y + offset, style: .dim, limit: inner.width)
            }
        }
    }

    struct Row {
        var text: String
        var style: CellStyle = .normal
    }

    static func title(_ pane: Pane, _ model: TUIModel, hidden: Int = 0) -> String {
        let engine = model.shown
        switch pane {
        case .senders:
            let topics = engine.topicCount == 0 ? "" : " · topics \(engine.topicCount)"
            return "Senders \(engine.senders.count)/\(ServiceLimits.maxSenders)" + topics + more(hidden)
        case .queue:
            // A browser has no upstream: the pane says so rather than count to 20.
            guard engine.platform != .web else {
                return model.shownPushLines.isEmpty ? "No push subscription" : "Push subscription" + more(hidden)
            }
            return "Pending upstream \(engine.pending.count)/\(ServiceLimits.pendingQueueLimit)" + more(hidden)
        case .events:
            // Scrolled back, the newest events are below: how many, and where.
            let scroll = hidden > 0 ? " ↓\(hidden) newer" : ""
            let filter = model.eventFilter.isEmpty ? "" : " /\(model.eventFilter)"
            return "Callbacks and events\(filter)\(scroll)"
        case .tray:
            let name =
                switch engine.platform {
                case .android: "Tray"
                case .ios: "Notification centre"
                case .web: "Browser notifications"
                }
            // Without permission the system shows nothing: the title says so.
            let permission = engine.settings.notificationPermission
            return "\(name) \(engine.tray.count)"
                + (permission.allowsNotifications ? "" : " · permission \(permission.rawValue)") + more(hidden)
        case .inbox: return "Inbox \(engine.inbox.count)" + more(hidden)
        case .held:
            let usage = model.device.storeUsage(ofPhoneAt: model.shownIndex)
            return "Held on the server \(model.shownHeld.count) · non-collapsible \(usage.nonCollapsible)/"
                + "\(usage.nonCollapsibleLimit) · keys \(usage.collapseKeys)/\(usage.collapseKeyLimit)"
        case .server:
            let scroll = hidden > 0 ? " ↓\(hidden) newer" : ""
            return (model.serverRaw ? "Server (raw JSON)" : "Server") + scroll
        }
    }

    /// Leads the focused pane's title: the pane keys act on is told by more than its
    /// border's colour (a terminal without colours, a screenshot in grey).
    static let focusMark = "▸ "

    /// A list pane's mark for the items below what it shows, short enough for a title at
    /// 80 columns (the events pane has its own).
    static func more(_ hidden: Int) -> String { hidden > 0 ? " ↓\(hidden)" : "" }

    static func emptyText(_ pane: Pane, _ model: TUIModel) -> String {
        switch pane {
        case .senders: return model.shown.installed ? "no senders: a adds one" : "app uninstalled: u reinstalls"
        case .queue:
            if model.shown.platform == .web {
                return "the browser subscribes to push with its first token (no upstream: the FCM JavaScript SDK "
                    + "has no send API)"
            }
            return model.device.isConnected(phoneAt: model.shownIndex) ? "empty: the device is connected" : "empty"
        case .events: return model.eventFilter.isEmpty ? "no events yet" : "no event matches the filter"
        case .tray:
            let permission = model.shown.settings.notificationPermission
            return permission.allowsNotifications
                ? "no notifications" : "nothing shown: notification permission is \(permission.rawValue)"
        case .inbox: return "no messages delivered yet"
        case .server: return "no server traffic yet"
        case .held: return nothingHeld(model) + (model.shown.installed ? " (h opens this list)" : "")
        }
    }

    /// The rows of the list panes; the log panes draw through `logRows`, which
    /// formats only what fits.
    static func rows(_ pane: Pane, _ model: TUIModel, width: Int, items: Range<Int>) -> [Row] {
        let engine = model.shown
        switch pane {
        case .senders:
            return engine.senders[items].map { sender in
                let room = max(8, width - sender.id.count - 2)
                let token = engine.tokens[sender.id].map { TextWidth.middle($0, width: room) } ?? "no token"
                return Row(text: "\(sender.id)  \(token)", style: engine.tokens[sender.id] == nil ? .dim : .normal)
            }
        case .queue where engine.platform == .web:
            // Shortened in the middle: an endpoint's and a key's ends tell them apart.
            return model.shownPushLines[items].map { line in
                Row(text: TextWidth.middle(line, width: width), style: line.hasPrefix("held") ? .accent : .normal)
            }
        case .queue:
            var rows = engine.pending[items].map { message in
                let left = max(0, message.expiresAt - model.now)
                return Row(text: "\(message.id)  ttl \(countdown(left))  → \(message.sender)")
            }
            if !model.device.server.awaitingAck.isEmpty, items.upperBound == engine.pending.count {
                rows.append(
                    Row(
                        text: "server holds \(model.device.server.awaitingAck.count) for the app server's ack",
                        style: .dim))
            }
            return rows
        case .events, .server:
            return []
        case .held:
            // Columns as wide as what the rows on screen hold.
            let cells = model.shownHeld[items].map { heldCells($0, now: model.now) }
            let widths = tableWidths(cells, width: width)
            return cells.map { Row(text: tableRow($0, widths)) }
        case .tray:
            return engine.tray[items].map { note in
                let data = note.data.isEmpty ? "" : "  [data: \(note.data.map(\.key).joined(separator: ","))]"
                // A notification without a body shows its title alone.
                return Row(text: note.title + (note.body.isEmpty ? "" : " — " + note.body) + data)
            }
        case .inbox:
            return engine.inbox[items].flatMap { message -> [Row] in
                var payload: [String] = []
                if !message.data.isEmpty { payload.append("data " + pairs(message.data)) }
                if let note = message.notification { payload.append("notification " + pairs(note)) }
                return [
                    Row(
                        text:
                            "\(stamp(message.at, paneWidth: width)) \(message.via) from \(message.from ?? message.sender)",
                        style: .accent),
                    Row(text: "  " + (payload.isEmpty ? "(empty)" : payload.joined(separator: "  "))),
                ]
            }
        }
    }

    /// The rows of the events or server pane that fit, newest last.
    static func logRows(_ pane: Pane, _ model: TUIModel, height: Int, width: Int = .max) -> (
        rows: [Row], skipped: Int
    ) {
        let scroll = pane == .events ? model.eventScroll : model.serverScroll
        var events = model.tail(of: pane, count: height, skip: scroll)
        var skipped = scroll
        // Scrolled up with room to spare, the pane still fills from the top and the
        // newest lines stay in view.
        if events.count < height, scroll > 0 {
            skipped = max(0, scroll - (height - events.count))
            events = model.tail(of: pane, count: height, skip: skipped)
        }
        if pane == .server {
            let rows = events.map { event in
                let text =
                    model.serverRaw
                    ? TranscriptFormatter.json(event) : compact(event, showSender: true, width: width)
                return Row(text: text, style: event.isError ? .error : .normal)
            }
            return (rows, skipped)
        }
        let manySenders = model.shown.senders.count > 1
        let rows = events.map { event in
            let style: CellStyle =
                switch event.kind {
                case .expectationHeld: .ok
                case .expectationFailed: .error
                default: event.isError ? .error : event.side == .server ? .dim : .normal
                }
            return Row(text: compact(event, showSender: manySenders, width: width), style: style)
        }
        return (rows, skipped)
    }

    /// The event on one line for a pane `width` columns wide: when it is too long,
    /// long values (ids, tokens) are shortened in the middle, keeping their start
    /// and end, until at least the first field (the id a person scans for) fits; a
    /// narrow pane also drops the milliseconds.
    static func compact(_ event: Event, showSender: Bool, width: Int) -> String {
        var parts = CompactParts(event, showSender: showSender, paneWidth: width)
        // A check's mark says it is one: on a narrow line its `expect` word gives way,
        // and its error reads as an event's does, its name alone.
        if event.side == .check, TextWidth.columns(of: parts.line()) > width {
            parts.head = parts.head.replacingOccurrences(of: " expect ", with: " ")
                .replacingOccurrences(of: " error=", with: " ")
        }
        var line = parts.line()
        for longest in [32, 20, 12] where TextWidth.columns(of: line) > width {
            line = parts.line(longest: longest)
            if TextWidth.columns(of: parts.line(longest: longest, fields: 1)) <= width { break }
        }
        // An error that still does not fit whole: the phone's name gives way, then the
        // event's, cut in its middle (`downs…Rejected InvalidRegistration`), so the
        // error is read.
        if let error = parts.fields.first, error.name == "error",
            TextWidth.columns(of: parts.line(fields: 1)) > width
        {
            let room = max(6, width - TextWidth.columns(of: parts.stamp + " " + error.value) - 1)
            var name = parts.event
            if let device = parts.device {
                let deviceRoom = room - TextWidth.columns(of: name) - 3
                if deviceRoom >= 2 { name = "[" + TextWidth.middle(device, width: deviceRoom) + "] " + name }
            }
            var shorter = parts
            shorter.head = parts.stamp + " " + TextWidth.middle(name, width: room)
            return shorter.line(fields: 1)
        }
        return line
    }

    /// An event on one short line: time, name, and the fields a person scans for.
    static func compact(_ event: Event, showSender: Bool) -> String {
        CompactParts(event, showSender: showSender, paneWidth: .max).line()
    }

    /// An event's line in pieces, so it can be put together again with shorter values.
    struct CompactParts {
        var head: String
        /// The time, the phone (with several) and the event's name.
        var stamp: String
        var device: String?
        var event: String
        var fields: [(name: String, value: String)] = []
        var tail = ""

        init(_ event: Event, showSender: Bool, paneWidth: Int) {
            stamp = View.stamp(event.at, paneWidth: paneWidth)
            // With several phones, whose event it is comes first.
            device = event.string("device")
            self.event = event.name
            head = stamp + " " + (device.map { "[\($0)] " } ?? "") + event.name
            // A new token is the news: shown by its start and end, which tell tokens apart.
            if [.onNewToken, .didReceiveRegistrationToken, .tokenResumed, .getToken].contains(event.kind),
                let token = event.string("token")
            {
                head += " token=" + TokenText.short(token)
            }
            if event.side == .check, let expectation = event.string("expect") {
                // A profile's check reads as what it asked for, held or not.
                head = stamp + " " + (event.kind == .expectationHeld ? "✔ " : "✘ ") + Self.errorFirst(expectation)
                tail = event.string("detail").map { " (\($0))" } ?? ""
                return
            }
            // What the report card reads (digests, its classes) is for the details, not the line.
            var hidden: Set<String> = [
                "token", "from", "category", "detail", "step_at", "device", "request", "bearer", "handling", "platform",
            ]
            if !showSender { hidden.insert("sender") }
            // An error first, the sender last: errors and ids are what a person scans for.
            let shown = event.fields.filter { !hidden.contains($0.name) }
            let first = shown.filter { $0.name == "error" }
            let last = shown.filter { $0.name == "sender" }
            for field in first + shown.filter({ $0.name != "error" && $0.name != "sender" }) + last {
                fields.append((field.name, field.value.text))
            }
            if event.kind == .commandRefused || event.kind == .expectationFailed || event.kind == .warning
                || event.isError,
                let detail = event.string("detail")
            {
                tail = " (\(detail))"
            }
        }

        /// An expectation's words with the error it names right after the event's name
        /// (`expect onSendError error=TooManyMessages id=s-1`): on a narrow line the error
        /// is what a reader needs.
        static func errorFirst(_ expectation: String) -> String {
            var words = expectation.split(separator: " ", omittingEmptySubsequences: false)
            guard words.count > 3, let index = words.firstIndex(where: { $0.hasPrefix("error=") }), index > 2 else {
                return expectation
            }
            words.insert(words.remove(at: index), at: 2)
            return words.joined(separator: " ")
        }

        /// The line with values longer than `longest` cut in the middle, and only
        /// the first `fields` fields. An error stays whole and comes first, its name
        /// alone (`downstreamRejected NotRegistered`): it is the part a reader needs, so
        /// the other fields are shortened, and cut at the end, before it is.
        func line(longest: Int = .max, fields count: Int = .max) -> String {
            var text = head
            for field in fields.prefix(count) {
                text +=
                    field.name == "error"
                    ? " " + field.value : " " + field.name + "=" + TextWidth.middle(field.value, width: longest)
            }
            return count == .max ? text + tail : text
        }
    }

    /// A time as every pane writes it: `+HH:MM:SS.mmm`, to the second in a pane
    /// narrower than `wideEnoughForMillis` columns.
    static func stamp(_ millis: Millis, paneWidth: Int) -> String {
        let stamp = DurationText.stamp(millis)
        return paneWidth < wideEnoughForMillis ? String(stamp.dropLast(4)) : stamp
    }

    static let wideEnoughForMillis = 60

    static func pairs(_ pairs: [KeyValue]) -> String {
        "{" + pairs.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
    }

    /// `0:59:12`, or `12d 3:04:05` past a day.
    static func countdown(_ millis: Millis) -> String {
        let seconds = millis / 1_000
        let days = seconds / 86_400
        let clock = "\(seconds / 3_600 % 24):" + two(seconds / 60 % 60) + ":" + two(seconds % 60)
        return days > 0 ? "\(days)d \(clock)" : clock
    }

    static func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
}
