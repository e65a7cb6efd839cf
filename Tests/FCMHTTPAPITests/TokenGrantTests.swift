import FCMCredentials
import FCMEngine
import FCMHTTPAPI
import FCMHTTPPort
import Foundation
import Testing

@Suite("OAuth2 token endpoint and the service-account key")
struct TokenGrantTests {
    func grant(_ device: TestDevice, _ body: String) async throws -> (status: Int, json: [String: Any]) {
        let reply = await device.post(
            "/token", headers: ["Content-Type": "application/x-www-form-urlencoded"], body: body)
        return (reply.status, try JSON.object(reply.body))
    }

    @Test("a signed assertion gets a bearer token; aud may be Google's token URL or the emulator's")
    func grantsToken() async throws {
        let device = TestDevice()
        for audience in ["https://oauth2.googleapis.com/token", "http://127.0.0.1:8085/token"] {
            var assertion = Assertion(project: TestDevice.project, issuedAt: device.clock)
            assertion.audience = audience
            let (status, json) = try await grant(device, try assertion.formBody())
            #expect(status == 200)
            #expect(json["token_type"] as? String == "Bearer")
            #expect(json["expires_in"] as? Int == 3_599)
            #expect((json["access_token"] as? String)?.isEmpty == false)
        }
    }

    @Test("without --verify-credentials a real project's key is taken, unverified, and said so in an event")
    func foreignKeys() async throws {
        let device = TestDevice(verifyCredentials: false)
        var foreign = Assertion(project: TestDevice.project, issuedAt: device.clock)
        foreign.key = try ServiceAccountKey.generate()
        foreign.keyID = "real-project-key-1"
        let (status, json) = try await grant(device, try foreign.formBody())
        #expect(status == 200, "\(json)")
        let notice = try #require(device.events(named: "credentialsUnverified").first)
        #expect(notice.string("key") == "real-project-key-1")
        #expect(notice.string("account") == "fcm-device@demo-project.iam.gserviceaccount.com")
        // Its claims are checked as strictly as the emulator's own.
        var stale = foreign
        stale.issuedAt = device.clock - 7_200
        stale.lifetime = 3_600
        #expect(try await grant(device, try stale.formBody()).status == 400)
        var elsewhere = foreign
        elsewhere.project = "someone-else"
        let refused = try await grant(device, try elsewhere.formBody())
        #expect((refused.json["error_description"] as? String)?.contains("project: someone-else") == true)
        // The emulator's own key still verifies: no notice for it.
        #expect(
            try await grant(device, try Assertion(project: TestDevice.project, issuedAt: device.clock).formBody())
                .status == 200)
        #expect(device.events(named: "credentialsUnverified").count == 1)
    }

    @Test("google-auth's regional-access-boundary lookup is answered: no boundary")
    func allowedLocations() async {
        let device = TestDevice()
        let reply = await device.service.respond(
            HTTPRequestParts(
                method: "GET", path: "/v1/projects/-/serviceAccounts/a@p.iam.gserviceaccount.com/allowedLocations"))
        #expect(reply.status == 200)
        #expect(reply.body.contains(#""encodedLocations":"0x0""#))
    }

    @Test("assertions that fail a check are invalid_grant (or invalid_scope), each saying why")
    func refusals() async throws {
        let device = TestDevice()
        let now = device.clock
        var otherKey = Assertion(project: TestDevice.project, issuedAt: now)
        otherKey.key = try ServiceAccountKey.generate()
        otherKey.keyID = otherKey.key.keyID
        var unsignedByUs = otherKey
        unsignedByUs.keyID = nil
        var stale = Assertion(project: TestDevice.project, issuedAt: now - 7_200)
        stale.lifetime = 3_600
        var wrongAudience = Assertion(project: TestDevice.project, issuedAt: now)
        wrongAudience.audience = "https://example.com/elsewhere"
        var noScope = Assertion(project: TestDevice.project, issuedAt: now)
        noScope.scope = "https://www.googleapis.com/auth/userinfo.email"
        let tampered = try Assertion(project: TestDevice.project, issuedAt: now).jwt().replacingOccurrences(
            of: ".", with: ".x", options: [], range: nil)
        let cases: [(String, String, String)] = [
            (try otherKey.formBody(), "invalid_grant", "not issued by this emulator"),
            (try unsignedByUs.formBody(), "invalid_grant", "Signature"),
            (try stale.formBody(), "invalid_grant", "iat and exp"),
            (try wrongAudience.formBody(), "invalid_grant", "aud"),
            (try noScope.formBody(), "invalid_scope", "scope"),
            (try Assertion(project: "someone-else", issuedAt: now).formBody(), "invalid_grant", "someone-else"),
            (
                "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(tampered)",
                "invalid_grant", "JWT"
            ),
            ("grant_type=client_credentials", "unsupported_grant_type", "jwt-bearer"),
            ("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer", "invalid_request", "assertion"),
        ]
        for (body, error, words) in cases {
            let (status, json) = try await grant(device, body)
            #expect(status == 400)
            #expect(json["error"] as? String == error, "\(json)")
            #expect((json["error_description"] as? String)?.contains(words) == true, "\(json)")
        }
    }

    @Test("the key is made once per state folder, mode 0600, and the credentials JSON carries it")
    func keyInFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-key-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try ServiceAccountKey.inFolder(folder)
        let again = try ServiceAccountKey.inFolder(folder)
        #expect(first.keyID == again.keyID)
        #expect(first.keyID.count == 40)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + ServiceAccountKey.fileName)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let json = try JSON.object(first.credentialsJSON(project: "p1", tokenURI: "http://127.0.0.1:9/token"))
        #expect(json["type"] as? String == "service_account")
        #expect(json["client_email"] as? String == "fcm-device@p1.iam.gserviceaccount.com")
        #expect(json["private_key_id"] as? String == first.keyID)
        #expect(json["token_uri"] as? String == "http://127.0.0.1:9/token")
        let pem = try #require(json["private_key"] as? String)
        #expect(try ServiceAccountKey(pem: pem).keyID == first.keyID)
    }

    @Test("secrets compare equal only when equal, whatever the lengths")
    func constantTime() {
        #expect(ConstantTime.equals("demo-key", "demo-key"))
        #expect(!ConstantTime.equals("demo-key", "demo-kez"))
        #expect(!ConstantTime.equals("demo-key", "demo-key-longer"))
        #expect(!ConstantTime.equals("", "x"))
        #expect(ConstantTime.equals("", ""))
    }
}

@Suite("Assertions the emulator makes")
struct MadeAssertionTests {
    @Test("an assertion from make() passes the token endpoint's own checks")
    func roundTrip() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let jwt = try JWTAssertion.make(key: TestDevice.accountKey, project: "p9", now: now)
        let verified = try JWTAssertion.verify(jwt, key: TestDevice.accountKey, now: now).get()
        #expect(verified.project == "p9")
        #expect(verified.expires == now + 3_600)
        #expect(throws: GrantError.self) {
            try JWTAssertion.verify(jwt, key: TestDevice.accountKey, now: now + 7_200).get()
        }
    }
}
