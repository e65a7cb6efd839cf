import FCMEngine
import FCMHTTPPort
import FCMJSON
import FCMLegacyFields

/// The platform blocks of a v1 message (`android` or `android_v2`, `apns`, `webpush`),
/// already checked against Google's schema, read into what each platform's phone takes.
extension V1MessageReader {
    static func platformBlocks(of message: JSONObject) throws -> PlatformOverrides? {
        // Read into their own values first: a message without blocks (most) makes no box.
        var android: MessageOverride?
        var apns: MessageOverride?
        var webpush: MessageOverride?
        if case .object(let block) = message["android"] { android = try readAndroid(block, at: "message.android") }
        if case .object(let v2)? = V1SchemaCheck.member(message, "android_v2", "androidV2") {
            android = try readAndroidV2(v2, besideAndroid: android != nil)
        }
        if case .object(let block) = message["apns"] { apns = try readAPNs(block) }
        if case .object(let block) = message["webpush"] { webpush = try readWebpush(block) }
        guard android != nil || apns != nil || webpush != nil else { return nil }
        return PlatformOverrides(android: android, apns: apns, webpush: webpush)
    }

    /// `androidV2` replaces `android` and may not come with it, and it carries exactly
    /// one of `remote_notification` (a notification message) and `background_sync` (a
    /// data-only wake-up). Google's document and its Python client say so; FCM's own
    /// words for either refusal are not established.
    static func readAndroidV2(_ v2: JSONObject, besideAndroid: Bool) throws -> MessageOverride {
        if besideAndroid {
            throw V1Error.invalidArgument(
                "android and android_v2 are mutually exclusive: a message carries one of them", field: "message")
        }
        let remote = V1SchemaCheck.member(v2, "remote_notification", "remoteNotification")?.object
        let sync = V1SchemaCheck.member(v2, "background_sync", "backgroundSync")?.object
        guard (remote == nil) != (sync == nil) else {
            throw V1Error.invalidArgument(
                "android_v2 carries exactly one of remote_notification and background_sync, not "
                    + (remote == nil ? "neither" : "both"), field: "message.android_v2")
        }
        var block = try readAndroid(v2, at: "message.android_v2")
        block.blockName = "android_v2"
        if let remote {
            let fields = remote["notification"]?.object ?? JSONObject([])
            block.notification = try androidNotification(
                fields, at: "message.android_v2.remote_notification.notification")
        } else {
            block.dataOnly = true
        }
        return block
    }

    /// The `android` block (or `android_v2`'s shared fields), checked against
    /// `AndroidConfig`.
    static func readAndroid(_ android: JSONObject, at path: String) throws -> MessageOverride {
        var block = MessageOverride()
        block.collapseKey = V1SchemaCheck.member(android, "collapse_key", "collapseKey")?.string
        if let priority = android["priority"].flatMap(V1Schema.androidPriority.enumValue) {
            block.priority = priority == "HIGH" ? "high" : "normal"
        }
        if let ttl = android["ttl"]?.string {
            guard let seconds = DurationText.protobufSeconds(ttl) else {
                throw V1Error.invalidArgument(
                    "Invalid value at '\(path).ttl' (type.googleapis.com/google.protobuf.Duration), Field 'ttl', "
                        + "a time to live is 0 or more seconds, not \(ttl)", field: "\(path).ttl")
            }
            block.timeToLive = seconds
        }
        block.data = stringMap(android["data"])
        if case .object(let fields) = android["notification"] {
            block.notification = try androidNotification(fields, at: "\(path).notification")
        }
        var details = MessageDetails()
        details.restrictedPackageName =
            V1SchemaCheck.member(android, "restricted_package_name", "restrictedPackageName")?.string
        if case .bool(let flag)? = V1SchemaCheck.member(android, "direct_boot_ok", "directBootOk") {
            details.directBootOK = flag
        }
        details.analyticsLabel = try analyticsLabel(in: android, at: path)
        block.details = details.isEmpty ? nil : details
        return block
    }

    /// An `AndroidNotification`'s fields by their proto names, whichever spelling came
    /// (the device reads `channel_id`, `tag`, …); its colour must be `#rrggbb`.
    static func androidNotification(_ fields: JSONObject, at path: String) throws -> [KeyValue] {
        let pairs = LegacyFields.stringPairs(fields).map { KeyValue(V1SchemaCheck.protoName($0.key), $0.value) }
        if let color = pairs.first(where: { $0.key == "color" })?.value, !isHexColor(color) {
            throw V1Error.invalidArgument(
                "Invalid value at '\(path).color': the color must be in the form #rrggbb, not \"\(color)\"",
                field: "\(path).color")
        }
        return pairs
    }

    static func isHexColor(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.count == 7 && bytes[0] == UInt8(ascii: "#") && bytes.dropFirst().allSatisfy(\.isHexDigit)
    }

    /// `fcm_options.analytics_label` of `object`, if it has one. Google documents the
    /// label's form (`^[a-zA-Z0-9-_.~%]{1,50}$`); a label of another form is refused.
    static func analyticsLabel(in object: JSONObject, at path: String) throws -> String? {
        guard case .object(let options)? = V1SchemaCheck.member(object, "fcm_options", "fcmOptions"),
            let label = V1SchemaCheck.member(options, "analytics_label", "analyticsLabel")?.string
        else { return nil }
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~%")
        guard (1...50).contains(label.count), label.allSatisfy(allowed.contains) else {
            throw V1Error.invalidArgument(
                "Invalid value at '\(path).fcm_options.analytics_label': a label is 1 to 50 of "
                    + "a-z A-Z 0-9 - _ . ~ %, not \"\(label)\"", field: "\(path).fcm_options.analytics_label")
        }
        return label
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
