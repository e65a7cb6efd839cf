/// Handing downstream messages to the app: by platform and app state, to the
/// app's callback or to the tray; deleted-message notices; receipts; taps.
extension DeviceEngine {
    /// Delivers whatever the device can take now, oldest first.
    mutating func deliverWaiting(into out: inout [Event]) {
        // A swiped-away iPhone app still gets its alerts (`holdReason`).
        guard connected, appState != .stopped || platform == .ios else { return }
        deliverDeletedNotice(into: &out)
        var kept: [StoredMessage] = []
        let waiting = stored
        stored.removeAll()
        for message in waiting {
            if holdReason(message.request) == nil {
                deliver(message, into: &out)
            } else {
                kept.append(message)
            }
        }
        stored = kept + stored
    }

    /// The app hears once that the server discarded messages for it, when it runs
    /// (a swiped-away iPhone app hears it when it is opened).
    mutating func deliverDeletedNotice(into out: inout [Event]) {
        guard appState != .stopped else { return }
        let recentInactiveDrop = lastInactiveDropAt.map { now - $0 <= ServiceLimits.maxTimeToLive * Span.second }
        // The web SDK has no callback for messages the server discarded.
        if deletedCount > 0, recentInactiveDrop ?? true, platform != .web {
            emit(.device, names.deletedMessages, [.number("total_deleted", deletedCount)], into: &out)
        }
        deletedCount = 0
        lastInactiveDropAt = nil
    }

    /// Android shows one notification per tag: a notification whose `tag` is that of one
    /// in the tray (of the same app server's) takes its place. The id of the one it
    /// replaced, if any. (Without a tag, the SDK gives each notification its own.)
    mutating func replaceTagged(_ pairs: [KeyValue], of sender: String) -> String? {
        // A browser's notifications replace by tag too (the Notifications API's rule).
        guard platform != .ios, let tag = pairs.first(where: { $0.key == "tag" })?.value, !tag.isEmpty,
            let index = tray.firstIndex(where: { entry in
                entry.sender == sender && entry.notification.contains { $0.key == "tag" && $0.value == tag }
            })
        else { return nil }
        return tray.remove(at: index).id
    }

    mutating func deliver(_ message: StoredMessage, into out: inout [Event]) {
        let request = message.request
        let from = message.from ?? request.sender
        // iOS shows the alerts of an app the user swiped away; its silent pushes are dropped.
        let forceQuit = platform == .ios && appState == .stopped
        if forceQuit && !request.isNotification {
            return emit(
                .server, .discarded,
                [
                    .text("id", message.id), .text("reason", "force-quit"),
                    .text(
                        "detail", "iOS does not wake an app the user swiped away for a background push; it is dropped"),
                ], into: &out)
        }
        spendCollapsibleBudget(request)
        let toTray = (appState == .background || forceQuit) && request.isNotification
        // An iPhone without permission shows no alert, but a content-available push
        // still wakes the app (silent pushes need no permission).
        let shown = toTray ? postToTray(message, from: from, into: &out) : false
        let wakes = toTray && !shown && platform == .ios && request.contentAvailable && !forceQuit
        // A web app's service worker hears every message in the background, after the
        // SDK showed its notification; the other platforms' apps hear only what is not
        // in the tray.
        if !toTray || platform == .web || wakes {
            let name =
                appState == .background ? names.backgroundMessage ?? names.messageReceived : names.messageReceived
            var fields: [Field] = []
            fields.reserveCapacity(7)
            fields.append(.text("id", message.id))
            fields.append(.text("from", from))
            if !request.data.isEmpty || request.notification == nil { fields.append(Field("data", .map(request.data))) }
            if let notification = request.notification { fields.append(Field("notification", .map(notification))) }
            if let key = request.collapseKey { fields.append(.text("collapse_key", key)) }
            fields.append(.text("priority", request.effectivePriority.rawValue))
            if appState == .background { fields.append(.flag("background", true)) }
            // The web SDK hands the app the link (`fcmOptions.link`) a click would open.
            if platform == .web, let link = request.notification?.first(where: { $0.key == "click_action" })?.value {
                fields.append(.text("link", link))
            }
            fields += detailFields(of: request)
            emit(.device, name, fields, into: &out)
            remember(
                DeliveredMessage(
                    id: message.id, sender: request.sender, data: request.data, notification: request.notification,
                    collapseKey: request.collapseKey, priority: request.effectivePriority, at: now,
                    via: name.rawValue, from: message.from))
        }
        if request.deliveryReceiptRequested {
            let receipt = OwedReceipt(
                sender: request.sender, originalID: message.id, token: request.to ?? "", sentAt: now,
                category: device.app)
            owedReceipts.append(receipt)
            if owedReceipts.count > Self.owedReceiptLimit {
                let dropped = owedReceipts.removeFirst()
                for link in links.bySender[dropped.sender] ?? [] { links.byID[link]?.receiptsSent.remove(dropped.id) }
            }
            emit(
                .server, .receipt,
                [
                    .text("id", OwedReceipt.idPrefix + message.id), .text("original_id", message.id),
                    .text("sender", request.sender), .text("token", request.to ?? ""),
                    .text("category", device.app), .text("status", "MESSAGE_SENT_TO_DEVICE"),
                ], into: &out)
            offerReceipt(receipt, into: &out)
        }
    }

    /// The SDK (or APNs) hands a notification to the system: the tray shows it, on its
    /// channel or quietly, or the system drops it for want of permission.
    @discardableResult
    mutating func postToTray(_ message: StoredMessage, from: String, into out: inout [Event]) -> Bool {
        let request = message.request
        let pairs = request.notification ?? []
        let title = pairs.first { $0.key == "title" }?.value ?? ""
        let body = pairs.first { $0.key == "body" }?.value ?? ""
        let shown: [Field]
        switch notificationOutcome(pairs) {
        case .blocked(let why):
            emit(
                .device, .notificationBlocked,
                [
                    .text("id", message.id), .text("from", from), .text("title", title), .text("reason", "permission"),
                    .text("detail", why),
                ], into: &out)
            return false
        case .shown(let fields): shown = fields
        }
        var fields: [Field] = [
            .text("id", message.id), .text("from", from), .text("title", title), .text("body", body),
        ]
        for (key, names) in NotificationDisplay.shown(on: platform) {
            if let value = pairs.first(where: { names.contains($0.key) })?.value {
                fields.append(.text(key, value))
            }
        }
        fields += detailFields(of: request)
        fields += shown
        if let replaced = replaceTagged(pairs, of: request.sender) { fields.append(.text("replaced", replaced)) }
        tray.append(
            TrayNotification(
                id: message.id, sender: request.sender, title: title, body: body, notification: pairs,
                data: request.data, postedAt: now))
        emit(.device, .notificationPosted, fields, into: &out)
        return true
    }

    mutating func remember(_ message: DeliveredMessage) {
        inbox.append(message)
        // Trimmed in chunks, so a long session does not shift the array on every message.
        if inbox.count >= 2 * Self.inboxLimit { inbox.removeFirst(inbox.count - Self.inboxLimit) }
    }

    mutating func tap(_ target: TapTarget, into out: inout [Event]) {
        let index: Int?
        switch target {
        case .last: index = tray.indices.last
        case .index(let n): index = tray.indices.contains(n - 1) ? n - 1 : nil
        case .id(let id): index = tray.firstIndex { $0.id == id }
        }
        guard let index else {
            return refuse("tap", tray.isEmpty ? "the tray is empty" : "no such notification in the tray", into: &out)
        }
        if platform == .web { return webTap(at: index, into: &out) }
        // Android leaves a `sticky` notification in the tray when it is tapped.
        let sticky =
            platform == .android && tray[index].notification.contains { $0.key == "sticky" && $0.value == "true" }
        let note = sticky ? tray[index] : tray.remove(at: index)
        var fields: [Field] = [.text("id", note.id), .text("from", note.sender), Field("data", .map(note.data))]
        // The activity (Android) or category (iOS) the tap opens; without one, the app's launcher.
        if let action = note.notification.first(where: { $0.key == "click_action" })?.value {
            fields.append(.text("click_action", action))
        }
        if sticky { fields.append(.flag("sticky", true)) }
        emit(.device, .notificationTapped, fields, into: &out)
        remember(
            DeliveredMessage(
                id: note.id, sender: note.sender, data: note.data, notification: note.notification, collapseKey: nil,
                priority: .high, at: now, via: "notificationTapped"))
        setAppState(.foreground, into: &out)
    }
}

extension DeviceEngine {
    /// The app server took a receipt: it is no longer owed.
    mutating func ackReceipt(sender: String, id: String, into out: inout [Event]) {
        guard let index = owedReceipts.firstIndex(where: { $0.sender == sender && $0.id == id }) else { return }
        owedReceipts.remove(at: index)
        for link in links.bySender[sender] ?? [] { links.byID[link]?.receiptsSent.remove(id) }
        emit(.server, .receiptAck, [.text("sender", sender), .text("id", id)], into: &out)
    }
}
