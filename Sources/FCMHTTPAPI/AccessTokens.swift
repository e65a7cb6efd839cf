import Crypto
import Foundation

/// The bearer tokens the token endpoint has issued. Tokens are random (system
/// CSPRNG) and kept only as SHA-256 digests, looked up by digest.
public final class AccessTokens: @unchecked Sendable {
    /// Scopes that allow sending messages.
    public static let messagingScopes: Set<String> = [
        "https://www.googleapis.com/auth/firebase.messaging", "https://www.googleapis.com/auth/cloud-platform",
    ]
    /// Lifetime of a token, in seconds, as Google's (3599 reported).
    public static let lifetime: TimeInterval = 3_600

    struct Grant {
        var project: String
        var expires: Date
    }

    private let lock = NSLock()
    private var grants: [SHA256.Digest: Grant] = [:]

    public init() {}

    /// Issues a token for `project`, valid from `now` for an hour.
    public func issue(project: String, now: Date) -> String {
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        let token = "ya29.fcmdevice." + Base64URL.encode(bytes)
        lock.lock()
        defer { lock.unlock() }
        // Forget tokens that expired more than a day ago.
        grants = grants.filter { $0.value.expires > now.addingTimeInterval(-86_400) }
        grants[SHA256.hash(data: Data(token.utf8))] = Grant(project: project, expires: now + Self.lifetime)
        return token
    }

    public enum Check: Equatable, Sendable {
        case valid(project: String)
        case expired
        case unknown
    }

    public func check(_ token: String, now: Date) -> Check {
        let digest = SHA256.hash(data: Data(token.utf8))
        lock.lock()
        let grant = grants[digest]
        lock.unlock()
        guard let grant else { return .unknown }
        return grant.expires > now ? .valid(project: grant.project) : .expired
    }
}
