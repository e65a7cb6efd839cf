import FCMEngine
import FCMProfiles

/// The view: the whole screen as a pure function of the model and the terminal
/// size. The ncurses backend only paints what this returns.
public enum View {
    /// The smallest screen the layout is drawn for; smaller ones get a notice.
    public static let minimumWidth = 60
    public static let minimumHeight = 16

    /// The widest the right column (inbox, held, server) grows on a wide screen.
    static let rightColumnWidth = 68

    public static func render(_ model: TUIModel, width: Int, height: Int) -> Grid {
        var grid = Grid(width: width, height: height)
        guard width >= minimumWidth, height >= minimumHeight else {
            grid.put("fcm-device needs at least \(minimumWidth)x\(minimumHeight);", x: 0, y: 0, style: .warning)
            grid.put("this terminal is \(width)x\(height).", x: 0, y: 1, style: .warning)
            return grid
        }
        header(model, into: &grid)
        let caption = captionLines(model, width: width, height: height)
        // Play mode keeps room for the caption's most rows, so the panes stay put
        // when a caption of one line follows one of two.
        let captionHeight = model.play == nil ? caption.count : captionRows(height: height)
        let body = Rect(x: 0, y: 2, width: width, height: height - 4 - captionHeight)
        for (pane, rect) in layout(body, focus: model.focus) {
            drawPane(pane, model, rect, into: &grid)
        }
        for (index, line) in caption.enumerated() {
            grid.put(line.text, x: 1, y: body.y + body.height + index, style: line.style, limit: width - 2)
        }
        statusLine(model, into: &grid)
        footer(model, into: &grid)
        if let overlay = model.overlay { drawOverlay(overlay, model, into: &grid) }
        return grid
    }

    /// Where each pane goes. Wide screens show every pane; narrower ones share the
    /// bottom right between the inbox and the server pane, by focus.
    static func layout(_ body: Rect, focus: Pane) -> [(Pane, Rect)] {
        // On a wide screen the left column gives two columns to the events (its tokens
        // are cut in the middle, marked, as they are everywhere).
        let leftWidth = body.width >= 160 ? 44 : min(46, max(30, body.width * 2 / 5))
        let left = Rect(x: body.x, y: body.y, width: leftWidth, height: body.height)
        let third = left.height / 3
        var panes: [(Pane, Rect)] = [
            (.senders, Rect(x: left.x, y: left.y, width: left.width, height: third)),
            (.queue, Rect(x: left.x, y: left.y + third, width: left.width, height: third)),
            (.tray, Rect(x: left.x, y: left.y + 2 * third, width: left.width, height: left.height - 2 * third)),
        ]
        let rest = Rect(x: body.x + leftWidth, y: body.y, width: body.width - leftWidth, height: body.height)
        if body.width >= 160 {
            // The right column is as wide as its titles need (68 at most: the held table whole): every column
            // beyond goes to the events, whose lines are the longest.
            let middle = rest.width - min(Self.rightColumnWidth, rest.width - rest.width * 11 / 20)
            panes.append((.events, Rect(x: rest.x, y: rest.y, width: middle, height: rest.height)))
            let right = Rect(x: rest.x + middle, y: rest.y, width: rest.width - middle, height: rest.height)
            let third = right.height / 3
            panes.append((.inbox, Rect(x: right.x, y: right.y, width: right.width, height: third)))
            panes.append((.held, Rect(x: right.x, y: right.y + third, width: right.width, height: third)))
            panes.append(
                (
                    .server,
                    Rect(x: right.x, y: right.y + 2 * third, width: right.width, height: right.height - 2 * third)
                ))
        } else {
            let bottom = max(6, rest.height * 2 / 5)
            panes.append((.events, Rect(x: rest.x, y: rest.y, width: rest.width, height: rest.height - bottom)))
            let shared: Pane = focus == .server ? .server : .inbox
            panes.append((shared, Rect(x: rest.x, y: rest.y + rest.height - bottom, width: rest.width, height: bottom)))
        }
        return panes
    }

    /// What kind of phone it is: platform and SDK, or a real client's (firebase-messaging
    /// over MCS), whose SDK is its own.
    static func kind(ofPhoneAt index: Int, _ model: TUIModel) -> String {
        let phone = model.device.devices[index]
        let sdk = model.device.isRealClient(phoneAt: index) ? "real client" : phone.settings.sdk.rawValue
        return "\(phone.platform.rawValue)/\(sdk)"
    }

    /// Two lines: who the device is and the clock; then its state.
    static func header(_ model: TUIModel, into grid: inout Grid) {
        let engine = model.shown
        let device = engine.settings
        grid.fill(x: 0, y: 0, width: grid.width, height: 1, style: .header)
        let clock = playPosition(model) ?? String(DurationText.stamp(model.now).dropLast(4))
        let count = model.device.devices.count
        let room = grid.width - clock.count - 3
        // The platform is kept longest: the app id goes first, then the list hint.
        let kind = Self.kind(ofPhoneAt: model.shownIndex, model)
        let place = count > 1 ? " (\(model.shownIndex + 1)/\(count))" : ""
        let which = count > 1 ? " (\(model.shownIndex + 1)/\(count), v lists)" : ""
        let candidates = [
            " fcm-device │ \(device.name)\(which) │ \(kind) │ \(device.app)",
            " fcm-device │ \(device.name)\(which) │ \(kind)",
            " fcm-device │ \(device.name)\(place) │ \(kind)",
            " \(device.name)\(place) │ \(kind)",
        ]
        let identity = candidates.first { TextWidth.columns(of: $0) <= room } ?? candidates[candidates.count - 1]
        grid.put(TextWidth.fit(identity, width: room), x: 0, y: 0, style: .header)
        grid.put(clock, x: grid.width - clock.count - 1, y: 0, style: .header)
        var x = 1
        func segment(_ text: String, _ style: CellStyle) {
            guard x + TextWidth.columns(of: text) < grid.width else { return }
            x += grid.put(text, x: x, y: 1, style: style)
            x += grid.put("  ", x: x, y: 1)
        }
        segment(
            engine.installed ? "app \(engine.appState.rawValue)" : "app uninstalled", engine.installed ? .ok : .error)
        segment(engine.network == .online ? "online" : "offline", engine.network == .online ? .ok : .warning)
        // An iPhone has no Doze: the switch is APNs holding normal-priority pushes.
        let asleep = device.platform.idleNames?.state ?? "dozing"
        segment(engine.doze ? asleep : "awake", engine.doze ? .warning : .ok)
        segment(
            model.device.server.serviceUp ? "service up" : "service DOWN", model.device.server.serviceUp ? .ok : .error)
        if let listeners = model.networkSummary {
            // Its parts, most needed first, each shown where it fits.
            for part in listeners.components(separatedBy: "  ") { segment(part, .ok) }
            segment("app server: \(model.device.configuration.appServer.rawValue)", .dim)
        } else {
            // Said before the app server, so that it shows at 80 columns too.
            segment("no ports served", .warning)
            segment("app server: \(model.device.configuration.appServer.rawValue)", .dim)
        }
        // Said only when it keeps notifications from showing as they would; after
        // the ports, which matter more (the tray's title says it at every width).
        let permission = device.notificationPermission
        if permission != NotificationPermission.allowing(on: device.platform) {
            segment("notifications \(permission.rawValue)", permission.allowsNotifications ? .dim : .warning)
        }
    }

    static func statusLine(_ model: TUIModel, into grid: inout Grid) {
        let y = grid.height - 2
        if let status = model.statusLine {
            let style: CellStyle = status.kind == .note ? .ok : .error
            grid.put(TextWidth.fit(" " + status.text, width: grid.width), x: 0, y: y, style: style)
        } else if !model.eventFilter.isEmpty {
            grid.put(" events filtered by \"\(model.eventFilter)\" (/ to change)", x: 0, y: y, style: .dim)
        }
    }

    /// The footer's keys for the phone shown, without those its platform refuses (the
    /// engine says which: a browser has no upstream and no Doze), or that only a real
    /// client does itself; `z` is sleep on an iPhone. Made from `KeyTable`.
    static func footerKeys(for platform: Platform, realClient: Bool = false) -> [(String, String)] {
        let asked: [MainAction: PhoneCommand] = [
            .send: .send(UpstreamRequest(to: "", messageID: "")), .doze: .setDoze(true),
            .foreground: .setAppState(.foreground), .tap: .tap(.last),
        ]
        return KeyTable.mainFooter.compactMap { actions, label in
            if let command = actions.first.flatMap({ asked[$0] }),
                DeviceEngine.refusal(command, on: platform) != nil
                    || (realClient && DeviceEngine.receiverRefusal(command) != nil)
            {
                return nil
            }
            let keys = KeyTable.footerKeys(actions.map { .main($0) })
            return actions == [.doze] ? (keys, platform.idleNames?.key ?? label) : (keys, label)
        }
    }

    static var playFooterKeys: [(String, String)] {
        KeyTable.playFooter.map { entries, label in (KeyTable.footerKeys(entries), label) }
    }

    /// The main keys; help and quit always show, at the right.
    static func footer(_ model: TUIModel, into grid: inout Grid) {
        let y = grid.height - 1
        let fixed = "? help  q quit "
        let fixedX = grid.width - fixed.count
        grid.put("?", x: fixedX, y: y, style: .key)
        grid.put(" help  ", x: fixedX + 1, y: y, style: .dim)
        grid.put("q", x: fixedX + 8, y: y, style: .key)
        grid.put(" quit", x: fixedX + 9, y: y, style: .dim)
        var x = 1
        let keys =
            model.play == nil
            ? footerKeys(
                for: model.shown.settings.platform, realClient: model.device.isRealClient(phoneAt: model.shownIndex))
            : playFooterKeys
        // Two spaces between keys where they fit, one where that makes them all fit.
        let wide = keys.reduce(1) { $0 + $1.0.count + $1.1.count + 3 }
        let gap = wide > fixedX ? " " : "  "
        for (key, label) in keys {
            let need = key.count + label.count + 1 + gap.count
            if x + need > fixedX { break }
            x += grid.put(key, x: x, y: y, style: .key)
            x += grid.put(" " + label + gap, x: x, y: y, style: .dim)
        }
    }
}

/// A rectangle of the screen.
public struct Rect: Sendable, Equatable {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    /// The inside of a box drawn on this rectangle.
    var inner: Rect { Rect(x: x + 1, y: y + 1, width: max(0, width - 2), height: max(0, height - 2)) }
}
