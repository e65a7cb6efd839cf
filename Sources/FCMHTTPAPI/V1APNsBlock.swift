import FCMEngine
import FCMHTTPPort
import FCMJSON
import FCMLegacyFields

/// The `apns` and `webpush` blocks of a v1 message, already checked against
/// `ApnsConfig` and `WebpushConfig`.
extension V1MessageReader {
    /// APNs headers the iOS rules read (priority, collapse id, expiration), the `aps`
    /// dictionary as the notification an iPhone shows (alert, badge, sound, category,
    /// thread), the Live Activity token and the analytics label.
    static func readAPNs(_ apns: JSONObject) throws -> MessageOverride {
        var block = MessageOverride()
        for header in stringMap(apns["headers"]) ?? [] {
            switch header.key.lowercased() {
            case "apns-priority":
                guard header.value == "10" || header.value == "5" else {
                    throw V1Error.invalidArgument(
                        "apns-priority must be \"10\" or \"5\", not \"\(header.value)\"", field: "message.apns.headers")
                }
                block.priority = header.value == "10" ? "high" : "normal"
            case "apns-collapse-id": block.collapseKey = header.value
            case "apns-expiration":
                guard let expiry = Int64(header.value) else {
                    throw V1Error.invalidArgument(
                        "apns-expiration must be a UNIX time in seconds", field: "message.apns.headers")
                }
                block.expiresAtUnixSeconds = expiry
            default: break
            }
        }
        var details = MessageDetails()
        details.liveActivityToken = V1SchemaCheck.member(apns, "live_activity_token", "liveActivityToken")?.string
        details.analyticsLabel = try analyticsLabel(in: apns, at: "message.apns")
        block.details = details.isEmpty ? nil : details
        // What the alert says makes a notification; the rest is shown only with one.
        var alert: [KeyValue] = []
        var extras: [KeyValue] = []
        if case .object(let options)? = V1SchemaCheck.member(apns, "fcm_options", "fcmOptions"),
            let image = options["image"]?.string
        {
            extras.append(KeyValue("image", image))
        }
        guard case .object(let payload) = apns["payload"], let apsValue = payload["aps"] else {
            if !extras.isEmpty { block.notificationExtras = extras }
            return block
        }
        let aps = try object(apsValue, at: "message.apns.payload.aps")
        if let alertValue = aps["alert"] {
            if case .string(let text) = alertValue {
                alert.append(KeyValue("body", text))
            } else {
                let map = try object(alertValue, at: "message.apns.payload.aps.alert")
                alert += LegacyFields.stringPairs(map).filter { map[$0.key]?.string != nil }.map {
                    KeyValue(alertKey($0.key), $0.value)
                }
            }
        }
        if let badge = aps["badge"]?.int64 { extras.append(KeyValue("badge", String(badge))) }
        switch aps["sound"] {
        case .string(let name)?: extras.append(KeyValue("sound", name))
        case .object(let sound)?: if let name = sound["name"]?.string { extras.append(KeyValue("sound", name)) }
        default: break
        }
        if let category = aps["category"]?.string { extras.append(KeyValue("click_action", category)) }
        if let thread = aps["thread-id"]?.string { extras.append(KeyValue("thread_id", thread)) }
        if !alert.isEmpty {
            block.notification = (alert + extras).sorted { $0.key < $1.key }
        } else if !extras.isEmpty {
            block.notificationExtras = extras.sorted { $0.key < $1.key }
        }
        block.contentAvailable = aps["content-available"]?.int64 == 1
        block.mutableContent = aps["mutable-content"]?.int64 == 1
        return block
    }

    /// An `aps.alert` key by the name the device reads: `loc-key` is the body's,
    /// hyphens become underscores.
    static func alertKey(_ key: String) -> String {
        switch key {
        case "loc-key": "body_loc_key"
        case "loc-args": "body_loc_args"
        default: String(key.map { $0 == "-" ? "_" : $0 })
        }
    }

    /// `webpush`, for a web app's copy: its headers (`TTL` a time to live, `Urgency`
    /// high or not, `Topic` as the collapse key: chosen, as RFC 8030 has a topic replace
    /// an undelivered message), its data (replacing the message's), its notification
    /// (over the message's), and `fcm_options.link`, which must be HTTPS, as the link
    /// a click opens (the SDK reads it as `click_action`).
    static func readWebpush(_ webpush: JSONObject) throws -> MessageOverride {
        var block = MessageOverride()
        for header in stringMap(webpush["headers"]) ?? [] {
            switch header.key.lowercased() {
            case "ttl":
                guard let ttl = Int64(header.value), ttl >= 0 else {
                    throw V1Error.invalidArgument(
                        "the TTL header is a number of seconds, not \"\(header.value)\"",
                        field: "message.webpush.headers")
                }
                block.timeToLive = ttl
            case "urgency":
                let levels = ["very-low", "low", "normal", "high"]
                guard levels.contains(header.value) else {
                    throw V1Error.invalidArgument(
                        "the Urgency header is one of \(levels.joined(separator: ", ")), not \"\(header.value)\"",
                        field: "message.webpush.headers")
                }
                block.priority = header.value == "high" ? "high" : "normal"
            case "topic":
                block.collapseKey = header.value
            default: break
            }
        }
        block.data = stringMap(webpush["data"])
        var shown: [KeyValue] = []
        if case .object(let fields) = webpush["notification"] { shown = LegacyFields.stringPairs(fields) }
        if case .object(let options)? = V1SchemaCheck.member(webpush, "fcm_options", "fcmOptions"),
            let link = options["link"]?.string
        {
            guard link.lowercased().hasPrefix("https://") else {
                throw V1Error.invalidArgument(
                    "Invalid value at 'message.webpush.fcm_options.link': a link must use HTTPS, not \"\(link)\"",
                    field: "message.webpush.fcm_options.link")
            }
            shown.removeAll { $0.key == "click_action" }
            shown.append(KeyValue("click_action", link))
        }
        if !shown.isEmpty { block.notification = shown.sorted { $0.key < $1.key } }
        if let label = try analyticsLabel(in: webpush, at: "message.webpush") {
            block.details = MessageDetails(analyticsLabel: label)
        }
        return block
    }
}
