/// Makes registration tokens shaped like the real ones.
///
/// FCM: `<11-character instance id>:APA91b<140 characters>` (152 in all), the
/// instance id shared by every sender of one installation. GCM: `APA91b` followed
/// by 134 characters (140 in all). Characters come from the URL-safe base64 set.
public struct TokenFactory: Sendable, Codable {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    public static let fcmLength = 152
    public static let gcmLength = 140

    let seed: UInt64
    let sdk: SDK

    public init(seed: UInt64, sdk: SDK) {
        self.seed = seed
        self.sdk = sdk
    }

    /// The instance id of the n-th installation.
    public func instanceID(installation: Int) -> String {
        var rng = SeededGenerator(seed: seed ^ 0x1D5E_EDF0_0D ^ UInt64(installation) &* 0x100_0193)
        return Self.randomString(length: 11, using: &rng)
    }

    /// The token of `sender` in the n-th installation after `refreshes` refreshes.
    public func token(sender: String, installation: Int, refreshes: Int) -> String {
        let mix = SeededGenerator.stableHash(sender) ^ (UInt64(installation) << 32) ^ UInt64(refreshes)
        var rng = SeededGenerator(seed: seed &+ mix &* 0x2545_F491_4F6C_DD1D)
        switch sdk {
        case .fcm:
            let body = Self.randomString(length: Self.fcmLength - 18, using: &rng)
            return instanceID(installation: installation) + ":APA91b" + body
        case .gcm:
            return "APA91b" + Self.randomString(length: Self.gcmLength - 6, using: &rng)
        }
    }

    static func randomString(length: Int, using rng: inout SeededGenerator) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(length)
        for _ in 0..<length {
            bytes.append(alphabet[Int(rng.next() & 63)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a string could be a registration token at all (shape only).
    public static func isWellFormed(_ token: String) -> Bool {
        guard token.utf8.count >= 100, token.utf8.count <= 4096 else { return false }
        return token.utf8.allSatisfy { byte in
            alphabet.contains(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "=")
        }
    }
}
