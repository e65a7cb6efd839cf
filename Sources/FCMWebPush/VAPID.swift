import Crypto
import FCMJSON
import Foundation

/// An app server's VAPID credentials (RFC 8292) as a Web Push request carries them:
/// `Authorization: vapid t=<JWT>, k=<key>`, or the older `Authorization: WebPush
/// <JWT>` with the key in `Crypto-Key: p256ecdsa=<key>`.
public struct VAPIDCredentials: Sendable, Equatable {
    /// The signed JWT (`header.claims.signature`).
    public var token: String
    /// The app server's public key as sent (base64url of the uncompressed P-256 point).
    public var key: String
    /// `vapid` or `WebPush` (the header's scheme as written).
    public var scheme: String

    public init(token: String, key: String, scheme: String) {
        self.token = token
        self.key = key
        self.scheme = scheme
    }

    /// What a request's `Authorization` says about who sends it.
    public enum Reading: Sendable, Equatable {
        /// No `Authorization` at all.
        case none
        /// `Authorization: key=…`: a server key, as before June 2024.
        case serverKey
        /// VAPID credentials, not yet checked.
        case vapid(VAPIDCredentials)
        /// An `Authorization` this service cannot read, and why.
        case unreadable(String)

        /// The credentials, when they are VAPID's.
        public var credentials: VAPIDCredentials? {
            if case .vapid(let credentials) = self { credentials } else { nil }
        }
    }

    /// Reads `Authorization` (and `Crypto-Key` for the older form).
    public static func read(authorization: String?, cryptoKey: String?) -> Reading {
        guard let authorization = authorization?.trimmingSpaces, !authorization.isEmpty else { return .none }
        let space = authorization.firstIndex(of: " ")
        let scheme = space.map { String(authorization[..<$0]) } ?? authorization
        let rest = space.map { authorization[authorization.index(after: $0)...].trimmingSpaces } ?? ""
        switch scheme.lowercased() {
        case "vapid":
            let parameters = HeaderParameters(rest)
            guard let token = parameters["t"], let key = parameters["k"] else {
                return .unreadable("a vapid Authorization needs both t=<JWT> and k=<public key>")
            }
            return .vapid(VAPIDCredentials(token: token, key: key, scheme: scheme))
        case "webpush", "bearer":
            guard !rest.isEmpty else { return .unreadable("\(scheme) Authorization has no JWT") }
            guard let key = HeaderParameters(cryptoKey)["p256ecdsa"] else {
                return .unreadable("a \(scheme) Authorization needs the key in Crypto-Key: p256ecdsa=<public key>")
            }
            return .vapid(VAPIDCredentials(token: rest, key: key, scheme: scheme))
        default:
            if authorization.lowercased().hasPrefix("key=") { return .serverKey }
            return .unreadable("the Authorization scheme \(scheme) is not vapid or WebPush")
        }
    }

    /// The claims a JWT carries, read after its signature was checked.
    public struct Claims: Sendable, Equatable {
        public var audience: String?
        public var expires: Int64?
        public var subject: String?
    }

    /// The key's bytes, or nil when `key` is not base64url of a P-256 point.
    public var keyBytes: [UInt8]? {
        guard let bytes = Base64URL.decode(key), (try? P256.Signing.PublicKey(x963Representation: bytes)) != nil
        else { return nil }
        return bytes
    }

    /// The JWT's claims when it is an ES256 JWT signed by `key`; else what is wrong.
    public func verifiedClaims() -> Result<Claims, VAPIDProblem> {
        guard let keyBytes, let publicKey = try? P256.Signing.PublicKey(x963Representation: keyBytes) else {
            return .failure(.badKey("the VAPID public key is not a P-256 point in base64url (65 bytes, uncompressed)"))
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
            let claimBytes = Base64URL.decode(parts[1]), let signature = Base64URL.decode(parts[2]),
            let header = (try? JSONParser.parse(headerBytes))?.object,
            let claims = (try? JSONParser.parse(claimBytes))?.object
        else { return .failure(.badToken("the VAPID token is not a JWT (three base64url parts, JSON inside)")) }
        guard header["alg"]?.string == "ES256" else {
            return .failure(.badToken("the VAPID JWT's alg is \(header["alg"]?.text ?? "missing"), not ES256"))
        }
        guard signature.count == 64, let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            publicKey.isValidSignature(ecdsa, for: Array((parts[0] + "." + parts[1]).utf8))
        else { return .failure(.badSignature) }
        return .success(
            Claims(audience: claims["aud"]?.string, expires: claims["exp"]?.int64, subject: claims["sub"]?.string))
    }

    /// Credentials signed by `key` for `claims` (tests, and an app server the
    /// emulator plays).
    public static func signed(
        audience: String, expires: Int64, subject: String = "mailto:dev@example.com",
        key: P256.Signing.PrivateKey
    ) throws -> VAPIDCredentials {
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256"}"#.utf8))
        let body = JSONValue.members([
            "aud": .string(audience), "exp": .int(expires), "sub": .string(subject),
        ])
        let claims = Base64URL.encode(Array(body.json.utf8))
        let signature = try key.signature(for: Array((header + "." + claims).utf8))
        return VAPIDCredentials(
            token: header + "." + claims + "." + Base64URL.encode(signature.rawRepresentation),
            key: Base64URL.encode(key.publicKey.x963Representation), scheme: "vapid")
    }

    /// The `Authorization` header's value in this form.
    public var authorization: String {
        scheme.lowercased() == "vapid" ? "vapid t=\(token), k=\(key)" : "\(scheme) \(token)"
    }
}

/// Why VAPID credentials were not taken.
public enum VAPIDProblem: Error, Sendable, Equatable {
    case badKey(String)
    case badToken(String)
    case badSignature

    public var detail: String {
        switch self {
        case .badKey(let detail), .badToken(let detail): detail
        case .badSignature: "the VAPID JWT's signature is not the key's (k): it was signed by another key"
        }
    }
}
