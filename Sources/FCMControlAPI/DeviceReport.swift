import FCMEngine

/// A device as `GET devices` shows it: its conditions, tokens, topics, queues, what
/// the server holds for it, the tray and the newest delivered messages.
enum DeviceReport {
    /// The delivered messages shown, newest last.
    static let inboxShown = 100

    static func json(_ engine: DeviceEngine) -> JSONValue {
        let device = engine.device
        let tokens = JSONObject(
            engine.senders.map { (key: $0.id, value: engine.tokens[$0.id].map(JSONValue.string) ?? .null) })
        let topics = JSONObject(engine.senders.map { (key: $0.id, value: .strings(engine.topics(of: $0.id))) })
        let held = engine.heldMessages.map { message -> JSONValue in
            .members([
                "id": .string(message.id), "sender": .string(message.sender),
                "reason": message.reason.map(JSONValue.string) ?? .null,
            ])
        }
        let tray = engine.tray.map { note -> JSONValue in
            .members([
                "id": .string(note.id), "from": .string(note.sender), "title": .string(note.title),
                "body": .string(note.body), "data": .strings(note.data),
            ])
        }
        let inbox = engine.inbox.suffix(inboxShown).map { message -> JSONValue in
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
        let groups = engine.groups.map { group -> JSONValue in
            .members([
                "name": .string(group.name), "notification_key": .string(group.key),
                "members": .strings(group.members),
            ])
        }
        return .members([
            "name": .string(device.name), "platform": .string(device.platform.rawValue),
            "sdk": .string(device.sdk.rawValue), "app": .string(device.app), "clock": .int(engine.now),
            "installed": .bool(engine.installed), "appState": .string(engine.appState.rawValue),
            "network": .string(engine.network.rawValue), "doze": .bool(engine.doze),
            "service": .string(engine.serviceUp ? "up" : "down"), "tokens": .object(tokens),
            "topics": .object(topics), "pending": .strings(engine.pending.map(\.id)), "held": .array(held),
            "tray": .array(tray), "inbox": .array(inbox), "groups": .array(groups),
        ])
    }
}
