/// The per-platform blocks of an HTTP v1 message (`android`, `apns`), kept on the
/// order as the app server sent them (`SendOrder.overrides`), not on the request: the
/// request travels on every message's way, and a larger one slowed every message. The
/// engine applies the block of the platform of each phone a copy reaches
/// (`DownstreamRequest.shaped(by:for:wallClock:at:)`), so a topic, condition or group
/// send across a mixed fleet is shaped phone by phone.
public struct PlatformOverrides: Sendable, Equatable, Codable, CustomReflectable {
    /// The blocks, in one box shared by every copy: an order travels by value on each
    /// message's way, and three blocks held inline made it 600 bytes to copy.
    private var blocks: SharedBox<Blocks>

    struct Blocks: Sendable, Equatable {
        var android: MessageOverride?
        var apns: MessageOverride?
        var webpush: MessageOverride?
    }

    /// `android`, or `android_v2` (a message carries one of them).
    public var android: MessageOverride? {
        get { blocks.value.android }
        set { blocks.value.android = newValue }
    }
    public var apns: MessageOverride? {
        get { blocks.value.apns }
        set { blocks.value.apns = newValue }
    }
    /// `webpush`: what a web app's copy takes (a phone shows it as ignored).
    public var webpush: MessageOverride? {
        get { blocks.value.webpush }
        set { blocks.value.webpush = newValue }
    }

    public init(android: MessageOverride? = nil, apns: MessageOverride? = nil, webpush: MessageOverride? = nil) {
        blocks = SharedBox(Blocks(android: android, apns: apns, webpush: webpush))
    }

    /// The blocks, not the box, in a test's failure or a debugger.
    public var customMirror: Mirror {
        Mirror(self, children: ["android": android as Any, "apns": apns as Any, "webpush": webpush as Any])
    }

    public static func == (left: Self, right: Self) -> Bool {
        left.blocks.sharesStorage(with: right.blocks) || left.blocks.value == right.blocks.value
    }

    enum CodingKeys: String, CodingKey {
        case android, apns, webpush
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            android: try c.decodeIfPresent(MessageOverride.self, forKey: .android),
            apns: try c.decodeIfPresent(MessageOverride.self, forKey: .apns),
            webpush: try c.decodeIfPresent(MessageOverride.self, forKey: .webpush))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(android, forKey: .android)
        try c.encodeIfPresent(apns, forKey: .apns)
        try c.encodeIfPresent(webpush, forKey: .webpush)
    }

    /// The blocks a phone of `platform` does not read, by their names in the message.
    public func ignoredBlocks(on platform: Platform) -> [String] {
        var names: [String] = []
        if android != nil, platform != .android { names.append(android?.blockName ?? "android") }
        if apns != nil, platform != .ios { names.append("apns") }
        if webpush != nil, platform != .web { names.append("webpush") }
        return names
    }

    /// The block for a phone of `platform`, if the message has one.
    public func block(for platform: Platform) -> MessageOverride? {
        switch platform {
        case .android: android
        case .ios: apns
        case .web: webpush
        }
    }
}

/// What one platform block changes in the message, already read and checked.
public struct MessageOverride: Sendable, Equatable, Codable {
    public var collapseKey: String?
    /// `high` or `normal`.
    public var priority: String?
    /// Seconds (Android's `ttl`).
    public var timeToLive: Int64?
    /// APNs's `apns-expiration`: a UNIX time in seconds; 0 means now or never.
    public var expiresAtUnixSeconds: Int64?
    /// Replaces the message's data (Android's `data`).
    public var data: [KeyValue]?
    /// Fields that replace the message's notification fields of the same name.
    public var notification: [KeyValue]?
    public var contentAvailable: Bool
    public var mutableContent: Bool
    /// What the block says besides the payload (package, analytics label, …).
    public var details: MessageDetails?
    /// `android_v2.background_sync`: the phone is woken with data only, and the
    /// message's notification is not for it.
    public var dataOnly: Bool?
    /// The block's name when it is not the platform's usual one (`android_v2`).
    public var blockName: String?
    /// What the platform shows of a notification without making one (an APNs badge,
    /// sound or category without an alert): added only to a copy that is a
    /// notification, so a silent push stays silent.
    public var notificationExtras: [KeyValue]?

    public init(
        collapseKey: String? = nil, priority: String? = nil, timeToLive: Int64? = nil,
        expiresAtUnixSeconds: Int64? = nil, data: [KeyValue]? = nil, notification: [KeyValue]? = nil,
        contentAvailable: Bool = false, mutableContent: Bool = false, details: MessageDetails? = nil
    ) {
        self.details = details
        self.collapseKey = collapseKey
        self.priority = priority
        self.timeToLive = timeToLive
        self.expiresAtUnixSeconds = expiresAtUnixSeconds
        self.data = data
        self.notification = notification
        self.contentAvailable = contentAvailable
        self.mutableContent = mutableContent
    }
}

extension DownstreamRequest {
    /// The message as a phone of `platform` gets it: its platform's block applied. An expiration becomes a time to live on `wallClock`, the
    /// engine's own reading of the UNIX time.
    public func shaped(
        by overrides: PlatformOverrides, for platform: Platform, wallClock: WallClock, at now: Millis
    ) -> DownstreamRequest {
        var shaped = self
        let ignored = overrides.ignoredBlocks(on: platform)
        if !ignored.isEmpty {
            shaped.details = (details ?? MessageDetails()).overlaid(by: MessageDetails(ignored: ignored))
        }
        guard let block = overrides.block(for: platform) else { return shaped }
        if let blockDetails = block.details {
            shaped.details = (shaped.details ?? MessageDetails()).overlaid(by: blockDetails)
        }
        if block.dataOnly == true { shaped.notification = nil }
        if let key = block.collapseKey { shaped.collapseKey = key }
        if let priority = block.priority { shaped.priority = priority }
        if let ttl = block.timeToLive { shaped.timeToLive = ttl }
        if let expiry = block.expiresAtUnixSeconds {
            shaped.timeToLive = expiry == 0 ? 0 : max(0, expiry - wallClock.unixSeconds(at: now))
        }
        if let data = block.data { shaped.data = data }
        if let fields = block.notification, block.dataOnly != true {
            let replaced = Set(fields.map(\.key))
            shaped.notification = ((notification ?? []).filter { !replaced.contains($0.key) } + fields).sorted {
                $0.key < $1.key
            }
        }
        if let extras = block.notificationExtras, let shown = shaped.notification {
            let replaced = Set(extras.map(\.key))
            shaped.notification = (shown.filter { !replaced.contains($0.key) } + extras).sorted { $0.key < $1.key }
        }
        // Set only when they change: a message shaped to what it was keeps its one box.
        if block.contentAvailable, !contentAvailable { shaped.contentAvailable = true }
        if block.mutableContent, !mutableContent { shaped.mutableContent = true }
        return shaped
    }
}
