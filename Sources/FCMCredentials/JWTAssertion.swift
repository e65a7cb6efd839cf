import FCMJSON
import Foundation

/// An OAuth2 JWT-bearer assertion (RFC 7523) as google-auth signs it, checked
/// against the emulator's service-account key.
public struct JWTAssertion: Equatable, Sendable {
    /// The project of the signing service account (from `iss`).
    public var project: String
    public var expires: Date
    /// The signing account (`iss`).
    public var account = ""
    /// When the key was not the emulator's own: its id (`kid`, or "none"). Its
    /// signature could not be checked.
    public var unverifiedKey: String?

    /// Audiences accepted: Google's token URLs (SDKs sign for those even when
    /// `token_uri` points here) or any URL ending in `/token`.
    static let googleAudiences = ["https://oauth2.googleapis.com/token", "https://www.googleapis.com/oauth2/v4/token"]
    /// Clock difference tolerated between signer and emulator.
    static let skew: TimeInterval = 300

    /// Verifies the assertion; the error is the `error_description` to return.
    /// With `strict` false, an assertion signed by another key (a real project's
    /// service account) is taken when it is otherwise sound, marked unverified: the
    /// emulator cannot know Google's keys.
    public static func verify(_ assertion: String, key: ServiceAccountKey, now: Date, strict: Bool = true) -> Result<
        JWTAssertion, GrantError
    > {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64URL.decode(parts[0]).map({ Data($0) }),
            let claimsData = Base64URL.decode(parts[1]).map({ Data($0) }),
            let signature = Base64URL.decode(parts[2]).map({ Data($0) }),
            let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
        else { return .failure(.invalidGrant("Invalid JWT: the assertion is not a signed JWT")) }
        guard header["alg"] as? String == "RS256" else {
            return .failure(.invalidGrant("Invalid JWT: alg must be RS256"))
        }
        var unverifiedKey: String?
        let kid = header["kid"] as? String
        // A key id is public (the service-account file and every JWT header carry it):
        // compared plainly; the signature is what is verified.
        if let kid, kid != key.keyID {
            guard strict else { return claimsOf(claims, now: now, unverifiedKey: kid, signature: signature) }
            return .failure(
                .invalidGrant(
                    "Invalid JWT Signature: key \(kid) was not issued by this emulator (--verify-credentials). The "
                        + "service-account file was made for another state folder (or comes from a real project): "
                        + "make it with `fcm-device credentials --state FOLDER`, FOLDER being the one serve or tui "
                        + "runs with, or start the emulator without --verify-credentials"))
        }
        if !key.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)) {
            guard !strict, kid == nil else { return .failure(.invalidGrant("Invalid JWT Signature.")) }
            unverifiedKey = "none"
        }
        return claimsOf(claims, now: now, unverifiedKey: unverifiedKey, signature: signature)
    }

    /// The claims' checks, the same for every key.
    static func claimsOf(_ claims: [String: Any], now: Date, unverifiedKey: String?, signature: Data) -> Result<
        JWTAssertion, GrantError
    > {
        // An RS256 signature is as long as the key's modulus: 1024 bits or more.
        guard signature.count >= 128 else { return .failure(.invalidGrant("Invalid JWT Signature.")) }
        guard let issuer = claims["iss"] as? String, let project = ServiceAccountKey.project(ofClientEmail: issuer)
        else {
            return .failure(
                .invalidGrant("Invalid JWT: iss must be a service account address (…@PROJECT.iam.gserviceaccount.com)"))
        }
        guard let audience = claims["aud"] as? String,
            googleAudiences.contains(audience) || audience.hasSuffix("/token")
        else { return .failure(.invalidGrant("Invalid JWT: aud must be the token URL")) }
        guard let issued = (claims["iat"] as? NSNumber)?.doubleValue,
            let expiry = (claims["exp"] as? NSNumber)?.doubleValue
        else { return .failure(.invalidGrant("Invalid JWT: iat and exp are required")) }
        let now = now.timeIntervalSince1970
        guard issued <= now + skew, expiry > now - skew else {
            return .failure(
                .invalidGrant(
                    "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim."
                ))
        }
        guard expiry - issued <= 3_600 + skew else {
            return .failure(.invalidGrant("Invalid JWT: exp may be at most 60 minutes after iat"))
        }
        let scopes = (claims["scope"] as? String)?.split(separator: " ").map(String.init) ?? []
        guard scopes.contains(where: AccessTokens.messagingScopes.contains) else {
            return .failure(
                .invalidScope(
                    "the assertion asks for no scope that allows sending: https://www.googleapis.com/auth/firebase.messaging or …/cloud-platform"
                ))
        }
        var verified = JWTAssertion(project: project, expires: Date(timeIntervalSince1970: expiry))
        verified.account = issuer
        verified.unverifiedKey = unverifiedKey
        return .success(verified)
    }
}

/// An OAuth2 token endpoint error (RFC 6749 §5.2).
public struct GrantError: Error, Equatable, Sendable {
    public var code: String
    public var description: String

    public init(code: String, description: String) {
        self.code = code
        self.description = description
    }

    public static func invalidGrant(_ text: String) -> GrantError {
        GrantError(code: "invalid_grant", description: text)
    }
    public static func invalidScope(_ text: String) -> GrantError {
        GrantError(code: "invalid_scope", description: text)
    }
}

extension JWTAssertion {
    /// A signed assertion for `project`'s service account, as google-auth makes one:
    /// RS256, the key's id as `kid`, Google's token URL as `aud`, valid for an hour.
    public static func make(
        key: ServiceAccountKey, project: String, now: Date,
        scope: String = "https://www.googleapis.com/auth/firebase.messaging"
    ) throws -> String {
        let issued = Int(now.timeIntervalSince1970)
        let header = JSONValue.members(["alg": .string("RS256"), "typ": .string("JWT"), "kid": .string(key.keyID)])
        let claims = JSONValue.members([
            "iss": .string(ServiceAccountKey.clientEmail(project: project)), "scope": .string(scope),
            "aud": .string(googleAudiences[0]), "iat": .int(issued), "exp": .int(issued + 3_600),
        ])
        let signed = Base64URL.encode(Array(header.json.utf8)) + "." + Base64URL.encode(Array(claims.json.utf8))
        return signed + "." + Base64URL.encode(try key.sign(Data(signed.utf8)))
    }
}
