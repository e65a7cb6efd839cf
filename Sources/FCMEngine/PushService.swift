import FCMJSON
import FCMWebPush

/// A browser's push subscription, as the push service knows it: the endpoint's id,
/// the phone whose browser holds it, the `applicationServerKey` it was made with
/// (nil: the FCM SDK's default key) and the seed its keys are made from.
public struct PushSubscription: Sendable, Equatable, Codable {
    public var id: String
    public var phone: Int
    public var applicationServerKey: String?
    var keySeed: UInt64
    public var madeAt: Millis

    /// The browser's keys (`p256dh`, `auth`), made again from the seed each time.
    public var keys: BrowserKeys {
        var random = SeededGenerator(seed: keySeed)
        while true {
            let scalar = (0..<4).flatMap { _ in withUnsafeBytes(of: random.next().bigEndian) { Array($0) } }
            let auth = (0..<2).flatMap { _ in withUnsafeBytes(of: random.next().bigEndian) { Array($0) } }
            if let keys = BrowserKeys(scalar: scalar, authSecret: auth) { return keys }
        }
    }

    /// `p256dh` and `auth` as the browser hands them out (base64url).
    public var publicKeys: (p256dh: String, auth: String) {
        let keys = keys
        return (keys.p256dh, keys.auth)
    }

    /// Chrome's endpoint for it on FCM's host.
    public var endpoint: String { PushService.googleOrigin + "/fcm/send/" + id }

    /// `PushSubscription.toJSON()` as the browser writes it, at `origin` (the
    /// emulator's own base, or Google's host).
    public func json(origin: String = PushService.googleOrigin) -> JSONValue {
        let keys = publicKeys
        return .members([
            "endpoint": .string(origin + "/fcm/send/" + id), "expirationTime": .null,
            "keys": .members(["p256dh": .string(keys.p256dh), "auth": .string(keys.auth)]),
        ])
    }
}

/// A Web Push message the push service holds for a browser that cannot take it now.
public struct HeldWebPush: Sendable, Equatable, Codable {
    public var id: String
    public var subscription: String
    public var request: WebPushRequest
    public var ttl: Int64
    public var expiresAt: Millis
}

/// The push service's side of Web Push: the subscriptions browsers made, those that
/// ended (410, not 404), and the messages held for browsers away.
public struct PushService: Sendable, Equatable, Codable {
    public internal(set) var subscriptions: [PushSubscription] = []
    /// Endpoint id → why its subscription ended.
    public internal(set) var ended: [String: String] = [:]
    public internal(set) var held: [HeldWebPush] = []
    /// Subscriptions made so far: the next one's number (its id and keys come from it).
    var made: UInt64 = 0
    /// Messages accepted so far (their ids).
    var accepted: UInt64 = 0

    /// FCM's host, where Chrome's endpoints point.
    public static let googleOrigin = "https://fcm.googleapis.com"
    /// The longest time to live kept (four weeks, as FCM's other APIs).
    public static let maxTTL: Int64 = 2_419_200

    public init() {}

    public func subscription(id: String) -> PushSubscription? { subscriptions.first { $0.id == id } }
    public func subscription(ofPhone p: Int) -> PushSubscription? { subscriptions.first { $0.phone == p } }

    /// When the first held message runs out, if any is held.
    var earliestExpiry: Millis? { held.map(\.expiresAt).min() }

    /// The id of a subscription made now on a phone seeded `seed`: token-shaped, as
    /// Chrome's are (`<11>:APA91b<134>`).
    static func subscriptionID(_ random: inout SeededGenerator) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        func characters(_ count: Int) -> String {
            String(decoding: (0..<count).map { _ in alphabet[Int(random.next() & 63)] }, as: UTF8.self)
        }
        return characters(11) + ":APA91b" + characters(134)
    }
}
