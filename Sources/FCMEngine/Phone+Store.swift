/// The phone's own rules about what the server holds for it: whether a message can be
/// handed over now, and how its store collapses. What they need beyond the phone (the
/// service, production's limits, the time) is handed in. Those that only read are
/// `mutating` all the same: the engine calls them on the phone where it lies
/// (`self[p]`), and a non-mutating call there copies the whole phone first.
extension Phone {
    /// Why a message cannot be handed to the app now, or nil when it can.
    mutating func holdReason(_ request: DownstreamRequest, serviceUp: Bool, limitsOn: Bool, at now: Millis) -> String? {
        if !installed { return "not installed" }
        if network == .offline { return "offline" }
        if !serviceUp { return "service down" }
        // A swiped-away iPhone app: the system shows alerts at once and drops silent
        // pushes (`deliver`); the rest waits for the app.
        if appState == .stopped,
            platform != .ios || !(request.isNotification || request.contentAvailable)
        {
            return "app stopped"
        }
        // An iPhone has no Doze: asleep, APNs holds its normal-priority (5) pushes.
        if doze && request.effectivePriority == .normal { return platform.idleNames?.reason ?? "doze" }
        if platform == .ios && !request.isNotification && !request.contentAvailable
            && appState != .foreground
        {
            return "ios data waits for foreground"
        }
        if isThrottled(request, limitsOn: limitsOn, at: now) { return "throttled" }
        return nil
    }

    /// Whether collapsible throttling holds this message on the phone now: a
    /// message with a `collapse_key` to an Android phone whose burst of 20 is spent.
    mutating func isThrottled(_ request: DownstreamRequest, limitsOn: Bool, at now: Millis) -> Bool {
        guard limitsOn, platform == .android, request.collapseKey != nil else { return false }
        var budget = policy
        budget.refill(at: now)
        return budget.budget == 0
    }

    /// The key a stored message collapses under: its `collapse_key`, or for a
    /// notification message without one the app's package name (notification
    /// messages are always collapsible; chosen), or nil when it is not collapsible.
    static func collapseSlot(_ request: DownstreamRequest, app: String) -> String? {
        request.collapseKey ?? (request.isNotification ? app : nil)
    }

    /// Whether two stored messages collapse into one: the same collapse key sent to
    /// the same registration token.
    static func collapses(_ stored: StoredMessage, with message: StoredMessage, key: String, app: String) -> Bool {
        collapseSlot(stored.request, app: app) == key && stored.request.to == message.request.to
    }

    /// Distinct collapse keys stored now, each counted once per registration token.
    /// The store holds few messages, so the slots are compared in a list (no hashing).
    mutating func storedCollapseSlots() -> Int {
        var slots: [(token: String, key: String)] = []
        for message in stored {
            guard let key = Self.collapseSlot(message.request, app: settings.app) else { continue }
            let token = message.request.to ?? ""
            if !slots.contains(where: { $0.key == key && $0.token == token }) { slots.append((token, key)) }
        }
        return slots.count
    }
}
