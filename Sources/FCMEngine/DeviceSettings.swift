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
    /// A web app's notification permission (nil: granted); other platforms have none.
    public var permission: WebPermission?

    /// These settings as the platform has them: a notification permission is a web
    /// app's, and a browser has no Doze (`platformProblems` says why, for a profile).
    public var fitted: DeviceSettings {
        var settings = self
        if platform != .web { settings.permission = nil }
        if platform == .web { settings.doze = false }
        return settings
    }

    /// What these settings say that their platform does not have, by setting name:
    /// what `fitted` would take away.
    public var platformProblems: [(setting: String, problem: String)] {
        var problems: [(String, String)] = []
        if platform != .web, permission != nil {
            problems.append(
                ("permission", "permission is a web app's notification permission: give it with platform: web"))
        }
        if platform == .web, doze { problems.append(("doze", "a browser has no Doze (it is Android's)")) }
        return problems
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
