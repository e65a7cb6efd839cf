import Crypto
import FCMJSON
import Foundation

/// Web Push message encryption (RFC 8291) in its two encodings, both ways: a browser
/// decrypts with its own keys; an app server (a test, the emulator's own) encrypts
/// to a subscription.
public enum WebPushCipher {
    /// The largest body a push service takes (RFC 8030 §7.2): 4,096 bytes.
    public static let maxBody = 4_096
    /// The aes128gcm header before the key id: salt (16), rs (4), idlen (1).
    static let headerBytes = 21
    static let tagBytes = 16

    /// What an app server's encryption put in the request beside the body.
    public struct Sealed: Sendable, Equatable {
        public var body: [UInt8]
        /// `Encryption: salt=…` (aesgcm only).
        public var encryption: String?
        /// `Crypto-Key: dh=…` (aesgcm only).
        public var cryptoKey: String?
    }

    // MARK: Decrypting, as the browser does

    /// The plaintext of an `aes128gcm` body (RFC 8188 records, RFC 8291 keys).
    public static func decrypt(aes128gcm body: [UInt8], keys: BrowserKeys) throws(DecryptionFailure) -> [UInt8] {
        guard body.count >= headerBytes else {
            throw DecryptionFailure(
                "the body is \(body.count) bytes, shorter than aes128gcm's header (salt, rs and key id length: "
                    + "21 bytes)")
        }
        let salt = Array(body[0..<16])
        let recordSize = body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let idLength = Int(body[20])
        guard recordSize >= 18 else {
            throw DecryptionFailure("the header's record size rs=\(recordSize) is under aes128gcm's least (18)")
        }
        guard body.count >= headerBytes + idLength else {
            throw DecryptionFailure("the header's key id (\(idLength) bytes) runs past the body's end")
        }
        let keyID = Array(body[headerBytes..<headerBytes + idLength])
        guard idLength == 65 else {
            throw DecryptionFailure(
                "the header's key id is \(idLength) bytes; Web Push puts the app server's P-256 public key there "
                    + "(65 bytes, uncompressed)")
        }
        guard let senderKey = try? P256.KeyAgreement.PublicKey(x963Representation: keyID) else {
            throw DecryptionFailure("the header's key id is 65 bytes but not a point on P-256")
        }
        let secret = try sharedSecret(keys, senderKey)
        let info = Array("WebPush: info\0".utf8) + keys.publicKey + keyID
        let ikm = hkdf(salt: keys.authSecret, ikm: secret, info: info, count: 32)
        let cek = hkdf(salt: salt, ikm: ikm, info: Array("Content-Encoding: aes128gcm\0".utf8), count: 16)
        let nonce = hkdf(salt: salt, ikm: ikm, info: Array("Content-Encoding: nonce\0".utf8), count: 12)
        let records = Array(body[(headerBytes + idLength)...])
        guard !records.isEmpty else { throw DecryptionFailure("the body has a header and no record") }
        guard records.count <= recordSize else {
            throw DecryptionFailure(
                "the body holds more than one record (\(records.count) bytes of records, rs=\(recordSize)): Web "
                    + "Push allows one (RFC 8291 §4)")
        }
        var plaintext: [UInt8] = []
        var start = 0
        var sequence: UInt64 = 0
        while start < records.count {
            let end = min(start + recordSize, records.count)
            let isLast = end == records.count
            var record = try open(Array(records[start..<end]), key: cek, nonce: nonce, sequence: sequence)
            // Padding: zeros after a delimiter, 2 on the last record, 1 on the others.
            while record.last == 0 { record.removeLast() }
            guard let delimiter = record.popLast() else {
                throw DecryptionFailure("record \(sequence + 1) has no padding delimiter")
            }
            guard delimiter == (isLast ? 2 : 1) else {
                throw DecryptionFailure(
                    "record \(sequence + 1)'s padding delimiter is \(delimiter), not \(isLast ? 2 : 1)"
                        + (isLast ? " (the last record's): the body was cut short" : ""))
            }
            plaintext += record
            start = end
            sequence += 1
        }
        return plaintext
    }

    /// The plaintext of an `aesgcm` body: its salt from `Encryption`, the app
    /// server's key from `Crypto-Key`'s `dh`.
    public static func decrypt(
        aesgcm body: [UInt8], encryption: String?, cryptoKey: String?, keys: BrowserKeys
    ) throws(DecryptionFailure) -> [UInt8] {
        let parameters = try aesgcmParameters(encryption: encryption, cryptoKey: cryptoKey)
        guard let senderKey = try? P256.KeyAgreement.PublicKey(x963Representation: parameters.dh) else {
            throw DecryptionFailure("Crypto-Key's dh is not a P-256 public key (65 bytes, uncompressed)")
        }
        let secret = try sharedSecret(keys, senderKey)
        let (cek, nonce) = aesgcmKeys(salt: parameters.salt, secret: secret, keys: keys, dh: parameters.dh)
        var plaintext: [UInt8] = []
        var start = 0
        var sequence: UInt64 = 0
        let recordSize = parameters.recordSize + tagBytes
        guard !body.isEmpty else { throw DecryptionFailure("the body is empty") }
        // The last record is shorter than a whole one: a body that ends on a whole record was cut.
        guard body.count % recordSize != 0 else {
            throw DecryptionFailure(
                "the last record is a whole record (rs=\(parameters.recordSize) and its tag): the message was cut "
                    + "short, or its rs is wrong")
        }
        while start < body.count {
            let end = min(start + recordSize, body.count)
            let record = try open(Array(body[start..<end]), key: cek, nonce: nonce, sequence: sequence)
            guard record.count >= 2 else { throw DecryptionFailure("record \(sequence + 1) has no padding length") }
            let padding = Int(record[0]) << 8 | Int(record[1])
            guard 2 + padding <= record.count, record[2..<2 + padding].allSatisfy({ $0 == 0 }) else {
                throw DecryptionFailure("record \(sequence + 1)'s padding is not \(padding) zero bytes")
            }
            plaintext += record[(2 + padding)...]
            start = end
            sequence += 1
        }
        return plaintext
    }

    /// The app server's key an aes128gcm body's header names (its key id), if it
    /// holds one of 65 bytes.
    public static func aes128gcmKeyID(_ body: [UInt8]) -> [UInt8]? {
        guard body.count >= headerBytes + 65, body[20] == 65 else { return nil }
        return Array(body[headerBytes..<headerBytes + 65])
    }

    /// The salt, the app server's key and the record size an aesgcm request names.
    public static func aesgcmParameters(encryption: String?, cryptoKey: String?) throws(DecryptionFailure) -> (
        salt: [UInt8], dh: [UInt8], recordSize: Int
    ) {
        let encryptionParameters = HeaderParameters(encryption)
        let keyParameters = HeaderParameters(cryptoKey)
        guard let saltText = encryptionParameters["salt"] else {
            throw DecryptionFailure("aesgcm needs an Encryption header with salt=…")
        }
        guard let salt = Base64URL.decode(saltText), salt.count == 16 else {
            throw DecryptionFailure("Encryption's salt is not 16 bytes of base64url")
        }
        guard let dhText = keyParameters["dh"] else {
            throw DecryptionFailure("aesgcm needs a Crypto-Key header with dh=…")
        }
        guard let dh = Base64URL.decode(dhText) else { throw DecryptionFailure("Crypto-Key's dh is not base64url") }
        var recordSize = 4_096
        if let rs = encryptionParameters["rs"] {
            guard let size = Int(rs), size > 1 else { throw DecryptionFailure("Encryption's rs=\(rs) is not a size") }
            recordSize = size
        }
        return (salt, dh, recordSize)
    }

    // MARK: Encrypting, as an app server does

    /// `plaintext` encrypted to a subscription (`p256dh`, `auth`) with the app
    /// server's ephemeral key and salt given (a test's or a seeded app server's).
    public static func encrypt(
        _ plaintext: [UInt8], encoding: ContentEncoding, to p256dh: [UInt8], auth: [UInt8],
        senderKey: P256.KeyAgreement.PrivateKey, salt: [UInt8], padding: Int = 0
    ) throws -> Sealed {
        let receiver = try P256.KeyAgreement.PublicKey(x963Representation: p256dh)
        let secret = try senderKey.sharedSecretFromKeyAgreement(with: receiver).withUnsafeBytes { Array($0) }
        let dh = Array(senderKey.publicKey.x963Representation)
        switch encoding {
        case .aes128gcm:
            let info = Array("WebPush: info\0".utf8) + p256dh + dh
            let ikm = hkdf(salt: auth, ikm: secret, info: info, count: 32)
            let cek = hkdf(salt: salt, ikm: ikm, info: Array("Content-Encoding: aes128gcm\0".utf8), count: 16)
            let nonce = hkdf(salt: salt, ikm: ikm, info: Array("Content-Encoding: nonce\0".utf8), count: 12)
            let record = try seal(plaintext + [2] + [UInt8](repeating: 0, count: padding), key: cek, nonce: nonce)
            let recordSize = UInt32(max(4_096, record.count))
            let header =
                salt + withUnsafeBytes(of: recordSize.bigEndian) { Array($0) } + [UInt8(dh.count)] + dh
            return Sealed(body: header + record)
        case .aesgcm:
            let keys = aesgcmKeys(salt: salt, secret: secret, receiver: p256dh, auth: auth, dh: dh)
            let padded = [UInt8(padding >> 8), UInt8(padding & 0xFF)] + [UInt8](repeating: 0, count: padding)
            let record = try seal(padded + plaintext, key: keys.cek, nonce: keys.nonce)
            return Sealed(
                body: record, encryption: "salt=" + Base64URL.encode(salt), cryptoKey: "dh=" + Base64URL.encode(dh))
        }
    }

    /// A sender key agreed once with a subscription's `p256dh`: its public half and the
    /// shared secret. What a push service encrypts each message to a real client with
    /// (`aesgcm`, a fresh salt each time, which the encoding allows), sparing the two
    /// scalar multiplications a fresh key costs per message.
    public struct AgreedKey: Sendable, Equatable, Codable {
        public let senderPublic: [UInt8]
        public let secret: [UInt8]

        /// Nil when `senderScalar` is no P-256 key (draw again) or `p256dh` no public key.
        public init?(senderScalar: [UInt8], receiver p256dh: [UInt8]) {
            guard let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: senderScalar),
                let receiver = try? P256.KeyAgreement.PublicKey(x963Representation: p256dh),
                let secret = try? key.sharedSecretFromKeyAgreement(with: receiver)
            else { return nil }
            senderPublic = Array(key.publicKey.x963Representation)
            self.secret = secret.withUnsafeBytes { Array($0) }
        }
    }

    /// `plaintext` encrypted `aesgcm` with a key agreed beforehand, and `salt`.
    public static func encryptAESGCM(
        _ plaintext: [UInt8], with key: AgreedKey, to p256dh: [UInt8], auth: [UInt8], salt: [UInt8]
    ) -> Sealed? {
        let keys = aesgcmKeys(salt: salt, secret: key.secret, receiver: p256dh, auth: auth, dh: key.senderPublic)
        guard let record = try? seal([0, 0] + plaintext, key: keys.cek, nonce: keys.nonce) else { return nil }
        return Sealed(
            body: record, encryption: "salt=" + Base64URL.encode(salt),
            cryptoKey: "dh=" + Base64URL.encode(key.senderPublic))
    }

    /// Whether `bytes` are a P-256 public key (uncompressed, on the curve): what a
    /// subscription's `p256dh` must be for anything to be encrypted to it.
    public static func isPublicKey(_ bytes: [UInt8]) -> Bool {
        bytes.count == 65 && (try? P256.KeyAgreement.PublicKey(x963Representation: bytes)) != nil
    }

    /// `encrypt` with the app server's ephemeral key given as its 32-byte scalar (a
    /// seeded app server's draw); nil when the scalar is no P-256 key (draw again).
    public static func encrypt(
        _ plaintext: [UInt8], encoding: ContentEncoding, to p256dh: [UInt8], auth: [UInt8], senderScalar: [UInt8],
        salt: [UInt8]
    ) -> Sealed? {
        guard let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: senderScalar) else { return nil }
        return try? encrypt(plaintext, encoding: encoding, to: p256dh, auth: auth, senderKey: key, salt: salt)
    }

    // MARK: The parts both ways share

    static func sharedSecret(_ keys: BrowserKeys, _ senderKey: P256.KeyAgreement.PublicKey) throws(DecryptionFailure)
        -> [UInt8]
    {
        guard let secret = try? keys.privateKey.sharedSecretFromKeyAgreement(with: senderKey) else {
            throw DecryptionFailure("no shared secret with the app server's key")
        }
        return secret.withUnsafeBytes { Array($0) }
    }

    static func aesgcmKeys(salt: [UInt8], secret: [UInt8], keys: BrowserKeys, dh: [UInt8]) -> (
        cek: [UInt8], nonce: [UInt8]
    ) {
        aesgcmKeys(salt: salt, secret: secret, receiver: keys.publicKey, auth: keys.authSecret, dh: dh)
    }

    /// The draft's keys: the auth secret mixed in first, then a context naming both keys.
    static func aesgcmKeys(salt: [UInt8], secret: [UInt8], receiver: [UInt8], auth: [UInt8], dh: [UInt8]) -> (
        cek: [UInt8], nonce: [UInt8]
    ) {
        let ikm = hkdf(salt: auth, ikm: secret, info: Array("Content-Encoding: auth\0".utf8), count: 32)
        func length(_ key: [UInt8]) -> [UInt8] { [UInt8(key.count >> 8), UInt8(key.count & 0xFF)] }
        let context = Array("P-256\0".utf8) + length(receiver) + receiver + length(dh) + dh
        let cek = hkdf(salt: salt, ikm: ikm, info: Array("Content-Encoding: aesgcm\0".utf8) + context, count: 16)
        let nonce = hkdf(salt: salt, ikm: ikm, info: Array("Content-Encoding: nonce\0".utf8) + context, count: 12)
        return (cek, nonce)
    }

    static func hkdf(salt: [UInt8], ikm: [UInt8], info: [UInt8], count: Int) -> [UInt8] {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: ikm), salt: salt, info: info, outputByteCount: count
        ).withUnsafeBytes { Array($0) }
    }

    /// The nonce of record `sequence`: the base nonce with the sequence number
    /// XORed into its last bytes (big-endian).
    static func nonce(_ base: [UInt8], _ sequence: UInt64) -> [UInt8] {
        var nonce = base
        for index in 0..<8 { nonce[11 - index] ^= UInt8(truncatingIfNeeded: sequence >> (8 * UInt64(index))) }
        return nonce
    }

    static func open(_ record: [UInt8], key: [UInt8], nonce base: [UInt8], sequence: UInt64) throws(DecryptionFailure)
        -> [UInt8]
    {
        guard record.count > tagBytes else {
            throw DecryptionFailure("record \(sequence + 1) is \(record.count) bytes, no longer than its tag")
        }
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: nonce(base, sequence)), ciphertext: record.dropLast(tagBytes),
                tag: record.suffix(tagBytes))
            return Array(try AES.GCM.open(box, using: SymmetricKey(data: key)))
        } catch {
            throw DecryptionFailure(
                "record \(sequence + 1) did not decrypt (its tag does not match): the body was not encrypted to "
                    + "this subscription's p256dh and auth, or was changed on the way")
        }
    }

    static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) throws -> [UInt8] {
        let box = try AES.GCM.seal(plaintext, using: SymmetricKey(data: key), nonce: AES.GCM.Nonce(data: nonce))
        return Array(box.ciphertext) + Array(box.tag)
    }
}
