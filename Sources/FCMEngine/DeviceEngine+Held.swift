/// A message the connection server holds for the device, as a person would want to
/// see it: why it waits and until when.
public struct HeldMessage: Sendable, Equatable {
    public var id: String
    public var sender: String
    /// Why the device cannot take it now (`offline`, `doze`, …), or nil when it goes
    /// out at the next chance.
    public var reason: String?
    /// The key it collapses under, when it is collapsible.
    public var collapseKey: String?
    /// The key is not the app server's: a notification without a `collapse_key`
    /// collapses under the app's package name.
    public var collapseKeyIsDefault = false
    public var priority: Priority
    public var expiresAt: Millis
}

/// How full the connection server's store for the device is.
public struct StoreUsage: Sendable, Equatable {
    public var nonCollapsible: Int
    public var nonCollapsibleLimit: Int
    public var collapseKeys: Int
    public var collapseKeyLimit: Int

    public init(nonCollapsible: Int, nonCollapsibleLimit: Int, collapseKeys: Int, collapseKeyLimit: Int) {
        self.nonCollapsible = nonCollapsible
        self.nonCollapsibleLimit = nonCollapsibleLimit
        self.collapseKeys = collapseKeys
        self.collapseKeyLimit = collapseKeyLimit
    }
}

extension DeviceEngine {
    /// What the connection server holds for the phone at `p` now, oldest first.
    func heldMessages(on p: Int) -> [HeldMessage] {
        // A copy of the phone to ask (a view, not a rule on every message).
        var phone = self[p]
        let stored = phone.stored
        return stored.map { message in
            HeldMessage(
                id: message.id, sender: message.request.sender,
                reason: phone.holdReason(
                    message.request, serviceUp: server.serviceUp, limitsOn: deviceLimitsOn, at: now),
                collapseKey: Phone.collapseSlot(message.request, app: phone.settings.app),
                collapseKeyIsDefault: message.request.collapseKey == nil && message.request.isNotification,
                priority: message.request.effectivePriority,
                expiresAt: message.expiresAt)
        } + heldWebPush(on: p)
    }

    /// The Web Push the push service holds for the browser of phone `p`: its Topic
    /// stands where a collapse key would, `high` urgency for high priority.
    func heldWebPush(on p: Int) -> [HeldMessage] {
        guard !server.webPush.held.isEmpty, let subscription = server.webPush.subscription(ofPhone: p) else {
            return []
        }
        let reason = "Web Push: " + holdReason(ofBrowser: p)
        return server.webPush.held.filter { $0.subscription == subscription.id }.map { message in
            HeldMessage(
                id: message.id, sender: "webpush", reason: reason, collapseKey: message.request.topic,
                priority: message.request.urgency?.lowercased() == "high" ? .high : .normal,
                expiresAt: message.expiresAt)
        }
    }

    /// The store of the phone at `p` counted against its limits.
    func storeUsage(on p: Int) -> StoreUsage {
        var phone = self[p]
        let stored = phone.stored
        return StoreUsage(
            nonCollapsible: stored.count { Phone.collapseSlot($0.request, app: phone.settings.app) == nil },
            nonCollapsibleLimit: configuration.store.nonCollapsibleLimit, collapseKeys: phone.storedCollapseSlots(),
            collapseKeyLimit: configuration.store.collapseKeyLimit)
    }
}
