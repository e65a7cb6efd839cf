/// The operating system of the emulated device; it decides callback names and how
/// notification and data messages are handed to the app.
public enum Platform: String, Sendable, CaseIterable, Codable {
    case android, ios
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

/// One app server the device registered with.
public struct SenderConfig: Sendable, Equatable, Codable {
    /// The sender ID (Google project number).
    public var id: String
    /// The server key app servers authenticate with.
    public var key: String
    /// The HTTP v1 project id, if any.
    public var project: String?
    /// A fixed first registration token; generated when nil.
    public var token: String?

    public init(id: String, key: String, project: String? = nil, token: String? = nil) {
        self.id = id
        self.key = key
        self.project = project
        self.token = token
    }
}

/// How `onMessageSent` callbacks are grouped: a batch opens with the first accepted
/// message and is delivered when `window` has passed or `max` ids are waiting.
public struct BatchPolicy: Sendable, Equatable, Codable {
    public var window: Millis
    public var max: Int

    public init(window: Millis = 2 * Span.second, max: Int = 10) {
        self.window = window
        self.max = max
    }
}

/// Which stored message goes when a fifth collapse key arrives (the real service
/// promises nothing; the emulator picks one rule).
public enum CollapseEviction: String, Sendable, CaseIterable, Codable {
    /// The message with the oldest stored collapse key is discarded.
    case oldest
    /// The incoming message is discarded.
    case incoming
}

/// Limits of the connection server's store for an unreachable device.
public struct StorePolicy: Sendable, Equatable, Codable {
    public var nonCollapsibleLimit: Int
    public var collapseKeyLimit: Int
    public var eviction: CollapseEviction

    public init(nonCollapsibleLimit: Int = 100, collapseKeyLimit: Int = 4, eviction: CollapseEviction = .oldest) {
        self.nonCollapsibleLimit = nonCollapsibleLimit
        self.collapseKeyLimit = collapseKeyLimit
        self.eviction = eviction
    }
}

/// Everything the engine needs to start.
public struct EngineConfiguration: Sendable, Equatable, Codable {
    public var device: DeviceSettings
    public var senders: [SenderConfig]
    public var batch: BatchPolicy
    public var appServer: AppServerMode
    public var store: StorePolicy

    public init(
        device: DeviceSettings = DeviceSettings(), senders: [SenderConfig],
        batch: BatchPolicy = BatchPolicy(), appServer: AppServerMode = .echo,
        store: StorePolicy = StorePolicy()
    ) {
        self.device = device
        self.senders = senders
        self.batch = batch
        self.appServer = appServer
        self.store = store
    }
}
