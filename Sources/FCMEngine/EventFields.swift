/// The fields each kind of event may carry: what an `expect` may name.
extension EventName {
    /// The fields an event of this kind may carry, besides `device` (which every event
    /// of a fleet's phone carries first).
    public var fields: [String] { EventFields.table[self] ?? [] }

    /// Whether the vocabulary says which fields this kind carries.
    public var declaresFields: Bool { EventFields.table[self] != nil }

    /// Whether an event of this kind may carry a field of this name.
    public func carries(_ name: String) -> Bool { name == "device" || fields.contains(name) }

    /// What to say of a name no event kind has (an `expect`, a `type=` filter), with
    /// the closest kinds: a longer name misspelt twice or more still starts as it should.
    public static func noSuchEvent(_ name: String) -> String {
        let names = allCases.map(\.rawValue)
        var close = CloseNames.among(names, to: name)
        if close.isEmpty { close = names.filter { $0.lowercased().hasPrefix(String(name.lowercased().prefix(4))) } }
        return "no event is called \"\(name)\"" + CloseNames.suggestion(of: close) + " (docs/events.md)"
    }

    /// What to say of an expectation that names a field this kind never carries.
    public func noSuchField(_ name: String) -> String {
        return "\(rawValue) has no field \(name)" + CloseNames.suggestion(among: fields, to: name)
            + "; it has " + (fields.isEmpty ? "none but device" : fields.joined(separator: ", "))
    }
}

enum EventFields {
    /// What a delivery event says of the message besides its payload (`detailFields(of:)`).
    static let detailFields = ["analytics_label", "direct_boot_ok", "live_activity_token", "ignored"]

    /// What each kind carries, read off the places that make it (the engine's `emit`
    /// calls, and the shells' `requestRejected`, `credentialsUnverified` and checks);
    /// a test replays every shipped profile and finds no event carrying another.
    static let table: [EventName: [String]] = [
        .onNewToken: ["sender", "token"],
        .didReceiveRegistrationToken: ["sender", "token"],
        .tokenResumed: ["sender", "token"],
        .onMessageSent: ["ids", "count"],
        .sendDataMessageSuccess: ["ids", "count"],
        .didSendDataMessageWithID: ["ids", "count"],
        .onSendError: ["id", "error", "detail"],
        .sendDataMessageFailure: ["id", "error", "detail"],
        .willSendDataMessageWithID: ["id", "error", "detail"],
        .onMessageReceived: ["id", "from", "data", "notification", "collapse_key", "priority", "background"]
            + detailFields,
        .didReceiveRemoteNotification: [
            "id", "from", "data", "notification", "collapse_key", "priority", "background",
        ] + detailFields,
        .getToken: ["sender", "token", "error", "detail", "cached"],
        .deleteToken: ["sender", "token", "had_token", "vapid_key"],
        .permissionChanged: ["permission"],
        .onMessage: ["id", "from", "data", "notification", "collapse_key", "priority", "background", "link"]
            + detailFields,
        .onBackgroundMessage: [
            "id", "from", "data", "notification", "collapse_key", "priority", "background", "link",
        ] + detailFields,
        .onDeletedMessages: ["total_deleted"],
        .messagesDeleted: ["total_deleted"],
        .notificationPosted: ["id", "from", "title", "body"] + NotificationDisplay.shownFields + detailFields
            + ["replaced", "channel", "channel_note", "delivery"],
        .notificationBlocked: ["id", "from", "title", "reason", "detail"],
        .tokenExpired: ["sender", "token", "detail"],
        .notificationTapped: ["id", "from", "data", "click_action", "sticky", "link", "window", "detail"],
        .upstreamQueued: ["id", "sender", "pending"],
        .warning: ["id", "sender", "key", "detail", "connection", "pending"],
        .networkChanged: ["network"],
        .appStateChanged: ["state"],
        .dozeChanged: ["doze"],
        .uninstalled: [],
        .installed: ["platform", "sdk"],
        .deviceAdded: ["platform", "sdk"],
        .senderRemoved: ["sender"],
        .commandRefused: ["command", "detail"],
        .upstreamForwarded: ["id", "sender", "from", "data", "category", "ttl"],
        .upstreamToAppServer: ["id", "sender", "connection"],
        .receiptToAppServer: ["id", "sender", "connection"],
        .appServerAck: ["id", "sender", "by"],
        .upstreamRetry: ["id", "sender", "attempt"],
        .ackIgnored: ["id", "sender", "by", "detail"],
        .downstreamAccepted: [
            "id", "sender", "token", "topic", "condition", "subscribers", "other_package", "priority", "ttl",
            "collapse_key", "dry_run", "api", "request", "connection", "platform", "group",
        ],
        .downstreamRejected: [
            "id", "sender", "topic", "condition", "subscribers", "error", "ccs", "detail", "token", "api", "request",
            "connection", "retry_after", "handling", "group",
        ],
        .stored: ["id", "reason", "stored"],
        .collapsed: ["id", "collapse_key", "by"],
        .expired: ["id", "sender", "detail"],
        .discarded: ["id", "ids", "count", "reason", "collapse_key", "detail"],
        .receipt: ["id", "original_id", "sender", "token", "status", "category"],
        .receiptAck: ["id", "sender"],
        .topicSubscribed: ["topic", "sender", "token", "by"],
        .topicUnsubscribed: ["topic", "sender", "token", "by"],
        .topicQueued: ["topic", "sender", "change"],
        .topicRefused: ["topic", "sender", "token", "by", "error", "detail", "change"],
        .groupChanged: ["sender", "operation", "name", "notification_key", "members"],
        .groupRefused: ["sender", "operation", "name", "notification_key", "error"],
        .faultAdded: ["fault", "does", "path", "token", "sender", "topic", "count", "until"],
        .faultInjected: ["fault", "does", "path", "left", "delay"],
        .faultsCleared: ["count"],
        .deviceReset: ["connections_ended"],
        .appServerConnected: ["sender", "connection"],
        .appServerDisconnected: ["sender", "connection"],
        .connectionRefused: ["sender", "connection", "detail"],
        .connectionDraining: ["connection"],
        .drainRequested: [],
        .nack: ["id", "sender", "connection", "error"],
        .stanzaError: ["id", "sender", "connection", "detail"],
        .serviceChanged: ["service"],
        .stateResumed: ["state", "clock", "pending", "awaitingAck", "stored", "devices"],
        .requestRejected: ["method", "path", "status", "reason", "api", "request", "bearer", "retry_after", "fault"],
        .credentialsUnverified: ["account", "key", "project"],
        .expectationHeld: ["expect", "detail", "step_at"],
        .expectationFailed: ["expect", "detail", "step_at"],
    ]
}
