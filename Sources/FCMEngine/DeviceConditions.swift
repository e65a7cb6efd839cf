/// The operating system of the emulated device; it decides callback names and how
/// notification and data messages are handed to the app.
public enum Platform: String, Sendable, CaseIterable, Codable {
    /// A web app in a browser: the FCM JavaScript SDK and its service worker.
    case android, ios, web

    /// The app instance as a person names it: "an Android phone", "an iPhone", "a web app".
    public var kindName: String {
        switch self {
        case .android: "an Android phone"
        case .ios: "an iPhone"
        case .web: "a web app"
        }
    }

    /// What the platform's idle switch is called: Android's Doze; an iPhone asleep
    /// (APNs holding priority-5 pushes), as it has no Doze; a browser has neither.
    public var idleNames: IdleNames? {
        switch self {
        case .android: IdleNames(state: "dozing", reason: "doze", key: "doze")
        case .ios: IdleNames(state: "asleep", reason: "asleep", key: "sleep")
        case .web: nil
        }
    }
}

/// The words for a platform's idle switch: as a state (`dozing`), as the reason a
/// message is held (`doze`), and as the key's label (`z doze`).
public struct IdleNames: Sendable, Equatable {
    public let state: String
    public let reason: String
    public let key: String
}

/// Whether the user lets the app show notifications, in each platform's own words.
/// A browser: granted, denied, default (not asked). Android 13+ (API 33)
/// `POST_NOTIFICATIONS`: granted, denied, not-asked. iOS `UNAuthorizationStatus`:
/// authorized, denied, not-determined, provisional.
public enum NotificationPermission: String, Sendable, CaseIterable, Codable {
    case granted, denied
    /// A browser's "not asked yet": `getToken` asks, and a prompt dismissed is not a grant.
    case `default`
    /// Android 13+: the app has not asked for `POST_NOTIFICATIONS` yet (not a grant).
    case notAsked = "not-asked"
    /// iOS: the user allowed alerts, sounds and badges.
    case authorized
    /// iOS: the app has not asked yet.
    case notDetermined = "not-determined"
    /// iOS: delivered quietly to Notification Centre, no banner or sound, until the user decides.
    case provisional

    /// The values a platform has, the allowing one first.
    public static func values(on platform: Platform) -> [NotificationPermission] {
        switch platform {
        case .android: [.granted, .denied, .notAsked]
        case .ios: [.authorized, .denied, .notDetermined, .provisional]
        case .web: [.granted, .denied, .default]
        }
    }

    /// A phone's permission when none is given: the user allowed notifications (the
    /// platform's first value).
    public static func allowing(on platform: Platform) -> NotificationPermission { values(on: platform)[0] }

    /// Why a phone of `platform` has no such permission (naming the ones it has), or nil.
    public static func misfit(_ permission: NotificationPermission, on platform: Platform) -> String? {
        let values = values(on: platform)
        guard !values.contains(permission) else { return nil }
        return "\(permission.rawValue) is not a notification permission of \(platform.kindName): one of "
            + values.map(\.rawValue).joined(separator: ", ")
    }

    /// Whether a notification may be shown at all (provisional: quietly).
    public var allowsNotifications: Bool { self == .granted || self == .authorized || self == .provisional }
}

/// The messaging library the app is built with: FCM or the older GCM. It decides the
/// upstream address domain and some callback names.
public enum SDK: String, Sendable, CaseIterable, Codable {
    case fcm, gcm

    /// The domain of upstream addresses, `SENDER@domain`.
    public var upstreamDomain: String {
        switch self {
        case .fcm: "fcm.googleapis.com"
        case .gcm: "gcm.googleapis.com"
        }
    }
}

/// Whether the app runs in front of the user, behind, or not at all.
public enum AppState: String, Sendable, CaseIterable, Codable {
    case foreground, background, stopped
}

/// The device's data connection.
public enum Network: String, Sendable, CaseIterable, Codable {
    case online, offline
}

/// Downstream delivery priority (APNs 10 and 5).
public enum Priority: String, Sendable, CaseIterable, Codable {
    case high, normal
}

/// Who answers upstream messages when no real app server is connected.
public enum AppServerMode: String, Sendable, CaseIterable, Codable {
    /// The built-in app server acknowledges every upstream message at once.
    case echo
    /// Nobody acknowledges; the connection server retries until the TTL runs out.
    case none
}
