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
        var rng = instanceGenerator(installation)
        return Self.randomString(length: 11, using: &rng)
    }

    /// The token of `sender` in the n-th installation after `refreshes` refreshes,
    /// written in one buffer (a fleet of a million makes a million at start).
    public func token(sender: String, installation: Int, refreshes: Int) -> String {
        let mix = SeededGenerator.stableHash(sender) ^ (UInt64(installation) << 32) ^ UInt64(refreshes)
        var rng = SeededGenerator(seed: seed &+ mix &* 0x2545_F491_4F6C_DD1D)
        switch sdk {
        case .fcm:
            return Self.string(length: Self.fcmLength) { text in
                var id = instanceGenerator(installation)
                text.append(randomCharacters: 11, using: &id)
                text.append(ascii: ":APA91b")
                text.append(randomCharacters: Self.fcmLength - 18, using: &rng)
            }
        case .gcm:
            return Self.string(length: Self.gcmLength) { text in
                text.append(ascii: "APA91b")
                text.append(randomCharacters: Self.gcmLength - 6, using: &rng)
            }
        }
    }

    static func randomString(length: Int, using rng: inout SeededGenerator) -> String {
        string(length: length) { $0.append(randomCharacters: length, using: &rng) }
    }

    func instanceGenerator(_ installation: Int) -> SeededGenerator {
        SeededGenerator(seed: seed ^ 0x1D5E_EDF0_0D ^ UInt64(installation) &* 0x100_0193)
    }

    /// A string of `length` ASCII bytes, as `write` puts them.
    static func string(length: Int, _ write: (inout TokenText) -> Void) -> String {
        String(unsafeUninitializedCapacity: length) { buffer in
            var text = TokenText(buffer: buffer)
            write(&text)
            precondition(text.count == length, "a token of \(text.count) characters, not \(length)")
            return text.count
        }
    }

    /// The bytes of a token being written.
    struct TokenText {
        let buffer: UnsafeMutableBufferPointer<UInt8>
        var count = 0

        mutating func append(ascii text: StaticString) {
            text.withUTF8Buffer { bytes in
                for byte in bytes { append(byte) }
            }
        }

        /// `length` characters from the URL-safe base64 set, one per number drawn.
        mutating func append(randomCharacters length: Int, using rng: inout SeededGenerator) {
            TokenFactory.alphabet.withUnsafeBufferPointer { alphabet in
                for _ in 0..<length { append(alphabet[Int(rng.next() & 63)]) }
            }
        }

        mutating func append(_ byte: UInt8) {
            precondition(count < buffer.count, "a token longer than it was made for")
            buffer[count] = byte
            count += 1
        }
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
