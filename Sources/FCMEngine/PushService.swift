import FCMJSON
import FCMWebPush

/// A browser's push subscription, as the push service knows it: the endpoint's id,
/// the phone whose browser holds it, the `applicationServerKey` it was made with
/// (nil: the FCM SDK's default key) and the seed its keys are made from (made when
/// read: a fleet of a million browsers subscribes without a million key pairs).
public struct PushSubscription: Sendable, Equatable, Codable {
    public var id: String
    public var phone: Int
    public var applicationServerKey: String?
    var keySeed: UInt64
    public var madeAt: Millis
    /// A real client's own keys (it registered them): the push service encrypts to
    /// them and cannot decrypt. Nil for an emulated browser, whose keys come from
    /// `keySeed`.
    public var clientKeys: ClientKeys?

    public struct ClientKeys: Sendable, Equatable, Codable {
        public var p256dh: [UInt8]
        public var auth: [UInt8]
    }

    /// `p256dh` and `auth` as the browser hands them out (base64url).
    public var publicKeys: (p256dh: String, auth: String) {
        if let clientKeys { return (Base64URL.encode(clientKeys.p256dh), Base64URL.encode(clientKeys.auth)) }
        let keys = keys
        return (keys.p256dh, keys.auth)
    }

    /// The public key and auth secret a message to this subscription is encrypted to.
    public var encryptionKeys: (p256dh: [UInt8], auth: [UInt8]) {
        if let clientKeys { return (clientKeys.p256dh, clientKeys.auth) }
        let keys = keys
        return (keys.publicKey, keys.authSecret)
    }

    /// The browser's keys (private too), made again from the seed: what it decrypts with.
    public var keys: BrowserKeys { Self.keys(seed: keySeed) }

    static func keys(seed: UInt64) -> BrowserKeys {
        var random = SeededGenerator(seed: seed)
        while true {
            let scalar = (0..<4).flatMap { _ in withUnsafeBytes(of: random.next().bigEndian) { Array($0) } }
            let auth = (0..<2).flatMap { _ in withUnsafeBytes(of: random.next().bigEndian) { Array($0) } }
            if let keys = BrowserKeys(scalar: scalar, authSecret: auth) { return keys }
        }
    }

    /// The plaintext of a request's body, decrypted with the browser's keys in the
    /// encoding it names: what the browser does, and what `w` reads a request as.
    func decrypt(_ request: WebPushRequest, body: [UInt8]) throws(DecryptionFailure) -> [UInt8] {
        switch request.encoding {
        case .aes128gcm: try WebPushCipher.decrypt(aes128gcm: body, keys: keys)
        case .aesgcm:
            try WebPushCipher.decrypt(
                aesgcm: body, encryption: request.encryption, cryptoKey: request.cryptoKey, keys: keys)
        }
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

/// The push service's side of Web Push: the subscriptions browsers made (by id, and
/// each phone's), those that ended (410, not 404), and the messages held for browsers
/// away.
public struct PushService: Sendable, Equatable, Codable {
    /// Endpoint id → its subscription.
    public internal(set) var subscriptions: [String: PushSubscription] = [:]
    /// Phone → the id of its browser's subscription.
    var byPhone: [Int: String] = [:]
    /// Endpoint id → why its subscription ended.
    public internal(set) var ended: [String: String] = [:]
    public internal(set) var held: [HeldWebPush] = []
    /// Subscriptions made so far: the next one's number (its id and keys come from it).
    var made: UInt64 = 0
    /// Messages accepted so far (their ids).
    var accepted: UInt64 = 0

    /// FCM's host, where Chrome's endpoints point.
    public static let googleHost = "fcm.googleapis.com"
    public static let googleOrigin = "https://" + googleHost
    /// The longest time to live kept (four weeks, as FCM's other APIs).
    public static let maxTTL: Int64 = 2_419_200

    public init() {}

    /// The keys of FCM's message shape (what FCM writes in a push it sends to a web
    /// app): a JSON payload with one of them is the FCM SDK's worker's.
    public static let fcmMessageKeys: Set<String> = [
        "notification", "data", "from", "fcmMessageId", "collapse_key", "fcmOptions",
    ]

    /// The most messages held for one subscription: past it, the oldest is dropped.
    public static let heldLimit = 100

    public func subscription(id: String) -> PushSubscription? { subscriptions[id] }
    public func subscription(ofPhone p: Int) -> PushSubscription? { byPhone[p].flatMap { subscriptions[$0] } }

    mutating func add(_ subscription: PushSubscription) {
        subscriptions[subscription.id] = subscription
        byPhone[subscription.phone] = subscription.id
        ended[subscription.id] = nil
    }

    /// Ends the subscription of phone `p` (`reason`): its endpoint answers 410 from now.
    mutating func end(ofPhone p: Int, reason: String) -> PushSubscription? {
        guard let id = byPhone.removeValue(forKey: p), let ended = subscriptions.removeValue(forKey: id) else {
            return nil
        }
        self.ended[id] = reason
        return ended
    }

    /// A message's id, as FCM writes it in `Location` (`0:<time>%<16 hex digits>`).
    mutating func nextMessageID(at now: Millis) -> String {
        accepted += 1
        let hex = String(accepted, radix: 16)
        return "0:\(now)%" + String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }

    /// When the first held message runs out, if any is held.
    var earliestExpiry: Millis? { held.map(\.expiresAt).min() }

    /// The id of a subscription made now: token-shaped, as Chrome's are
    /// (`<11>:APA91b<134>`), written as the phones' tokens are.
    static func subscriptionID(_ random: inout SeededGenerator) -> String {
        TokenFactory.string(length: 152) { text in
            text.append(randomCharacters: 11, using: &random)
            text.append(ascii: ":APA91b")
            text.append(randomCharacters: 134, using: &random)
        }
    }
}
