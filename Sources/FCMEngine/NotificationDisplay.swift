/// What each platform reads of a notification's fields: the ones its tray shows (each
/// becomes a field of `notificationPosted`), the ones it reads without showing, and so
/// the ones it ignores (shown as `ignored` on the delivery event, never dropped
/// silently).
public enum NotificationDisplay {
    /// Fields the tray shows, by the event field's name and the notification keys
    /// that give it (v1's proto names, legacy's names).
    static func shown(on platform: Platform) -> [(field: String, keys: [String])] {
        switch platform {
        case .android: androidShown
        case .ios: iosShown
        case .web: webShown
        }
    }

    static let androidShown: [(field: String, keys: [String])] = [
        ("tag", ["tag"]), ("channel_id", ["channel_id", "android_channel_id"]), ("color", ["color"]),
        ("icon", ["icon"]), ("image", ["image"]), ("sound", ["sound"]), ("click_action", ["click_action"]),
        ("visibility", ["visibility"]), ("notification_priority", ["notification_priority"]),
        ("notification_count", ["notification_count"]), ("sticky", ["sticky"]), ("local_only", ["local_only"]),
        ("ticker", ["ticker"]),
    ]

    /// iOS: `click_action` is the APNs `category`.
    static let iosShown: [(field: String, keys: [String])] = [
        ("subtitle", ["subtitle"]), ("badge", ["badge"]), ("sound", ["sound"]), ("click_action", ["click_action"]),
        ("image", ["image"]), ("thread_id", ["thread_id"]),
    ]

    /// A browser's notification: what the SDK hands `showNotification` (its link is
    /// `click_action`, where the SDK puts `fcm_options.link`).
    static let webShown: [(field: String, keys: [String])] = [
        ("icon", ["icon"]), ("image", ["image"]), ("badge", ["badge"]), ("tag", ["tag"]),
        ("link", ["click_action"]), ("require_interaction", ["requireInteraction", "require_interaction"]),
    ]

    /// Web Notification options a browser reads without a field of their own.
    static let readByWeb: Set<String> = [
        "title", "body", "actions", "data", "dir", "lang", "renotify", "silent", "timestamp", "vibrate",
    ]

    static let readOnWeb = readByWeb.union(webShown.flatMap(\.keys))

    /// Read by both platforms without a field of their own on the event.
    static let readByBoth: Set<String> = [
        "title", "body", "title_loc_key", "title_loc_args", "body_loc_key", "body_loc_args",
    ]

    /// Read by Android's notification builder without being shown as a field.
    static let readByAndroid: Set<String> = [
        "event_time", "default_sound", "default_vibrate_timings", "default_light_settings", "vibrate_timings",
        "light_settings", "proxy", "bypass_proxy_notification",
    ]

    static let readOnAndroid = readByBoth.union(readByAndroid).union(androidShown.flatMap(\.keys))
    /// APNs alert keys an iPhone reads besides the ones both platforms read.
    static let readByIOS: Set<String> = [
        "subtitle_loc_key", "subtitle_loc_args", "action_loc_key", "launch_image",
    ]

    static let readOnIOS = readByBoth.union(readByIOS).union(iosShown.flatMap(\.keys))

    /// The notification's keys a phone of `platform` does not read, in order.
    static func ignoredKeys(_ notification: [KeyValue]?, on platform: Platform) -> [String] {
        // A data message (most) has nothing to read.
        guard let notification, !notification.isEmpty else { return [] }
        let read =
            switch platform {
            case .android: readOnAndroid
            case .ios: readOnIOS
            case .web: readOnWeb
            }
        return notification.compactMap { read.contains($0.key) ? nil : $0.key }
    }

    /// All every event field `shown` can make, for the event vocabulary.
    public static let shownFields: [String] = {
        var names: [String] = []
        for (field, _) in androidShown + iosShown + webShown where !names.contains(field) { names.append(field) }
        return names
    }()
}

extension DeviceEngine {
}
