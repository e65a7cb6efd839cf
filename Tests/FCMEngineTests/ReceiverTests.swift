import FCMEngine
import FCMJSON
import FCMWebPush
import Foundation
import Testing

/// A real client (firebase-messaging) as the engine sees it: its registration calls,
/// then its MCS connection.
struct ReceiverHarness {
    var h = Harness()
    /// The client's own keys (it registers their public half).
    let keys = BrowserKeys(scalar: [UInt8](repeating: 7, count: 32), authSecret: [UInt8](repeating: 3, count: 16))!
    var androidID: UInt64 = 0
    var securityToken: UInt64 = 0
    var gcmToken = ""
    var fcmToken = ""
    var installationAuth = ""
    var phone = 0

    /// Checks in, registers with register3, Installations and FCM registrations.
    init() {
        guard case .checkedIn(let id, let token) = answer(.checkin(androidID: nil, securityToken: nil)) else {
            Issue.record("no check-in")
            return
        }
        (androidID, securityToken) = (id, token)
        guard case .form(200, let reply) = answer(.register3(register3())) else {
            Issue.record("no register3")
            return
        }
        gcmToken = String(reply.dropFirst("token=".count))
        guard case .json(200, let installation) = answer(.installation(installation())),
            let auth = installation.object?["authToken"]?.object?["token"]?.string
        else {
            Issue.record("no installation")
            return
        }
        guard case .json(200, let registered) = answer(.registration(registration(auth: auth))),
            let token = registered.object?["token"]?.string
        else {
            Issue.record("no registration")
            return
        }
        fcmToken = token
        installationAuth = auth
        phone = h.engine.deviceNumber(named: "receiver-1") ?? -1
    }

    func register3(authorization: String? = nil) -> ReceiverRequest.Register3 {
        .init(
            authorization: authorization ?? "AidLogin \(androidID):\(securityToken)", app: "org.chromium.linux",
            subtype: "wp:receiver.push.com#1", sender: "BDOU99-h67HcA6JeFXHbSNMu7e2yNNu3RzoM")
    }

    func installation(project: String = Harness.sender, apiKey: String? = "AIza-key") -> ReceiverRequest.Installation {
        .init(project: project, apiKey: apiKey, appID: "1:\(Harness.sender):web:1", fid: "cZ3kq8dT3x2vT0aQWbT1aX")
    }

    func registration(auth: String, endpoint: String? = nil, key: String? = nil) -> ReceiverRequest.Registration {
        .init(
            project: Harness.sender, apiKey: "AIza-key", installationAuth: auth,
            endpoint: endpoint ?? "https://fcm.googleapis.com/fcm/send/" + gcmToken,
            p256dh: Base64URL.encode(keys.publicKey) + "=", auth: Base64URL.encode(keys.authSecret) + "==",
            applicationPubKey: key)
    }

    mutating func answer(_ request: ReceiverRequest) -> ReceiverAnswer? {
        var out: [Event] = []
        let reply = h.engine.handle(.input(.receiver(request), at: h.time), into: &out)
        h.events += out
        Harness.checkDeclared(out)
        return reply.receiverAnswer
    }

    /// What the engine asks to write on MCS connections after `input`.
    @discardableResult
    mutating func mcs(_ input: MCSInput) -> [(ConnectionID, MCSStanza)] {
        h.run(.mcs(input))
        return h.engine.takeEffects().compactMap { effect in
            if case .mcs(let id, let stanza) = effect { return (id, stanza) }
            return nil
        }
    }

    mutating func login(_ connection: ConnectionID, received: [String] = []) -> [(ConnectionID, MCSStanza)] {
        mcs(.login(connection, MCSLogin(user: String(androidID), authToken: String(securityToken), received: received)))
    }

    /// The plaintext of a data stanza, decrypted as firebase-messaging does (aesgcm,
    /// `dh` and `salt` from app data).
    func decrypt(_ message: ReceiverMessage) throws -> JSONValue {
        func value(_ key: String) -> String? { message.appData.first { $0.key == key }?.value }
        let plaintext = try WebPushCipher.decrypt(
            aesgcm: message.rawData, encryption: value("encryption"), cryptoKey: value("crypto-key"), keys: keys)
        return try JSONParser.parse(plaintext)
    }
}

extension [(ConnectionID, MCSStanza)] {
    var data: [ReceiverMessage] {
        compactMap { if case .data(let message) = $0.1 { message } else { nil } }
    }
}

@Suite("Real clients: registration and MCS")
struct ReceiverTests {
    @Test func aNewDeviceChecksInAndASavedPairIsConfirmedAndAWrongOneRefused() {
        var r = ReceiverHarness()
        #expect(r.androidID > 0 && r.androidID < 1 << 63)
        #expect(
            r.answer(.checkin(androidID: r.androidID, securityToken: r.securityToken))
                == .checkedIn(
                    androidID: r.androidID, securityToken: r.securityToken))
        #expect(r.answer(.checkin(androidID: r.androidID, securityToken: r.securityToken ^ 1))?.status == 401)
        #expect(r.h.named("receiverRefused").last?.string("endpoint") == "checkin")
    }

    @Test func register3NeedsACheckedInDeviceAndGivesTheSameTokenAgain() {
        var r = ReceiverHarness()
        #expect(r.answer(.register3(r.register3())) == .form(status: 200, "token=" + r.gcmToken))
        #expect(
            r.answer(.register3(r.register3(authorization: "AidLogin \(r.androidID):1")))
                == .form(status: 401, "Error=AUTHENTICATION_FAILED"))
        var missing = r.register3()
        missing.subtype = nil
        #expect(r.answer(.register3(missing)) == .form(status: 400, "Error=INVALID_PARAMETERS"))
    }

    @Test func installationsAndRegistrationsAnswerOnlyADeclaredProjectWithAKeyAndAnInstallationsToken() {
        var r = ReceiverHarness()
        guard case .json(403, let unknown) = r.answer(.installation(r.installation(project: "someone-else"))) else {
            Issue.record("an unknown project was not refused")
            return
        }
        #expect(unknown.object?["error"]?.object?["status"]?.string == "PERMISSION_DENIED")
        #expect(r.answer(.installation(r.installation(apiKey: nil)))?.status == 403)
        #expect(r.answer(.registration(r.registration(auth: "not-an-installation")))?.status == 401)
        guard case .json(200, let installation) = r.answer(.installation(r.installation())),
            let auth = installation.object?["authToken"]?.object?["token"]?.string
        else { return }
        #expect(
            r.answer(.registration(r.registration(auth: auth, endpoint: "https://fcm.googleapis.com/fcm/send/x")))?
                .status == 400)
        // The same client registering again keeps its phone and token.
        guard case .json(200, let again) = r.answer(.registration(r.registration(auth: "FIS " + auth))) else {
            Issue.record("registering again was refused")
            return
        }
        #expect(again.object?["token"]?.string == r.fcmToken)
        #expect(r.h.engine.devices.count == 2)
    }

    @Test func aRegisteredClientIsAWebPhoneAwayUntilItLogsInOverMCS() throws {
        var r = ReceiverHarness()
        let phone = r.h.engine.devices[r.phone]
        #expect(phone.platform == .web && phone.tokens[Harness.sender] == r.fcmToken && phone.network == .offline)
        #expect(r.h.engine.server.webPush.subscription(ofPhone: r.phone)?.id == r.gcmToken)
        r.h.push(data: [KeyValue("while", "away")], ttl: 600, to: r.fcmToken)
        #expect(r.h.named("receiverSent").isEmpty)
        let written = r.login(5)
        #expect(written.first.map { "\($0.0) \($0.1)" } == "5 loginAccepted")
        let message = try #require(written.data.first)
        let payload = try r.decrypt(message)
        #expect(payload.object?["data"]?.object?["while"]?.string == "away")
        #expect(payload.object?["from"]?.string == Harness.sender)
        #expect(message.appData.first { $0.key == "subtype" }?.value == "wp:receiver.push.com#1")
        #expect(message.appData.first { $0.key == "crypto-key" }?.value.hasSuffix("=") == true)
        #expect(r.h.engine.devices[r.phone].network == .online)
    }

    @Test func whatIsNotAckedIsSentAgainAtTheNextLoginLessWhatTheClientSaysItReceived() throws {
        var r = ReceiverHarness()
        _ = r.login(1)
        r.h.push(data: [KeyValue("n", "1")], to: r.fcmToken)
        r.h.push(data: [KeyValue("n", "2")], to: r.fcmToken)
        r.h.push(data: [KeyValue("n", "3")], to: r.fcmToken)
        let sent = r.h.named("receiverSent").compactMap { $0.string("persistent_id") }
        #expect(sent.count == 3)
        r.mcs(.acked(1, [sent[0]]))
        #expect(r.h.named("receiverAcked").last.map { $0.fields.description }?.contains(sent[0]) == true)
        r.mcs(.closed(1))
        #expect(r.h.named("receiverDisconnected").last?.int("unacked") == 2)
        let again = r.login(2, received: [sent[1]])
        #expect(again.data.map(\.persistentID) == [sent[2]])
        r.mcs(.acked(2, [sent[2]]))
        r.mcs(.closed(2))
        #expect(r.login(3).data.isEmpty)
    }

    @Test func aClientAwayPastTheStoreLimitIsToldDeletedMessagesAtItsNextLoginBeforeWhatWasHeld() throws {
        var r = ReceiverHarness()
        let limit = r.h.engine.configuration.store.nonCollapsibleLimit
        for n in 0...limit { r.h.push(data: [KeyValue("n", "\(n)")], ttl: 600, to: r.fcmToken) }
        #expect(r.h.named("discarded").last?.int("count") == Int64(limit + 1))
        r.h.push(data: [KeyValue("after", "the limit")], ttl: 600, to: r.fcmToken)
        let written = r.login(1).data
        try #require(written.count == 2)
        let notice = written[0]
        #expect(
            notice.appData == [
                KeyValue("message_type", "deleted_messages"), KeyValue("total_deleted", "\(limit + 1)"),
                KeyValue("subtype", "wp:receiver.push.com#1"),
            ])
        #expect(notice.rawData.isEmpty && notice.from == Harness.sender && notice.category == Receivers.chromeApp)
        #expect(try r.decrypt(written[1]).object?["data"]?.object?["after"]?.string == "the limit")
        let sent = try #require(r.h.named("receiverSent").first)
        #expect(sent.string("message_type") == "deleted_messages" && sent.int("total_deleted") == Int64(limit + 1))
        #expect(sent.string("persistent_id") == notice.persistentID)
        #expect(notice.persistentID != written[1].persistentID)
        // Acked like any message; told once.
        r.mcs(.acked(1, [notice.persistentID, written[1].persistentID]))
        r.mcs(.closed(1))
        #expect(r.login(2).data.isEmpty)
        #expect(r.h.named("onDeletedMessages").isEmpty)
    }

    @Test func aMessageWithNoTimeToLiveIsNotDeliveredWhileTheClientIsAway() {
        var r = ReceiverHarness()
        r.h.push(data: [KeyValue("now", "or never")], ttl: 0, to: r.fcmToken)
        #expect(r.login(1).data.isEmpty)
    }

    @Test func aLoginWithAWrongTokenIsRefusedAndALaterLoginTakesTheDevicesPlace() {
        var r = ReceiverHarness()
        let refused = r.mcs(.login(4, MCSLogin(user: String(r.androidID), authToken: "1", received: [])))
        #expect(refused.map { "\($0.1)" }.first?.hasPrefix("loginRefused") == true)
        _ = r.login(5)
        let replaced = r.login(6)
        #expect(replaced.contains { $0.0 == 5 && $0.1 == .close })
        r.h.push(to: r.fcmToken)
        let written = r.h.engine.takeEffects().compactMap { effect -> ConnectionID? in
            if case .mcs(let id, .data) = effect { return id }
            return nil
        }
        #expect(written == [6])
        // The replaced connection closing later changes nothing, even with a reason (its
        // session found it dead before the close reached it): it is not refused.
        let refusals = r.h.named("receiverRefused").count
        r.mcs(.closed(5, reason: "nothing from the client in the 10 s after the server's heartbeat ping"))
        #expect(r.h.engine.devices[r.phone].network == .online)
        #expect(r.h.named("receiverRefused").count == refusals)
        // A connection that never logged in and sent what MCS cannot read is refused.
        r.mcs(.opened(7))
        r.mcs(.closed(7, reason: "the first frame is tag 0; a client logs in first (LoginRequest, tag 2)"))
        #expect(r.h.named("receiverRefused").last?.int("status") == 400)
        #expect(r.h.named("receiverRefused").count == refusals + 1)
    }

    @Test func aConnectionThatDoesNotLogInWithinTheLoginTimeoutIsClosed() {
        var r = ReceiverHarness()
        _ = r.h.engine.takeEffects()
        // One connection says nothing; one logs in in time; one goes before its time.
        r.mcs(.opened(7))
        r.mcs(.opened(8))
        r.mcs(.opened(9))
        #expect(r.h.engine.nextDeadline == r.h.time + ConnectionRules.loginTimeout)
        r.h.wait(10_000)
        _ = r.login(8)
        r.mcs(.closed(9))
        r.h.wait(ConnectionRules.loginTimeout - 10_001)
        #expect(r.h.engine.takeEffects().isEmpty, "not before its time")
        r.h.wait(1)
        #expect(r.h.engine.takeEffects() == [.mcs(7, .close)])
        let refused = r.h.named("receiverRefused").last
        #expect(refused?.int("status") == 408)
        #expect(refused?.string("reason")?.hasPrefix("no login within 30 s of connecting") == true)
        #expect(r.h.named("receiverRefused").count == 1, "only the silent one")
        #expect(r.h.engine.devices[r.phone].network == .online, "the client that logged in stays")
        // It closing afterwards changes nothing, and nothing more falls due for it.
        r.mcs(.closed(7))
        #expect(r.h.engine.nextDeadline.map { $0 > r.h.time + ConnectionRules.loginTimeout } ?? true)
    }

    @Test func whatOnlyTheClientDoesIsRefusedForItButTheServerCanDisconnectIt() {
        var r = ReceiverHarness()
        _ = r.login(1)
        let name = "receiver-1"
        r.h.run(.on(device: name, .setAppState(.foreground)))
        #expect(r.h.named("commandRefused").last?.string("detail")?.contains("real client") == true)
        let effects = r.mcs(.login(1, MCSLogin(user: "x", authToken: "y", received: [])))
        #expect(effects.count == 1)
        r.h.run(.on(device: name, .setNetwork(.offline)))
        #expect(r.h.engine.takeEffects() == [.mcs(1, .close)])
        #expect(r.h.engine.devices[r.phone].network == .offline)
    }

    @Test func aWebPushToTheClientsEndpointIsHandedOnWithItsKeysPadded() throws {
        var r = ReceiverHarness()
        // Made with the app server's own key (one made with the FCM SDK's default key
        // takes no Web Push an app server can sign).
        let key = Base64URL.encode(
            BrowserKeys(scalar: [UInt8](repeating: 5, count: 32), authSecret: r.keys.authSecret)!.publicKey)
        #expect(r.answer(.registration(r.registration(auth: r.installationAuth, key: key)))?.status == 200)
        _ = r.login(1)
        var out: [Event] = []
        _ = r.h.engine.handle(
            .input(
                .on(
                    device: "receiver-1",
                    .webPush(WebPushStep(data: "from the built-in app server", encoding: .aesgcm))),
                at: r.h.time), into: &out)
        let written = r.h.engine.takeEffects().compactMap { effect -> ReceiverMessage? in
            if case .mcs(_, .data(let message)) = effect { return message }
            return nil
        }
        let message = try #require(written.first)
        func value(_ key: String) -> String? { message.appData.first { $0.key == key }?.value }
        let plaintext = try WebPushCipher.decrypt(
            aesgcm: message.rawData, encryption: value("encryption"), cryptoKey: value("crypto-key"), keys: r.keys)
        #expect(String(decoding: plaintext, as: UTF8.self) == "from the built-in app server")
        #expect(value("crypto-key")?.hasPrefix("dh=") == true && value("encryption")?.hasPrefix("salt=") == true)
    }

    @Test func theReceiversAreSavedAndReadAndForgetTheirConnectionsWhenTheDeviceResumes() throws {
        var r = ReceiverHarness()
        _ = r.login(1)
        r.h.push(data: [KeyValue("kept", "unacked")], to: r.fcmToken)
        var restored = try JSONDecoder().decode(DeviceEngine.self, from: JSONEncoder().encode(r.h.engine))
        #expect(restored.server.receivers == r.h.engine.server.receivers)
        let events = restored.handle(.resume(at: r.h.time + 1))
        #expect(events.named("receiverDisconnected").first?.int("unacked") == 1)
        #expect(restored.server.receivers.deviceByConnection.isEmpty)
    }

    @Test func aReplayMakesTheSameIDsTokensAndBytes() {
        let first = ReceiverHarness()
        let second = ReceiverHarness()
        #expect(first.androidID == second.androidID && first.gcmToken == second.gcmToken)
        #expect(first.fcmToken == second.fcmToken)
    }

    @Test func faultsMakeTheFieldsFailuresRegister3sPhoneRegistrationErrorAndATokenNeverDelivered() {
        var r = ReceiverHarness()
        r.h.run(.addFault(Fault(path: "/c2dm/register3", kind: .error(Fault.phoneRegistrationError), count: 1)))
        #expect(r.answer(.register3(r.register3())) == .form(status: 200, "Error=PHONE_REGISTRATION_ERROR"))
        #expect(r.answer(.register3(r.register3())) == .form(status: 200, "token=" + r.gcmToken))
        _ = r.login(1)
        r.h.run(.addFault(Fault(token: r.fcmToken, kind: .error(Fault.neverDelivered), count: 1)))
        r.h.push(data: [KeyValue("lost", "1")], to: r.fcmToken)
        #expect(r.h.named("downstreamAccepted").count >= 1)
        #expect(r.h.named("discarded").last?.string("reason") == "fault")
        #expect(r.h.engine.takeEffects().isEmpty)
        r.h.push(data: [KeyValue("kept", "1")], to: r.fcmToken)
        #expect(r.h.named("receiverSent").count == 1)
        #expect(Fault(sender: "1", kind: .error(Fault.phoneRegistrationError)).problem?.contains("path") == true)
        #expect(Fault(path: "/c2dm/register3", kind: .error(Fault.neverDelivered)).problem != nil)
    }

    @Test func aResetKeepsARealClientsPhoneTokenAndConnectionAndDropsWhatItHeld() {
        var r = ReceiverHarness()
        _ = r.login(1)
        r.h.push(data: [KeyValue("before", "reset")], to: r.fcmToken)
        #expect(r.h.engine.server.receivers.byPhone[r.phone]?.unacked.count == 1)
        r.h.run(.reset)
        let p = r.h.engine.deviceNumber(named: "receiver-1")
        #expect(p != nil)
        guard let p else { return }
        #expect(r.h.engine.devices[p].tokens[Harness.sender] == r.fcmToken)
        #expect(r.h.engine.devices[p].network == .online)
        #expect(r.h.engine.server.receivers.byPhone[p]?.unacked.isEmpty == true)
        _ = r.h.engine.takeEffects()
        r.h.push(data: [KeyValue("after", "reset")], to: r.fcmToken)
        #expect(r.h.engine.takeEffects().contains { if case .mcs(1, .data) = $0 { true } else { false } })
        #expect(r.answer(.checkin(androidID: r.androidID, securityToken: r.securityToken)) != nil)
        #expect(r.h.named("receiverRefused").isEmpty)
    }

    @Test func oneDeviceWithTwoRegistrationsIsTwoPhonesOnOneConnection() throws {
        var r = ReceiverHarness()
        var second = r.register3()
        second.subtype = "wp:receiver.push.com#2"
        guard case .form(200, let reply) = r.answer(.register3(second)) else {
            Issue.record("no second GCM token")
            return
        }
        let gcm = String(reply.dropFirst("token=".count))
        #expect(gcm != r.gcmToken)
        let registered = r.answer(
            .registration(
                r.registration(auth: r.installationAuth, endpoint: "https://fcm.googleapis.com/fcm/send/" + gcm)))
        #expect(registered?.status == 200)
        let phones = r.h.engine.server.receivers.phones(ofDevice: r.androidID)
        #expect(phones.count == 2)
        _ = r.login(3)
        #expect(phones.allSatisfy { r.h.engine.devices[$0].network == .online })
        r.mcs(.closed(3))
        #expect(phones.allSatisfy { r.h.engine.devices[$0].network == .offline })
    }

    @Test func aKeyThatIsNoP256PointIsRefusedAtRegistration() {
        var r = ReceiverHarness()
        var request = r.registration(auth: r.installationAuth)
        var bytes = r.keys.publicKey
        bytes[64] ^= 0x01
        request.p256dh = Base64URL.encode(bytes)
        #expect(r.answer(.registration(request))?.status == 400)
    }

    @Test func unackedMessagesRunOutWithTheirTimeToLiveAndAtMostAHundredAreKept() {
        var r = ReceiverHarness()
        _ = r.login(1)
        r.h.push(data: [KeyValue("short", "1")], ttl: 5, to: r.fcmToken)
        r.mcs(.closed(1))
        r.h.wait(10_000)
        #expect(r.login(2).data.isEmpty)
        #expect(r.h.named("discarded").last?.string("reason") == "expired")
        for n in 0...Receivers.unackedLimit { r.h.push(data: [KeyValue("n", "\(n)")], to: r.fcmToken) }
        #expect(r.h.engine.server.receivers.byPhone[r.phone]?.unacked.count == Receivers.unackedLimit)
        #expect(r.h.named("discarded").last?.string("reason") == "store-limit")
    }
}
