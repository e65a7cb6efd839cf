/// What production's policies keep for one phone: its message-rate windows, its
/// budget of collapsible messages, whether its tokens expired, a web app's VAPID
/// keys. Saved with the phone.
public struct PhonePolicy: Sendable, Codable, Equatable {
    /// The current minute's and hour's windows of messages sent to the phone.
    var minute = RateWindow()
    var hour = RateWindow()
    /// Collapsible messages the phone may take now, as of `budgetAt`.
    var budget = DeviceLimits.collapsibleBurst
    var budgetAt: Millis = 0
    /// Tokens that expired while the phone was unreachable for `DeviceLimits.tokenExpiry`
    /// (sorted), until the app is opened while connected and gets new ones.
    public internal(set) var expiredTokens: [String] = []
    /// A web app: sender → the VAPID key its push subscription was made with (absent:
    /// Firebase's default key).
    public internal(set) var vapidKeys: [String: String] = [:]

    public init() {}

    enum CodingKeys: String, CodingKey {
        case minute, hour, budget, budgetAt, expiredTokens, vapidKeys
    }

    /// Each field as saved, or its start value when the state is older than it (a
    /// field renamed since is read as new: a rate window starts again).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        minute = try c.decodeIfPresent(RateWindow.self, forKey: .minute) ?? RateWindow()
        hour = try c.decodeIfPresent(RateWindow.self, forKey: .hour) ?? RateWindow()
        budget = try c.decodeIfPresent(Int.self, forKey: .budget) ?? DeviceLimits.collapsibleBurst
        budgetAt = try c.decodeIfPresent(Millis.self, forKey: .budgetAt) ?? 0
        expiredTokens = try c.decodeIfPresent([String].self, forKey: .expiredTokens) ?? []
        vapidKeys = try c.decodeIfPresent([String: String].self, forKey: .vapidKeys) ?? [:]
    }

    /// When the budget next grows while it is spent and a collapsible message waits
    /// in `stored` (the engine then delivers what throttling held); nil otherwise.
    func throttleWake(_ stored: [StoredMessage]) -> Millis? {
        guard budget == 0, stored.contains(where: { $0.request.collapseKey != nil }) else { return nil }
        return budgetAt + DeviceLimits.collapsibleRefill
    }

    /// The budget of collapsible messages at `now`, refilled by one every
    /// `collapsibleRefill` up to the burst.
    mutating func refill(at now: Millis) {
        let refills = Int((now - budgetAt) / DeviceLimits.collapsibleRefill)
        if budget + refills >= DeviceLimits.collapsibleBurst {
            budget = DeviceLimits.collapsibleBurst
            budgetAt = now
        } else if refills > 0 {
            budget += refills
            budgetAt += Millis(refills) * DeviceLimits.collapsibleRefill
        }
    }
}

/// Production's limits for one device (firebase.google.com/docs/cloud-messaging/
/// throttling-and-quotas, manage-tokens).
public enum DeviceLimits {
    /// Messages a minute, and an hour, to one Android device.
    public static let perMinute = 240
    public static let perHour = 5_000
    /// Collapsible messages: a burst of 20 per app per device, one more every 3 minutes.
    public static let collapsibleBurst = 20
    public static let collapsibleRefill: Millis = 3 * Span.minute
    /// An Android app instance that has not connected for 270 days has its tokens expired.
    public static let tokenExpiryDays = 270
    public static let tokenExpiry: Millis = Millis(tokenExpiryDays) * Span.day

    /// When the tokens of an app instance unreachable since `since` expire: Android's
    /// alone (iOS relies on APNs, which has no such expiry); nil while it is connected.
    public static func tokensExpireAt(unreachableSince since: Millis?, platform: Platform) -> Millis? {
        platform == .android ? since.map { $0 + tokenExpiry } : nil
    }
    /// What turns the limits off, named in every refusal they make.
    public static let switchText = "server: { device_limits: false } in a profile, or --no-device-limits"
}
