import Crypto
import FCMJSON

/// The keys a browser makes when it subscribes to push: a P-256 key pair for ECDH
/// (its public half is the subscription's `p256dh`) and a 16-byte `auth` secret.
/// Made from bytes the caller draws, so that a seeded phone makes the same keys
/// every time.
public struct BrowserKeys: Sendable {
    public let privateKey: P256.KeyAgreement.PrivateKey
    public let authSecret: [UInt8]

    /// The keys from 32 bytes of private scalar and 16 of auth secret; nil when the
    /// scalar is not a valid P-256 private key (zero, or not below the group order:
    /// draw again).
    public init?(scalar: [UInt8], authSecret: [UInt8]) {
        guard scalar.count == 32, authSecret.count == 16,
            let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: scalar)
        else { return nil }
        privateKey = key
        self.authSecret = authSecret
    }

    /// The public key, uncompressed (65 bytes, `0x04 ‖ X ‖ Y`), as `p256dh` carries it.
    public var publicKey: [UInt8] { Array(privateKey.publicKey.x963Representation) }

    /// `p256dh` as a subscription's `toJSON()` writes it: base64url, no padding.
    public var p256dh: String { Base64URL.encode(publicKey) }

    /// `auth` as a subscription's `toJSON()` writes it.
    public var auth: String { Base64URL.encode(authSecret) }
}
