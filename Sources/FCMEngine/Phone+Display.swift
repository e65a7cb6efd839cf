/// The phone's own rules about what it shows and keeps: the system's notification
/// outcome and channel, the details a delivery event gives, tags replacing
/// notifications in the tray, the inbox, and what its SDK counts of an upstream payload.
/// Those that only read are `mutating` for the reason `Phone+Store.swift` gives.
extension Phone {
    /// Notification permission and channels, by platform, for the phone.
    mutating func notificationOutcome(_ pairs: [KeyValue]) -> NotificationOutcome {
        let permission = settings.notificationPermission
        switch platform {
        case .android:
            let level = settings.androidAPILevel ?? DeviceSettings.defaultAPILevel
            if permission == .denied {
                return .blocked(
                    "notifications are off for \(settings.app) (POST_NOTIFICATIONS denied): Android drops what the SDK "
                        + "posts, and the app's code does not run")
            }
            if permission == .notAsked, level >= DeviceSettings.runtimePermissionAPILevel {
                return .blocked(
                    "\(settings.app) has not asked for POST_NOTIFICATIONS (API \(level)): Android drops what the SDK "
                        + "posts, and the app's code does not run")
            }
            return .shown(level >= DeviceSettings.channelsAPILevel ? channelFields(pairs) : [])
        case .ios:
            switch permission {
            case .denied:
                return .blocked(
                    "notifications are denied for \(settings.app) in Settings: no alert, sound or badge")
            case .notDetermined:
                return .blocked(
                    "\(settings.app) has not asked for notification authorization: no alert, sound or badge")
            case .provisional:
                return .shown([.text("delivery", "quiet")])
            default:
                return .shown([])
            }
        case .web:
            return .shown([])
        }
    }

    /// The channel the Android SDK posts a notification on: the one it names if the
    /// app created it; else the manifest's default channel if the app created that;
    /// else the SDK's own "Miscellaneous" channel. A fallback says why.
    mutating func channelFields(_ pairs: [KeyValue]) -> [Field] {
        let requested = pairs.first { $0.key == "channel_id" || $0.key == "android_channel_id" }?.value
        let created = settings.channels ?? []
        if let requested, created.contains(requested) { return [.text("channel", requested)] }
        let why =
            requested.map { "channel \($0) has not been created by the app" } ?? "the notification names no channel"
        if let manifest = settings.defaultChannel, created.contains(manifest) {
            return [
                .text("channel", manifest), .text("channel_note", "\(why); posted on the manifest's default channel"),
            ]
        }
        return [
            .text("channel", DeviceEngine.fallbackChannel),
            .text("channel_note", "\(why); posted on the SDK's fallback channel \"Miscellaneous\""),
        ]
    }

    /// The fields of a delivery event that say what the message carried besides its
    /// payload, for the phone: its analytics label, Android's direct-boot
    /// flag, a Live Activity's token, and what this platform ignores of it.
    mutating func detailFields(of request: DownstreamRequest) -> [Field] {
        let ignoredKeys = NotificationDisplay.ignoredKeys(request.notification, on: platform)
        guard request.details != nil || !ignoredKeys.isEmpty else { return [] }
        var fields: [Field] = []
        let details = request.details ?? MessageDetails()
        if let label = details.analyticsLabel { fields.append(.text("analytics_label", label)) }
        if let directBoot = details.directBootOK, platform == .android {
            fields.append(.flag("direct_boot_ok", directBoot))
        }
        if let token = details.liveActivityToken, platform == .ios {
            fields.append(.text("live_activity_token", TokenText.short(token)))
        }
        var ignored = (details.ignored ?? []) + ignoredKeys.map { "notification." + $0 }
        if details.restrictedPackageName != nil, platform != .android {
            ignored.append("restricted_package_name")
        }
        if !ignored.isEmpty { fields.append(Field("ignored", .list(ignored))) }
        return fields
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
    mutating func remember(_ message: DeliveredMessage) {
        inbox.append(message)
        // Trimmed in chunks, so a long session does not shift the array on every message.
        if inbox.count >= 2 * DeviceEngine.inboxLimit {
            inbox.removeFirst(inbox.count - DeviceEngine.inboxLimit)
        }
    }

    /// The payload size the device's SDK checks: UTF-8 bytes on Android, characters
    /// (UTF-16 code units, as `NSString` counts) on iOS.
    mutating func upstreamSize(_ data: [KeyValue]) -> Int {
        platform == .ios ? ServiceLimits.iosUpstreamSize(data) : ServiceLimits.payloadSize(data)
    }

    /// Whether the phone may hold a token: a web app needs notification permission.
    mutating func permissionProblem() -> String? {
        guard settings.platform == .web, let permission = settings.permission, permission != .granted else {
            return nil
        }
        return permission == .denied
            ? "notification permission is denied for \(settings.app)"
            : "the notification prompt for \(settings.app) was dismissed, not granted"
    }
}
