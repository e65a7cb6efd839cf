import Crypto
import FCMJSON
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

    /// One issued token, as kept: the digest of the token, never the token.
    public struct Grant: Sendable, Equatable {
        public var digest: Data
        public var project: String
        public var expires: Date

        public init(digest: Data, project: String, expires: Date) {
            self.digest = digest
            self.project = project
            self.expires = expires
        }
    }

    private let lock = NSLock()
    private var grants: [Data: Grant] = [:]
    private let onIssue: (@Sendable (Grant) -> Void)?

    /// `saved` grants are honoured as if issued here (a restarted emulator);
    /// `onIssue` hears of each new one before its token is handed out.
    public init(saved: [Grant] = [], onIssue: (@Sendable (Grant) -> Void)? = nil) {
        self.onIssue = onIssue
        for grant in saved { grants[grant.digest] = grant }
    }

    /// Issues a token for `project`, valid from `now` for an hour.
    public func issue(project: String, now: Date) -> String {
        var random = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        let token = "ya29.fcmdevice." + Base64URL.encode(bytes)
        let grant = Grant(digest: Self.digest(token), project: project, expires: now + Self.lifetime)
        lock.lock()
        // Forget tokens that expired more than a day ago.
        grants = grants.filter { $0.value.expires > now.addingTimeInterval(-86_400) }
        grants[grant.digest] = grant
        lock.unlock()
        onIssue?(grant)
        return token
    }

    public enum Check: Equatable, Sendable {
        case valid(project: String)
        case expired
        case unknown
    }

    public func check(_ token: String, now: Date) -> Check {
        let digest = Self.digest(token)
        lock.lock()
        let grant = grants[digest]
        lock.unlock()
        guard let grant else { return .unknown }
        return grant.expires > now ? .valid(project: grant.project) : .expired
    }

    /// SHA-256 of the token's UTF-8, read in place (every v1 send is checked here).
    static func digest(_ token: String) -> Data {
        var token = token
        return token.withUTF8 { Data(SHA256.hash(data: UnsafeRawBufferPointer($0))) }
    }
}
