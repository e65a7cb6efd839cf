import FCMJSON
import FCMWebPush

/// The push service's rules for a Web Push request's headers and credentials, in
/// the order it reads them; each refusal with its status and text (FCM's words
/// where they are known: shared/reference/web-push.md).
enum WebPushRules {
    /// The headers of a request taken: the TTL kept, its Topic, Urgency and encoding.
    struct Headers {
        var ttl: Int64
        var topic: String?
        var urgency: String?
        var encoding: ContentEncoding?
    }

    struct Problem: Error {
        var status: Int
        var text: String
    }

    static let urgencies = ["very-low", "low", "normal", "high"]

    /// RFC 8292 §3.2: the key that signs must not be the key that encrypts.
    static let sameKeys = Problem(
        status: 400,
        text: "The VAPID key and the encryption's key are the same key; RFC 8292 asks for two (sign with one, "
            + "encrypt with a new one for each message).")

    /// Why the push service refuses who sends (status, text, detail), or nil.
    static func authorizationProblem(
        _ reading: VAPIDCredentials.Reading, subscription: PushSubscription, origin: String, unixNow: Int64
    ) -> (Int, String, String?)? {
        switch reading {
        case .none:
            let detail =
                subscription.applicationServerKey == nil
                ? "the subscription was made with the FCM SDK's default key: only a getToken with your own "
                    + "vapidKey makes one your app server can sign for"
                : "sign with the VAPID key the subscription was made with"
            return (401, "authorization header must be specified.", detail)
        case .serverKey:
            return (
                401, "authorization header must be specified.",
                "Authorization: key=<server key> on a push endpoint was turned off in June 2024: sign with VAPID"
            )
        case .unreadable(let why):
            return (401, "authorization header must be specified.", why)
        case .vapid(let credentials):
            let claims: VAPIDCredentials.Claims
            switch credentials.verifiedClaims() {
            case .failure(let problem): return (403, problem.detail, nil)
            case .success(let read): claims = read
            }
            guard let key = subscription.applicationServerKey,
                Base64URL.decode(key) == credentials.keyBytes
            else {
                return (
                    403,
                    "the key in the authorization header does not correspond to the sender ID used to subscribe "
                        + "this user. Please ensure you are using the correct sender ID and server Key from the "
                        + "Firebase console.",
                    subscription.applicationServerKey == nil
                        ? "the subscription was made with the FCM SDK's default key" : nil
                )
            }
            guard claims.audience == origin else {
                return (
                    403,
                    "the VAPID JWT's aud is \(claims.audience.map { "\"\($0)\"" } ?? "missing"); it must be the "
                        + "push service's origin, \(origin)", nil
                )
            }
            guard let expires = claims.expires else { return (403, "the VAPID JWT has no exp", nil) }
            guard expires > unixNow else {
                return (403, "the VAPID JWT expired (exp \(expires), now \(unixNow))", nil)
            }
            guard expires <= unixNow + 86_400 else {
                return (403, "the VAPID JWT's exp is more than 24 hours ahead (exp \(expires), now \(unixNow))", nil)
            }
            return nil
        }
    }

    /// The built-in app server's signing, as its step says: the subscription's key
    /// passes (a subscription made with the SDK's default key takes none: nobody
    /// holds Firebase's key), another key or none are refused as any app server's.
    static func builtInProblem(_ signing: WebPushStep.Signing, subscription: PushSubscription) -> (
        Int, String, String?
    )? {
        switch signing {
        case .right where subscription.applicationServerKey != nil: nil
        case .none: authorizationProblem(.none, subscription: subscription, origin: "", unixNow: 0)
        case .right, .wrong:
            (
                403,
                "the key in the authorization header does not correspond to the sender ID used to subscribe "
                    + "this user. Please ensure you are using the correct sender ID and server Key from the "
                    + "Firebase console.",
                subscription.applicationServerKey == nil
                    ? "the subscription was made with the FCM SDK's default key: only a getToken with your own "
                        + "vapidKey makes one your app server can sign for" : "signed with another key on purpose"
            )
        }
    }

    /// The headers read, or the first refusal they earn.
    static func headers(_ request: WebPushRequest, body: [UInt8], reading: VAPIDCredentials.Reading) -> Result<
        Headers, Problem
    > {
        let bodyBytes = body.count
        let vapidKey: [UInt8]? = if case .vapid(let credentials) = reading { credentials.keyBytes } else { nil }
        guard let ttlText = request.ttl else {
            return .failure(Problem(status: 400, text: "The TTL header is required (RFC 8030 §5.2)."))
        }
        guard let ttl = Int64(ttlText.trimmingSpaces), ttl >= 0 else {
            return .failure(
                Problem(status: 400, text: "TTL must be a whole number of seconds, 0 or more; got \"\(ttlText)\"."))
        }
        if let topic = request.topic {
            guard topic.utf8.count <= 32, !topic.isEmpty, topic.utf8.allSatisfy(Base64URL.isInAlphabet) else {
                return .failure(
                    Problem(
                        status: 400,
                        text: "Topic must be at most 32 characters of the URL-safe base64 alphabet; got \"\(topic)\"."))
            }
        }
        if let urgency = request.urgency, !urgencies.contains(urgency.trimmingSpaces.lowercased()) {
            return .failure(
                Problem(
                    status: 400,
                    text: "Urgency must be very-low, low, normal or high; got \"\(urgency)\"."))
        }
        guard bodyBytes <= WebPushCipher.maxBody else {
            return .failure(
                Problem(
                    status: 413,
                    text: "Payload too large: the body is \(bodyBytes) bytes; a push message carries at most "
                        + "\(WebPushCipher.maxBody) (3,993 bytes of plaintext in aes128gcm)."))
        }
        var encoding: ContentEncoding?
        if bodyBytes > 0 {
            guard let header = request.contentEncoding else {
                return .failure(
                    Problem(
                        status: 400, text: "A body needs Content-Encoding: aes128gcm (or the older aesgcm)."))
            }
            guard let named = ContentEncoding(header: header) else {
                return .failure(
                    Problem(
                        status: 400,
                        text: "Content-Encoding \"\(header)\" is not aes128gcm or aesgcm."))
            }
            encoding = named
            if named == .aes128gcm, let vapidKey, WebPushCipher.aes128gcmKeyID(body) == vapidKey {
                return .failure(sameKeys)
            }
            if named == .aesgcm {
                do throws(DecryptionFailure) {
                    let parameters = try WebPushCipher.aesgcmParameters(
                        encryption: request.encryption, cryptoKey: request.cryptoKey)
                    if let vapidKey, vapidKey == parameters.dh { return .failure(sameKeys) }
                } catch {
                    return .failure(Problem(status: 400, text: error.reason + "."))
                }
            }
        }
        let urgency = request.urgency.map { $0.trimmingSpaces.lowercased() }
        return .success(
            Headers(ttl: min(ttl, PushService.maxTTL), topic: request.topic, urgency: urgency, encoding: encoding))
    }
}
