import FCMEngine
import FCMEventGuide
import FCMProfiles

/// A message's journey as a sequence diagram: four lanes (app server, connection
/// server, device, app), one arrow a hop, each with its time, what happened and,
/// under it, the rule that applied (from the engine).
extension View {
    enum Lane: Int, CaseIterable {
        case appServer, server, device, app

        var title: String {
            switch self {
            case .appServer: "app server"
            case .server: "FCM"
            case .device: "device"
            case .app: "app"
            }
        }
    }

    /// One hop: from a lane to another (or staying at one), and what it was.
    struct Hop {
        var from: Lane
        var to: Lane
        var label: String
    }

    /// Where an event of a message's journey goes in the diagram.
    static func hop(_ event: Event, id: String) -> Hop {
        let error = event.string("error").map { ": " + $0 } ?? ""
        switch event.kind {
        case .downstreamAccepted: return Hop(from: .appServer, to: .server, label: "accepted")
        case .downstreamRejected: return Hop(from: .server, to: .appServer, label: "rejected" + error)
        case .nack: return Hop(from: .server, to: .appServer, label: "nack" + error)
        case .stored: return Hop(from: .server, to: .server, label: "stored: " + (event.string("reason") ?? ""))
        case .collapsed, .webPushReplaced:
            // A collapse key's, or a Web Push Topic's: the message replaced, or the one replacing it.
            let byTopic = event.kind == .webPushReplaced
            let replaced = event.string("id") == id
            let label =
                replaced
                ? (byTopic ? "replaced by " : "collapsed by ") + (event.string("by") ?? "a newer one")
                : "replaced \(event.string("id") ?? "")"
            return Hop(from: .server, to: .server, label: label + (byTopic ? " (same Topic)" : ""))
        case .expired: return Hop(from: .server, to: .server, label: "expired (TTL)")
        case .discarded: return Hop(from: .server, to: .server, label: "discarded: " + (event.string("reason") ?? ""))
        case .onMessageReceived, .didReceiveRemoteNotification:
            return Hop(from: .server, to: .app, label: event.name)
        case .notificationPosted: return Hop(from: .server, to: .device, label: "shown by the system")
        case .notificationTapped: return Hop(from: .device, to: .app, label: "tapped: data to the app")
        case .receipt, .receiptToAppServer: return Hop(from: .server, to: .appServer, label: "delivery receipt")
        case .receiptAck: return Hop(from: .appServer, to: .server, label: "receipt acked")
        case .upstreamQueued: return Hop(from: .app, to: .device, label: "queued: no connection")
        case .upstreamForwarded: return Hop(from: .device, to: .server, label: "sent upstream")
        case .upstreamToAppServer: return Hop(from: .server, to: .appServer, label: "to the app server")
        case .upstreamRetry: return Hop(from: .server, to: .appServer, label: "resent (no ack yet)")
        case .appServerAck: return Hop(from: .appServer, to: .server, label: "acked")
        case .onMessageSent, .sendDataMessageSuccess, .didSendDataMessageWithID:
            return Hop(from: .server, to: .app, label: event.name + " (batched)")
        case .onSendError, .sendDataMessageFailure, .willSendDataMessageWithID:
            return Hop(from: .device, to: .app, label: event.name + error)
        // Web Push: app server → push service (FCM) → browser (device) → service worker (app).
        case .webPushAccepted: return Hop(from: .appServer, to: .server, label: "Web Push: 201")
        case .receiverSent: return Hop(from: .server, to: .device, label: "to the real client (MCS)")
        case .webPushHeld: return Hop(from: .server, to: .server, label: "held: " + (event.string("reason") ?? ""))
        case .webPushDropped:
            let reason = event.string("reason") ?? ""
            return reason == "undecryptable"
                ? Hop(from: .server, to: .device, label: "the browser could not decrypt it: dropped")
                : Hop(from: .server, to: .server, label: "dropped: " + reason)
        case .pushEvent:
            return Hop(from: .server, to: .app, label: "decrypted: the worker's push event")
        default:
            let lane: Lane = event.side == .server ? .server : .device
            return Hop(from: lane, to: lane, label: event.name)
        }
    }

    /// The hops of a journey, in order: one an event, and the hand-over to the
    /// built-in app server, which an ack by the echo implies without an event of its
    /// own.
    static func hops(_ events: [Event], id: String) -> [(event: Event, hop: Hop)] {
        var hops: [(event: Event, hop: Hop)] = []
        var handedOver = false
        for event in events {
            if event.kind == .upstreamToAppServer { handedOver = true }
            if event.kind == .appServerAck, !handedOver {
                let by = event.string("by").map { " (\($0))" } ?? ""
                hops.append((event, Hop(from: .server, to: .appServer, label: "to the app server" + by)))
                handedOver = true
            }
            hops.append((event, hop(event, id: id)))
        }
        return hops
    }

    static func drawJourney(_ id: String, _ model: TUIModel, into grid: inout Grid) {
        let events = model.journey(of: id)
        let inner = panel(
            width: min(grid.width - 2, 150), height: grid.height - 2, title: "Journey of \(id)", into: &grid)
        let bottom = inner.y + inner.height - 1
        grid.put("Esc close", x: inner.x + 1, y: bottom, style: .dim)
        guard !events.isEmpty else {
            grid.put(
                "no event of \(id) is in the log (it may be older than the log keeps)", x: inner.x + 1, y: inner.y,
                style: .dim, limit: inner.width - 2)
            return
        }
        let hops = hops(events, id: id)
        // Lanes spread over the left part, as narrow as the labels to their right need.
        let stampWidth = TextWidth.columns(of: stamp(0, paneWidth: inner.width)) + 1
        let longest = hops.map { TextWidth.columns(of: $0.hop.label) }.max() ?? 0
        let laneSpan = max(8, min(15, (inner.width - stampWidth - 3 - longest) / 4))
        let laneX = Lane.allCases.map { inner.x + 1 + stampWidth + $0.rawValue * laneSpan + laneSpan / 2 }
        let labelX = inner.x + 1 + stampWidth + 4 * laneSpan
        for lane in Lane.allCases {
            // A title may reach past its lane's span: its neighbours' are short.
            let title = TextWidth.fit(lane.title, width: laneSpan + 2)
            grid.put(title, x: laneX[lane.rawValue] - TextWidth.columns(of: title) / 2, y: inner.y, style: .bold)
        }
        // Each hop's why, wrapped over as many lines as the box lets every hop have.
        let whyWidth = inner.width - 2 - stampWidth
        let rows = bottom - inner.y - 1
        let whys = hops.map { TextWidth.wrap($0.event.ruleNote.rule, width: whyWidth, maxLines: 8) }
        var perHop = 8
        while perHop > 1, whys.reduce(0, { $0 + 1 + min($1.count, perHop) }) > rows { perHop -= 1 }
        var y = inner.y + 1
        for (index, (event, hop)) in hops.enumerated() {
            let why =
                whys[index].count > perHop
                ? TextWidth.wrap(event.ruleNote.rule, width: whyWidth, maxLines: perHop) : whys[index]
            guard y + why.count < bottom else { break }
            for x in laneX { grid.put("│", x: x, y: y, style: .dim) }
            grid.put(stamp(event.at, paneWidth: inner.width), x: inner.x + 1, y: y, style: .dim)
            drawArrow(hop, laneX: laneX, y: y, into: &grid)
            grid.put(
                TextWidth.fit(hop.label, width: inner.x + inner.width - 1 - labelX), x: labelX, y: y,
                style: event.isError ? .error : .bold)
            for (offset, line) in why.enumerated() {
                grid.put(line, x: inner.x + 1 + stampWidth, y: y + 1 + offset, style: .dim)
            }
            y += 1 + why.count
        }
    }

    static func drawArrow(_ hop: Hop, laneX: [Int], y: Int, into grid: inout Grid) {
        let from = laneX[hop.from.rawValue]
        let to = laneX[hop.to.rawValue]
        if from == to {
            grid.put("●", x: from, y: y, style: .accent)
            return
        }
        let left = min(from, to)
        let right = max(from, to)
        for x in left...right { grid.put("─", x: x, y: y, style: .accent) }
        grid.put(from < to ? "▶" : "◀", x: to, y: y, style: .accent)
        grid.put("┼", x: from, y: y, style: .accent)
    }
}
