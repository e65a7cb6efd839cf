import FCMJSON

/// The one view of a phone as JSON: what `state --json` lists under `devices`, what
/// the control API's `GET devices` and `GET devices/NAME` answer, and what `state`'s
/// text is made from. One writer, so the two never describe a phone differently.
extension DeviceEngine {
    /// The phone at `index` as it stands: conditions, tokens, topics, its upstream
    /// queue, what the connection server holds for it, the tray, the delivered
    /// messages kept (the inbox is trimmed to the newest `inboxLimit` each time it
    /// reaches twice that) and the device groups it is in.
    public func snapshot(ofPhoneAt index: Int) -> JSONValue {
        let phone = devices[index]
        let settings = phone.settings
        let tokens = JSONObject(
            phone.senders.map { (key: $0.id, value: phone.tokens[$0.id].map(JSONValue.string) ?? .null) })
        let topics = JSONObject(phone.senders.map { (key: $0.id, value: .strings(phone.topics(of: $0.id))) })
        let held = heldMessages(ofPhoneAt: index).map { message -> JSONValue in
            var members: [(key: String, value: JSONValue)] = [
                (key: "id", value: .string(message.id)), (key: "sender", value: .string(message.sender)),
                (key: "reason", value: message.reason.map(JSONValue.string) ?? .null),
                (key: "priority", value: .string(message.priority.rawValue)),
                (key: "expiresAt", value: .int(message.expiresAt)),
            ]
            if let key = message.collapseKey { members.append((key: "collapseKey", value: .string(key))) }
            return .object(JSONObject(members))
        }
        let tray = phone.tray.map { note -> JSONValue in
            .members([
                "id": .string(note.id), "from": .string(note.sender), "title": .string(note.title),
                "body": .string(note.body), "data": .strings(note.data),
            ])
        }
        let inbox = phone.inbox.map { message -> JSONValue in
            var members: [(key: String, value: JSONValue)] = [
                (key: "id", value: .string(message.id)), (key: "from", value: .string(message.from ?? message.sender)),
                (key: "at", value: .int(message.at)), (key: "via", value: .string(message.via)),
                (key: "data", value: .strings(message.data)),
            ]
            if let notification = message.notification {
                members.append((key: "notification", value: .strings(notification)))
            }
            return .object(JSONObject(members))
        }
        var own = Set<String>()
        phone.forEachToken { own.insert($0) }
        let groups = server.groups.filter { group in group.members.contains(where: own.contains) }.map {
            group -> JSONValue in
            .members([
                "name": .string(group.name), "sender": .string(group.sender), "notification_key": .string(group.key),
                "members": .strings(group.members),
            ])
        }
        var production: [(key: String, value: JSONValue)] = [
            (key: "permission", value: .string(settings.notificationPermission.rawValue))
        ]
        if let level = settings.androidAPILevel { production.append((key: "apiLevel", value: .int(Int64(level)))) }
        if let channels = settings.channels { production.append((key: "channels", value: .strings(channels))) }
        if let expiry = tokenExpiry(ofPhoneAt: index) {
            production.append(
                expiry.expired
                    ? (key: "tokensExpired", value: .bool(true)) : (key: "tokensExpireAt", value: .int(expiry.at)))
        }
        let base = JSONValue.members([
            "name": .string(settings.name), "platform": .string(settings.platform.rawValue),
            "sdk": .string(settings.sdk.rawValue), "app": .string(settings.app),
            "installed": .bool(phone.installed), "appState": .string(phone.appState.rawValue),
            "network": .string(phone.network.rawValue), "doze": .bool(phone.doze),
            "service": .string(server.serviceUp ? "up" : "down"), "connected": .bool(isConnected(phoneAt: index)),
            "tokens": .object(tokens), "topics": .object(topics), "pending": .strings(phone.pending.map(\.id)),
            "held": .array(held), "deleted": .int(phone.deletedCount), "tray": .array(tray),
            "inbox": .array(inbox), "groups": .array(groups),
        ])
        guard case .object(var object) = base else { return base }
        object.members += production
        if let subscription = server.webPush.subscription(ofPhone: index) {
            object.members.append((key: "pushSubscription", value: subscription.json()))
        }
        if let receiver = server.receivers.receiver(ofPhone: index) {
            object.members.append(
                (
                    key: "realClient",
                    value: .members([
                        "androidId": .string(String(receiver.androidID)), "gcmToken": .string(receiver.gcmToken),
                        "mcsConnected": .bool(server.receivers.connection(ofPhone: index) != nil),
                        "unacked": .int(receiver.unacked.count),
                    ])
                ))
        }
        return .object(object)
    }

    /// When the tokens of the phone at `index` expire if it stays away (an Android
    /// phone not connected), or that they have; nil while it is connected, and on
    /// other platforms.
    public func tokenExpiry(ofPhoneAt index: Int) -> (at: Millis, expired: Bool)? {
        let phone = devices[index]
        if phone.tokens.values.contains(where: { tokenExpired($0, phoneAt: index) }) {
            return (
                DeviceLimits.tokensExpireAt(unreachableSince: phone.unreachableSince, platform: phone.platform) ?? now,
                true
            )
        }
        return DeviceLimits.tokensExpireAt(unreachableSince: phone.unreachableSince, platform: phone.platform).map {
            ($0, false)
        }
    }

    /// The named phone's snapshot; nil when no phone has the name.
    public func snapshot(named name: String) -> JSONValue? {
        deviceIndex[name].map { snapshot(ofPhoneAt: $0) }
    }
}
