import Crypto
import FCMJSON
import FCMWebPush
import Testing

@Suite("Web Push encryption")
struct WebPushCipherTests {
    /// RFC 8291 Appendix A: every value of its worked example.
    enum Example {
        static let plaintext = "When I grow up, I want to be a watermelon"
        static let appServerPrivate = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"
        static let browserPrivate = "q1dXpw3UpT5VOmu_cf_v6ih07Aems3njxI-JWgLcM94"
        static let browserPublic =
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
        static let salt = "DGv6ra1nlYgDCS1FRnbzlw"
        static let auth = "BTBZMqHH6r4Tts7J_aSIgg"
        static let body =
            "DGv6ra1nlYgDCS1FRnbzlwAAEABBBP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8w"
            + "EqKK6PBru3jl7A_yl95bQpu6cVPTpK4Mqgkf1CXztLVBSt2Ks3oZwbuwXPXLWyouBWLVWGNWQexSgSxsj_Qulcy4a-fN"

        static func bytes(_ text: String) -> [UInt8] { Base64URL.decode(text)! }
        static var keys: BrowserKeys { BrowserKeys(scalar: bytes(browserPrivate), authSecret: bytes(auth))! }
    }

    @Test("the browser decrypts RFC 8291's example to its plaintext")
    func decryptsTheRFCExample() throws {
        #expect(Example.keys.p256dh == Example.browserPublic)
        let plaintext = try WebPushCipher.decrypt(aes128gcm: Example.bytes(Example.body), keys: Example.keys)
        #expect(String(decoding: plaintext, as: UTF8.self) == Example.plaintext)
    }

    @Test("an app server's encryption of RFC 8291's example is its body, byte for byte")
    func encryptsTheRFCExample() throws {
        let sealed = try WebPushCipher.encrypt(
            Array(Example.plaintext.utf8), encoding: .aes128gcm, to: Example.keys.publicKey,
            auth: Example.keys.authSecret,
            senderKey: P256.KeyAgreement.PrivateKey(rawRepresentation: Example.bytes(Example.appServerPrivate)),
            salt: Example.bytes(Example.salt))
        #expect(Base64URL.encode(sealed.body) == Example.body)
    }

    @Test("aesgcm goes both ways, padded or not, its salt and key in the headers")
    func aesgcmRoundTrips() throws {
        for padding in [0, 7] {
            let sender = P256.KeyAgreement.PrivateKey()
            let sealed = try WebPushCipher.encrypt(
                Array("ping".utf8), encoding: .aesgcm, to: Example.keys.publicKey, auth: Example.keys.authSecret,
                senderKey: sender, salt: Array(repeating: 9, count: 16), padding: padding)
            let plaintext = try WebPushCipher.decrypt(
                aesgcm: sealed.body, encryption: sealed.encryption, cryptoKey: sealed.cryptoKey, keys: Example.keys)
            #expect(plaintext == Array("ping".utf8))
        }
    }

    @Test("a body for other keys, a body cut short and a missing header each fail, saying why")
    func failuresSayWhy() throws {
        var body = Example.bytes(Example.body)
        body[body.count - 1] ^= 1
        #expect(throws: DecryptionFailure.self) { try WebPushCipher.decrypt(aes128gcm: body, keys: Example.keys) }
        let other = BrowserKeys(scalar: Array(repeating: 7, count: 32), authSecret: Example.bytes(Example.auth))!
        do {
            _ = try WebPushCipher.decrypt(aes128gcm: Example.bytes(Example.body), keys: other)
            Issue.record("decrypted with another browser's keys")
        } catch {
            #expect(error.reason.contains("not encrypted to this subscription"))
        }
        do {
            _ = try WebPushCipher.decrypt(aes128gcm: Array(body.prefix(10)), keys: Example.keys)
            Issue.record("decrypted a body of 10 bytes")
        } catch {
            #expect(error.reason.contains("shorter than aes128gcm's header"))
        }
        do {
            _ = try WebPushCipher.decrypt(aesgcm: [1, 2, 3], encryption: nil, cryptoKey: "dh=AAAA", keys: other)
            Issue.record("aesgcm without a salt")
        } catch {
            #expect(error.reason == "aesgcm needs an Encryption header with salt=…")
        }
    }

    @Test("base64url reads both alphabets, with or without padding, and refuses what is not base64")
    func base64URL() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("+/8=") == [0xFB, 0xFF])
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("ab$d") == nil)
        for count in 0..<8 {
            let bytes = (0..<count).map { UInt8($0 * 37 & 0xFF) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }
}

@Suite("VAPID")
struct VAPIDTests {
    static let key = P256.Signing.PrivateKey()

    @Test("both header forms are read: vapid t=,k= and WebPush with Crypto-Key p256ecdsa, ; or , between values")
    func bothForms() throws {
        let signed = try VAPIDCredentials.signed(audience: "http://127.0.0.1:1", expires: 2_000_000_000, key: Self.key)
        #expect(VAPIDCredentials.read(authorization: signed.authorization, cryptoKey: nil) == .vapid(signed))
        let old = VAPIDCredentials.read(
            authorization: "WebPush \(signed.token)", cryptoKey: "dh=BAAA;p256ecdsa=\(signed.key)")
        #expect(old == .vapid(VAPIDCredentials(token: signed.token, key: signed.key, scheme: "WebPush")))
        #expect(VAPIDCredentials.read(authorization: "key=AIza", cryptoKey: nil) == .serverKey)
        #expect(VAPIDCredentials.read(authorization: nil, cryptoKey: nil) == .none)
        guard case .unreadable = VAPIDCredentials.read(authorization: "WebPush \(signed.token)", cryptoKey: nil)
        else {
            Issue.record("WebPush without p256ecdsa was read")
            return
        }
    }

    @Test("a JWT's claims are read when its key signed it, and refused when another did")
    func signatures() throws {
        let signed = try VAPIDCredentials.signed(audience: "https://fcm.googleapis.com", expires: 42, key: Self.key)
        let claims = try signed.verifiedClaims().get()
        #expect(claims.audience == "https://fcm.googleapis.com" && claims.expires == 42)
        let forged = VAPIDCredentials(
            token: signed.token, key: Base64URL.encode(P256.Signing.PrivateKey().publicKey.x963Representation),
            scheme: "vapid")
        #expect(forged.verifiedClaims() == .failure(.badSignature))
        let garbled = VAPIDCredentials(token: "a.b", key: signed.key, scheme: "vapid")
        guard case .failure(.badToken) = garbled.verifiedClaims() else {
            Issue.record("a.b was read")
            return
        }
    }
}
