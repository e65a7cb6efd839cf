import FCMWebPush

/// A Web Push request (RFC 8030) as it reached the push service: the endpoint's
/// subscription and the headers the rules read, each as sent (the engine reads
/// them, not the door), and the body as base64url, so a journal keeps it as text.
public struct WebPushRequest: Sendable, Equatable, Codable {
    /// The subscription the endpoint names (`/fcm/send/<id>` or `/wp/<id>`).
    public var subscription: String
    /// The host (and port) the app server reached, as its `Host` said
    /// (`127.0.0.1:PORT`, or `fcm.googleapis.com` through the proxy).
    public var host: String
    /// Whether it came over TLS (the proxy's tunnel, `--https-port`).
    public var secure: Bool
    public var ttl: String?
    public var topic: String?
    public var urgency: String?
    public var contentEncoding: String?
    public var authorization: String?
    public var cryptoKey: String?
    public var encryption: String?
    /// The body, base64url.
    public var body: String

    public init(
        subscription: String, host: String, secure: Bool = false, ttl: String? = nil, topic: String? = nil,
        urgency: String? = nil,
        contentEncoding: String? = nil, authorization: String? = nil, cryptoKey: String? = nil,
        encryption: String? = nil, body: String = ""
    ) {
        self.subscription = subscription
        self.host = host
        self.secure = secure
        self.ttl = ttl
        self.topic = topic
        self.urgency = urgency
        self.contentEncoding = contentEncoding
        self.authorization = authorization
        self.cryptoKey = cryptoKey
        self.encryption = encryption
        self.body = body
    }
}

extension WebPushRequest {
    /// The push resource's origin, which a VAPID `aud` must name: the scheme the
    /// request came over and the host it named (`https://fcm.googleapis.com` through
    /// the proxy, `http://127.0.0.1:PORT` at the emulator's own base).
    public var origin: String { (secure ? "https://" : "http://") + host.lowercased() }

    /// The encoding its `Content-Encoding` names (a request the service took names
    /// one of the two); `aes128gcm` when it names none.
    var encoding: ContentEncoding { contentEncoding.flatMap(ContentEncoding.init(header:)) ?? .aes128gcm }
}

/// What the push service answers a Web Push request: its status, headers and body
/// text (FCM's words where they are known).
public struct WebPushAnswer: Sendable, Equatable {
    public var status: Int
    public var headers: [KeyValue]
    public var body: String

    public init(status: Int, headers: [KeyValue] = [], body: String = "") {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A profile's (or the TUI's) Web Push from the built-in app server to a browser's
/// subscription: what it says, encrypted to the subscription for real, and what it
/// gets wrong on purpose (another VAPID key or none, no TTL, a broken body).
public struct WebPushStep: Sendable, Equatable, Codable {
    /// How the built-in app server signs: with the key the subscription was made
    /// with (it holds that key's private half), another key, or not at all.
    public enum Signing: String, Sendable, Codable, CaseIterable {
        case right, wrong, none
    }

    public var data: String
    /// Seconds; nil sends no `TTL` header (refused, as FCM refuses it).
    public var ttl: Int64?
    public var topic: String?
    public var urgency: String?
    public var encoding: ContentEncoding
    public var vapid: Signing
    /// The body changed after it was encrypted: the browser cannot decrypt it.
    public var brokenBody: Bool

    public init(
        data: String, ttl: Int64? = PushService.maxTTL, topic: String? = nil, urgency: String? = nil,
        encoding: ContentEncoding = .aes128gcm, vapid: Signing = .right, brokenBody: Bool = false
    ) {
        self.data = data
        self.ttl = ttl
        self.topic = topic
        self.urgency = urgency
        self.encoding = encoding
        self.vapid = vapid
        self.brokenBody = brokenBody
    }
}
