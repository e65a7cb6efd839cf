/// What the device is and how it starts.
public struct DeviceSettings: Sendable, Equatable, Codable {
    public var name: String
    public var platform: Platform
    public var sdk: SDK
    /// Package name or bundle id; the `category` of upstream stanzas and receipts.
    public var app: String
    public var state: AppState
    public var network: Network
    public var doze: Bool
    /// Makes generated tokens and message ids reproducible.
    public var seed: UInt64
    /// Whether the user lets the app show notifications (nil: allowed, `granted` or
    /// `authorized`), in the platform's own words.
    public var permission: NotificationPermission?
    /// Android: the API level the app runs at, the phone's Android version (nil:
    /// `defaultAPILevel`). 33+ asks for notification permission at run time; 26+ has
    /// notification channels.
    public var apiLevel: Int?
    /// Android 8+: the notification channels the app has created (nil: none).
    public var channels: [String]?
    /// Android 8+: the manifest's `com.google.firebase.messaging.default_notification_channel_id`.
    public var defaultChannel: String?
    /// A browser: what the site's own service worker does with a Web Push that is not
    /// an FCM message (nil: `notification`, it shows one).
    public var pushHandler: PushHandler?

    /// The API level an Android phone runs at when a profile names none.
    public static let defaultAPILevel = 35
    /// The API levels a profile may name (Android 4.1 to 16).
    public static let apiLevels = 16...36
    /// The first API level with notification channels (Android 8).
    public static let channelsAPILevel = 26
    /// The first API level where notification permission is asked at run time (Android 13).
    public static let runtimePermissionAPILevel = 33

    /// The Android API level (nil on other platforms).
    public var androidAPILevel: Int? { platform == .android ? apiLevel ?? Self.defaultAPILevel : nil }

    /// The notification permission as it stands: the one given, or the allowing one.
    public var notificationPermission: NotificationPermission {
        permission ?? NotificationPermission.allowing(on: platform)
    }

    /// The notification permissions this app can have: its platform's, without
    /// `not-asked` on an Android phone below API 33 (granted at install there).
    public var permissionValues: [NotificationPermission] {
        let level = androidAPILevel ?? Self.runtimePermissionAPILevel
        return NotificationPermission.values(on: platform).filter {
            $0 != .notAsked || level >= Self.runtimePermissionAPILevel
        }
    }

    /// Why this app cannot have `permission`, or nil when it can.
    public func permissionRefusal(_ permission: NotificationPermission) -> String? {
        if permissionValues.contains(permission) { return nil }
        if permission == .notAsked, let level = androidAPILevel {
            return "below API 33 (this phone: \(level)) notification permission is granted at install: not-asked "
                + "needs api_level 33 or more"
        }
        return NotificationPermission.misfit(permission, on: platform)
    }

    /// These settings as the platform has them: each setting another platform's
    /// alone is dropped, and a browser has no Doze (`platformProblems` says why, for a
    /// profile).
    public var fitted: DeviceSettings {
        var settings = self
        if let permission, permissionRefusal(permission) != nil { settings.permission = nil }
        if platform != .android || (apiLevel ?? Self.defaultAPILevel) < Self.channelsAPILevel {
            settings.channels = nil
            settings.defaultChannel = nil
        }
        if platform != .android { settings.apiLevel = nil }
        if platform == .web { settings.doze = false }
        if platform != .web { settings.pushHandler = nil }
        return settings
    }

    /// What these settings say that their platform does not have, by setting name:
    /// what `fitted` would take away.
    public var platformProblems: [(setting: String, problem: String)] {
        var problems: [(String, String)] = []
        if let permission, let problem = permissionRefusal(permission) { problems.append(("permission", problem)) }
        if platform != .android {
            for (key, given) in [
                ("api_level", apiLevel != nil), ("channels", channels != nil),
                ("default_channel", defaultChannel != nil),
            ] where given {
                problems.append((key, "\(key) is an Android app's setting: give it with platform: android"))
            }
        } else {
            if apiLevel ?? Self.defaultAPILevel < Self.channelsAPILevel {
                for (key, given) in [("channels", channels != nil), ("default_channel", defaultChannel != nil)]
                where given {
                    problems.append((key, "Android below 8 (API 26) has no notification channels"))
                }
            }
        }
        if platform == .web, doze { problems.append(("doze", "a browser has no Doze (it is Android's)")) }
        if platform != .web, pushHandler != nil {
            problems.append(("push_handler", "push_handler is a browser's setting: give it with platform: web"))
        }
        return problems
    }

    /// What a site's own service worker does with a push that is not an FCM message:
    /// the standards leave it to the site. `notification` shows one with the text;
    /// `silent` shows none, and Chrome shows its own notice instead ("This site has
    /// been updated in the background"), as it does for a push that showed nothing.
    public enum PushHandler: String, Sendable, Codable, CaseIterable {
        case notification, silent
    }

    public init(
        name: String = "Emulated device", platform: Platform = .android, sdk: SDK = .fcm,
        app: String = "com.example.app", state: AppState = .foreground,
        network: Network = .online, doze: Bool = false, seed: UInt64 = 0
    ) {
        self.name = name
        self.platform = platform
        self.sdk = sdk
        self.app = app
        self.state = state
        self.network = network
        self.doze = doze
        self.seed = seed
    }
}
