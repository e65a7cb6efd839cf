/// Handing downstream messages to the app: by platform and app state, to the
/// app's callback or to the tray; deleted-message notices; receipts; taps.
extension DeviceEngine {
    /// Delivers whatever the device can take now, oldest first.
    mutating func deliverWaiting(on p: Int, into out: inout [Event]) {
        if !server.webPush.held.isEmpty { deliverHeldWebPush(on: p, into: &out) }
        // A swiped-away iPhone app still gets its alerts (`holdReason`).
        guard connected(p), self[p].appState != .stopped || self[p].platform == .ios else { return }
        deliverDeletedNotice(on: p, into: &out)
        // Nothing stored, nothing changed: the phone is not written (nor noted for the store).
        guard !phone(p, { $0.stored.isEmpty }) else { return }
        var kept: [StoredMessage] = []
        // Taken out of the store, not copied: each message is handed on or kept as it is.
        var waiting: [StoredMessage] = []
        swap(&waiting, &self[p].stored)
        for index in waiting.indices {
            if holdReason(waiting[index].request, on: p) == nil {
                deliver(waiting[index], on: p, into: &out)
            } else {
                kept.append(waiting[index])
            }
        }
        self[p].stored = kept + self[p].stored
    }

    /// The app hears once that the server discarded messages for it, when it runs
    /// (a swiped-away iPhone app hears it when it is opened).
    mutating func deliverDeletedNotice(on p: Int, into out: inout [Event]) {
        guard self[p].appState != .stopped, self[p].deletedCount > 0 || self[p].lastInactiveDropAt != nil else {
            return
        }
        let recentInactiveDrop = self[p].lastInactiveDropAt.map {
            now - $0 <= ServiceLimits.maxTimeToLive * Span.second
        }
        if self[p].deletedCount > 0, recentInactiveDrop ?? true {
            if server.hasReceivers, server.isReceiver(p) {
                // A real client is told on its connection (what it does is its own); a
                // notice not written is kept for its next login.
                guard writeDeletedNotice(self[p].deletedCount, to: p, into: &out) else { return }
            } else if self[p].platform != .web {
                // The web SDK has no callback for messages the server discarded.
                emit(
                    .device, self[p].names.deletedMessages, [.number("total_deleted", self[p].deletedCount)], on: p,
                    into: &out)
            }
        }
        self[p].deletedCount = 0
        self[p].lastInactiveDropAt = nil
    }

    mutating func deliver(_ message: StoredMessage, on p: Int, into out: inout [Event]) {
        if !server.faults.isEmpty,
            server.useErrorFault(
                Fault.neverDelivered, token: message.request.to, sender: message.request.sender,
                naming: eventName(ofPhone: p), stamp, into: &out)
        {
            return emit(
                .server, .discarded,
                [
                    .text("id", message.id), .text("reason", "fault"),
                    .text("detail", "accepted, and never delivered (a NEVER_DELIVERED fault)"),
                ], on: p, into: &out)
        }
        // A real client gets it on its MCS connection and does what it does itself.
        if server.hasReceivers, server.isReceiver(p) {
            return writeToReceiver(message, on: p, into: &out)
        }
        let request = message.request
        let from = message.from ?? request.sender
        // iOS shows the alerts of an app the user swiped away; its silent pushes are dropped.
        let forceQuit = self[p].platform == .ios && self[p].appState == .stopped
        if forceQuit && !request.isNotification {
            return emit(
                .server, .discarded,
                [
                    .text("id", message.id), .text("reason", "force-quit"),
                    .text(
                        "detail", "iOS does not wake an app the user swiped away for a background push; it is dropped"),
                ], on: p, into: &out)
        }
        spendCollapsibleBudget(request, on: p)
        let toTray = (self[p].appState == .background || forceQuit) && request.isNotification
        // An iPhone without permission shows no alert, but a content-available push
        // still wakes the app (silent pushes need no permission).
        let shown = toTray ? postToTray(message, from: from, on: p, into: &out) : false
        let wakes = toTray && !shown && self[p].platform == .ios && request.contentAvailable && !forceQuit
        // A web app's service worker hears every message in the background, after the
        // SDK showed its notification; the other platforms' apps hear only what is not
        // in the self[p].tray.
        if !toTray || self[p].platform == .web || wakes {
            let name =
                self[p].appState == .background
                ? self[p].names.backgroundMessage ?? self[p].names.messageReceived : self[p].names.messageReceived
            var fields: [Field] = []
            fields.reserveCapacity(7)
            fields.append(.text("id", message.id))
            fields.append(.text("from", from))
            if !request.data.isEmpty || request.notification == nil { fields.append(Field("data", .map(request.data))) }
            if let notification = request.notification { fields.append(Field("notification", .map(notification))) }
            if let key = request.collapseKey { fields.append(.text("collapse_key", key)) }
            fields.append(.text("priority", request.effectivePriority.rawValue))
            if self[p].appState == .background { fields.append(.flag("background", true)) }
            // The web SDK hands the app the link (`fcmOptions.link`) a click would open.
            if self[p].platform == .web,
                let link = request.notification?.first(where: { $0.key == "click_action" })?.value
            {
                fields.append(.text("link", link))
            }
            fields += self[p].detailFields(of: request)
            emit(.device, name, fields, on: p, into: &out)
            self[p].remember(
                DeliveredMessage(
                    id: message.id, sender: request.sender, data: request.data, notification: request.notification,
                    collapseKey: request.collapseKey, priority: request.effectivePriority, at: now,
                    via: name.rawValue, from: message.from))
        }
        noteReceipt(of: message, on: p, into: &out)
    }

    /// The app server asked for a delivery receipt: the server owes it one now.
    mutating func noteReceipt(of message: StoredMessage, on p: Int, into out: inout [Event]) {
        let request = message.request
        guard request.deliveryReceiptRequested else { return }
        let receipt = OwedReceipt(
            sender: request.sender, originalID: message.id, token: request.to ?? "", sentAt: now,
            category: self[p].settings.app)
        server.owedReceipts.append(receipt)
        if server.owedReceipts.count > Self.owedReceiptLimit {
            let dropped = server.owedReceipts.removeFirst()
            for link in server.links.bySender[dropped.sender] ?? [] {
                server.links.byID[link]?.receiptsSent.remove(dropped.id)
            }
        }
        emit(
            .server, .receipt,
            [
                .text("id", OwedReceipt.idPrefix + message.id), .text("original_id", message.id),
                .text("sender", request.sender), .text("token", request.to ?? ""),
                .text("category", self[p].settings.app), .text("status", "MESSAGE_SENT_TO_DEVICE"),
            ], on: p, into: &out)
        offerReceipt(receipt, about: p, into: &out)
    }

    /// The SDK (or APNs) hands a notification to the system: the tray shows it, on its
    /// channel or quietly, or the system drops it for want of permission.
    @discardableResult
    mutating func postToTray(_ message: StoredMessage, from: String, on p: Int, into out: inout [Event]) -> Bool {
        let request = message.request
        let pairs = request.notification ?? []
        let title = pairs.first { $0.key == "title" }?.value ?? ""
        let body = pairs.first { $0.key == "body" }?.value ?? ""
        let shown: [Field]
        switch self[p].notificationOutcome(pairs) {
        case .blocked(let why):
            emit(
                .device, .notificationBlocked,
                [
                    .text("id", message.id), .text("from", from), .text("title", title), .text("reason", "permission"),
                    .text("detail", why),
                ], on: p, into: &out)
            return false
        case .shown(let fields): shown = fields
        }
        var fields: [Field] = [
            .text("id", message.id), .text("from", from), .text("title", title), .text("body", body),
        ]
        for (key, names) in NotificationDisplay.shown(on: self[p].platform) {
            if let value = pairs.first(where: { names.contains($0.key) })?.value {
                fields.append(.text(key, value))
            }
        }
        fields += self[p].detailFields(of: request)
        fields += shown
        if let replaced = self[p].replaceTagged(pairs, of: request.sender) {
            fields.append(.text("replaced", replaced))
        }
        self[p].tray.append(
            TrayNotification(
                id: message.id, sender: request.sender, title: title, body: body, notification: pairs,
                data: request.data, postedAt: now))
        emit(.device, .notificationPosted, fields, on: p, into: &out)
        return true
    }

    mutating func tap(_ target: TapTarget, on p: Int, into out: inout [Event]) {
        let index: Int?
        switch target {
        case .last: index = self[p].tray.indices.last
        case .index(let n): index = self[p].tray.indices.contains(n - 1) ? n - 1 : nil
        case .id(let id): index = self[p].tray.firstIndex { $0.id == id }
        }
        guard let index else {
            return refuse(
                "tap", self[p].tray.isEmpty ? "the tray is empty" : "no such notification in the tray", on: p,
                into: &out)
        }
        if self[p].platform == .web { return webTap(at: index, on: p, into: &out) }
        // Android leaves a `sticky` notification in the self[p].tray when it is tapped.
        let sticky =
            self[p].platform == .android
            && self[p].tray[index].notification.contains { $0.key == "sticky" && $0.value == "true" }
        let note = sticky ? self[p].tray[index] : self[p].tray.remove(at: index)
        var fields: [Field] = [.text("id", note.id), .text("from", note.sender), Field("data", .map(note.data))]
        // The activity (Android) or category (iOS) the tap opens; without one, the app's launcher.
        if let action = note.notification.first(where: { $0.key == "click_action" })?.value {
            fields.append(.text("click_action", action))
        }
        if sticky { fields.append(.flag("sticky", true)) }
        emit(.device, .notificationTapped, fields, on: p, into: &out)
        self[p].remember(
            DeliveredMessage(
                id: note.id, sender: note.sender, data: note.data, notification: note.notification, collapseKey: nil,
                priority: .high, at: now, via: "notificationTapped"))
        setAppState(.foreground, on: p, into: &out)
    }
}
