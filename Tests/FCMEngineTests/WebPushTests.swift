import Crypto
import FCMEngine
import FCMJSON
import FCMWebPush
import Foundation
import Testing

/// A browser with a push subscription made with an app server's VAPID key, and that
/// app server's Web Push requests at the push service.
struct WebPushHarness {
    var h = Harness(platform: .web, state: .background)
    let vapid = P256.Signing.PrivateKey()
    static let origin = "http://127.0.0.1:8080"
    static let host = "127.0.0.1:8080"

    init() {
        h.run(.getToken(sender: nil, vapidKey: Base64URL.encode(vapid.publicKey.x963Representation)))
    }

    var subscription: PushSubscription { h.engine.server.webPush.subscription(ofPhone: 0)! }
    var unixNow: Int64 { h.engine.wallClock.unixSeconds(at: h.time) }

    /// A request as pywebpush makes it: `text` encrypted to the subscription, signed
    /// for the origin, an hour ahead.
    func request(
        _ text: String, encoding: ContentEncoding = .aes128gcm, ttl: String? = "60", topic: String? = nil,
        urgency: String? = nil, signer: P256.Signing.PrivateKey? = nil, audience: String = Self.origin,
        expiresIn: Int64 = 3_600
    ) throws -> WebPushRequest {
        let keys = subscription.keys
        let sealed = try WebPushCipher.encrypt(
            Array(text.utf8), encoding: encoding, to: keys.publicKey, auth: keys.authSecret,
            senderKey: P256.KeyAgreement.PrivateKey(), salt: (0..<16).map { UInt8($0) })
        let credentials = try VAPIDCredentials.signed(
            audience: audience, expires: unixNow + expiresIn, key: signer ?? vapid)
        return WebPushRequest(
            subscription: subscription.id, host: Self.host, ttl: ttl, topic: topic, urgency: urgency,
            contentEncoding: encoding.rawValue, authorization: credentials.authorization,
            cryptoKey: sealed.cryptoKey, encryption: sealed.encryption, body: Base64URL.encode(sealed.body))
    }

    /// The push service's answer to `request`, and the events it made.
    mutating func push(_ request: WebPushRequest, after: Millis = 0) -> (WebPushAnswer, [Event]) {
        h.time += after
        var out: [Event] = []
        let reply = h.engine.handle(.input(.webPush(request), at: h.time), into: &out)
        h.events += out
        Harness.checkDeclared(out)
        return (reply.webPushAnswer ?? WebPushAnswer(status: 0), out)
    }
}

@Suite("Web Push")
struct WebPushTests {
    @Test func aBrowsersFirstTokenComesWithAPushSubscriptionListedInItsSnapshot() throws {
        let h = Harness(platform: .web)
        let subscription = try #require(h.engine.server.webPush.subscription(ofPhone: 0))
        #expect(subscription.applicationServerKey == nil)
        #expect(h.named("pushSubscribed").first?.string("key") == "default")
        let listed = try #require(h.engine.snapshot(ofPhoneAt: 0).object?["pushSubscription"]?.object)
        #expect(listed["endpoint"]?.string == "https://fcm.googleapis.com/fcm/send/" + subscription.id)
        #expect(listed["keys"]?.object?["p256dh"]?.string?.count == 87)
        #expect(listed["keys"]?.object?["auth"]?.string?.count == 22)
        #expect(Harness(platform: .android).engine.server.webPush.subscriptions.isEmpty)
    }

    @Test func getTokenWithAnotherVAPIDKeyEndsTheSubscriptionAndMakesOneWithTheKey() throws {
        let before = Harness(platform: .web, state: .background).engine.server.webPush.subscription(ofPhone: 0)!
        var w = WebPushHarness()
        #expect(w.subscription.id != before.id)
        #expect(w.subscription.applicationServerKey == Base64URL.encode(w.vapid.publicKey.x963Representation))
        #expect(w.h.named("pushUnsubscribed").first?.string("reason") == "a new VAPID key")
        var old = try w.request("hi")
        old.subscription = before.id
        let (answer, _) = w.push(old)
        #expect(answer.status == 410)
        #expect(answer.body == "push subscription has unsubscribed or expired.\n")
    }

    @Test(arguments: ContentEncoding.allCases)
    func aWebPushSignedWithTheSubscriptionsKeyReachesTheServiceWorkerDecrypted(encoding: ContentEncoding) throws {
        var w = WebPushHarness()
        let (answer, events) = w.push(try w.request("hello, browser", encoding: encoding, urgency: "high"))
        #expect(answer.status == 201)
        let accepted = try #require(events.named("webPushAccepted").first)
        let id = try #require(accepted.string("id"))
        #expect(answer.headers.contains(KeyValue("Location", WebPushHarness.origin + "/" + id)))
        #expect(answer.headers.contains(KeyValue("TTL", "60")))
        let push = try #require(events.named("pushEvent").first)
        #expect(push.string("data") == "hello, browser")
        #expect(push.string("encoding") == encoding.rawValue)
        #expect(push.string("urgency") == "high")
    }

    @Test func aBodyNotEncryptedToTheSubscriptionIsAcceptedAndDroppedByTheBrowser() throws {
        var w = WebPushHarness()
        var request = try w.request("secret")
        var body = Base64URL.decode(request.body)!
        body[body.count - 3] ^= 0x55
        request.body = Base64URL.encode(body)
        let (answer, events) = w.push(request)
        #expect(answer.status == 201)
        #expect(events.named("pushEvent").isEmpty)
        let dropped = try #require(events.named("webPushDropped").first)
        #expect(dropped.string("reason") == "undecryptable")
        #expect(dropped.string("detail")?.contains("did not decrypt") == true)
    }

    @Test func thePushServiceRefusesWhatFCMRefusesWithItsStatusAndWords() throws {
        var w = WebPushHarness()
        func status(_ change: (inout WebPushRequest) throws -> Void) throws -> WebPushAnswer {
            var request = try w.request("x")
            try change(&request)
            return w.push(request).0
        }
        #expect(try status { $0.ttl = nil }.status == 400)
        #expect(try status { $0.ttl = "soon" }.status == 400)
        #expect(try status { $0.topic = String(repeating: "a", count: 33) }.status == 400)
        #expect(try status { $0.topic = "no spaces" }.status == 400)
        #expect(try status { $0.urgency = "urgent" }.status == 400)
        #expect(try status { $0.contentEncoding = "gzip" }.status == 400)
        #expect(try status { $0.contentEncoding = nil }.status == 400)
        #expect(try status { $0.body = Base64URL.encode([UInt8](repeating: 1, count: 4_097)) }.status == 413)
        let missing = try status { $0.authorization = nil }
        #expect(missing.status == 401 && missing.body == "authorization header must be specified.\n")
        #expect(try status { $0.authorization = "key=AIzaSyExample" }.status == 401)
        let other = try w.request("x", signer: P256.Signing.PrivateKey())
        let wrongKey = w.push(other).0
        #expect(wrongKey.status == 403)
        #expect(wrongKey.body.hasPrefix("the key in the authorization header does not correspond to the sender ID"))
        #expect(w.push(try w.request("x", audience: "https://fcm.googleapis.com")).0.status == 403)
        #expect(w.push(try w.request("x", expiresIn: -60)).0.status == 403)
        #expect(w.push(try w.request("x", expiresIn: 90_000)).0.status == 403)
        var aesgcm = try w.request("x", encoding: .aesgcm)
        aesgcm.encryption = nil
        #expect(w.push(aesgcm).0.status == 400)
        #expect(try status { $0.subscription = "nobody" }.status == 404)
        #expect(w.h.named("webPushRefused").count == 16)
        #expect(w.h.named("webPushAccepted").isEmpty)
        // A TTL past four weeks is kept as four weeks, and said so.
        let long = w.push(try w.request("x", ttl: "99999999")).0
        #expect(long.status == 201 && long.headers.contains(KeyValue("TTL", "2419200")))
    }

    @Test func aBrowserAwayGetsWhatWasHeldWithinItsTTLTheNewestOfATopicAlone() throws {
        var w = WebPushHarness()
        w.h.run(.setNetwork(.offline))
        let first = w.push(try w.request("score 1-0", topic: "score")).1
        #expect(first.named("webPushHeld").first?.string("reason") == "offline")
        let second = w.push(try w.request("score 2-0", topic: "score"), after: 1_000).1
        #expect(second.named("webPushReplaced").first?.string("topic") == "score")
        let held = w.h.engine.heldMessages(ofPhoneAt: 0)
        #expect(held.map(\.collapseKey) == ["score"] && held.first?.reason == "Web Push: offline")
        _ = w.push(try w.request("brief", ttl: "5"), after: 1_000)
        let never = w.push(try w.request("now or never", ttl: "0")).1
        #expect(never.named("webPushDropped").first?.string("reason") == "ttl0")
        w.h.wait(6_000)
        let expired = w.h.named("webPushDropped").filter { $0.string("reason") == "expired" }
        #expect(expired.count == 1 && expired.first?.at == w.h.time - 1_000)
        let back = w.h.run(.setNetwork(.online))
        #expect(back.named("pushEvent").map { $0.string("data") } == ["score 2-0"])
        #expect(w.h.engine.server.webPush.held.isEmpty)
    }

    @Test func anUninstalledBrowsersEndpointIsGone() throws {
        var w = WebPushHarness()
        w.h.run(.setNetwork(.offline))
        _ = w.push(try w.request("held"))
        let request = try w.request("late")
        let ended = w.h.run(.uninstall)
        #expect(ended.named("pushUnsubscribed").first?.string("reason") == "uninstalled")
        #expect(ended.named("pushUnsubscribed").first?["discarded"] != nil)
        #expect(w.push(request).0.status == 410)
    }
}

@Suite("Web Push on the report card")
struct WebPushReportTests {
    @Test func theCardNamesAResendToAGoneSubscriptionUndecryptableBodiesVAPIDRefusedAndTTL() throws {
        var w = WebPushHarness()
        _ = w.push(try w.request("fine"))
        var tampered = try w.request("tampered")
        var body = Base64URL.decode(tampered.body)!
        body[body.count - 1] ^= 1
        tampered.body = Base64URL.encode(body)
        _ = w.push(tampered)
        _ = w.push(try w.request("stranger", signer: P256.Signing.PrivateKey()))
        _ = w.push(try w.request("no ttl", ttl: nil))
        _ = w.push(try w.request("forever", ttl: "99999999"))
        let gone = try w.request("gone")
        w.h.run(.deleteToken(sender: nil))
        _ = w.push(gone, after: 1_000)
        _ = w.push(gone, after: 1_000)
        var card = ReportCard()
        for event in w.h.events { card.observe(event) }
        func finding(_ rule: ReportRule) -> ReportFinding? { card.report.findings.first { $0.rule == rule } }
        #expect(finding(.webPushGoneResent)?.count == 1)
        #expect(finding(.webPushGoneResent)?.examples.first?.detail.contains("410") == true)
        #expect(finding(.webPushUndecryptable)?.count == 1)
        #expect(finding(.webPushVAPIDRefused)?.count == 1)
        #expect(finding(.webPushTTL)?.count == 2)
        #expect(finding(.webPushGoneResent)?.severity == .error && finding(.webPushTTL)?.severity == .note)
    }
}

@Suite("Web Push: what the page's worker does")
struct WebPushWorkerTests {
    @Test func aJSONPayloadIsTheFCMSDKsWorkersAnFCMMessageShownThenHeardInTheBackground() throws {
        var w = WebPushHarness()
        let payload =
            #"{"from":"123456789012","fcmMessageId":"m-1","notification":{"title":"Hi","body":"there"},"#
            + #""data":{"k":"v"}}"#
        let events = w.push(try w.request(payload)).1
        #expect(events.named("pushEvent").first?.string("handler") == "fcm")
        #expect(events.named("notificationPosted").first?.string("title") == "Hi")
        let heard = try #require(events.named("onBackgroundMessage").first)
        #expect(heard.string("id") == "m-1" && heard.string("from") == "123456789012")
    }

    @Test func anyOtherPayloadIsTheSitesHandlersWhichShowsItsTextByDefault() throws {
        var w = WebPushHarness()
        let events = w.push(try w.request("plain words")).1
        #expect(events.named("pushEvent").first?.string("handler") == "site")
        #expect(events.named("notificationPosted").first?.string("body") == "plain words")
        #expect(events.named("onBackgroundMessage").isEmpty)
        // JSON of another shape is the site's too, and the event says why.
        let json = w.push(try w.request(#"{"title":"x","body":"y"}"#)).1
        #expect(json.named("pushEvent").first?.string("handler") == "site")
        #expect(json.named("pushEvent").first?.string("detail")?.contains("not FCM's message shape") == true)
    }

    @Test func aSilentSitesPushShowsChromesBackgroundNotice() throws {
        var w = WebPushHarness()
        w.h = Harness(platform: .web, state: .background) { $0.pushHandler = .silent }
        w.h.run(.getToken(sender: nil, vapidKey: Base64URL.encode(w.vapid.publicKey.x963Representation)))
        let events = w.push(try w.request("quiet")).1
        #expect(
            events.named("notificationPosted").first?.string("title")
                == "This site has been updated in the background")
    }
}

@Suite("Web Push saved as a step")
struct WebPushStepTests {
    @Test func anAppServersRequestReadsBackAsTheStepThatSendsIt() throws {
        var w = WebPushHarness()
        let request = try w.request("saved text", encoding: .aesgcm, ttl: "90", topic: "t", urgency: "low")
        let (phone, step) = try #require(w.h.engine.webPushStep(for: request))
        #expect(phone == w.h.engine.devices[0].name)
        #expect(
            step
                == WebPushStep(
                    data: "saved text", ttl: 90, topic: "t", urgency: "low", encoding: .aesgcm, vapid: .right))
        let stranger = try #require(
            w.h.engine.webPushStep(for: try w.request("x", signer: P256.Signing.PrivateKey())))
        #expect(stranger.step.vapid == .wrong)
        var broken = request
        broken.body = Base64URL.encode([1, 2, 3])
        #expect(w.h.engine.webPushStep(for: broken)?.step.brokenBody == true)
        // The step, run, sends what the request sent.
        let replayed = w.h.run(.on(device: phone, .webPush(step)))
        #expect(replayed.named("pushEvent").first?.string("data") == "saved text")
    }
}

@Suite("Web Push: the edges")
struct WebPushEdgeTests {
    @Test func takingNotificationPermissionAwayEndsTheSubscription() throws {
        var w = WebPushHarness()
        let request = try w.request("x")
        let denied = w.h.run(.setPermission(.denied))
        #expect(denied.named("pushUnsubscribed").first?.string("reason") == "permission denied")
        #expect(w.push(request).0.status == 410)
    }

    @Test func theOlderWebPushAndBearerFormsAreReadAndAnUnreadableOneIsRefused() throws {
        var w = WebPushHarness()
        for scheme in ["WebPush", "Bearer"] {
            var request = try w.request("form \(scheme)")
            let credentials = try #require(
                VAPIDCredentials.read(authorization: request.authorization, cryptoKey: nil).credentials)
            request.authorization = "\(scheme) \(credentials.token)"
            request.cryptoKey = "p256ecdsa=\(credentials.key)"
            #expect(w.push(request).0.status == 201, "\(scheme)")
        }
        var unreadable = try w.request("x")
        unreadable.authorization = "Basic dXNlcjpwYXNz"
        let answer = w.push(unreadable)
        #expect(answer.0.status == 401)
        #expect(answer.1.named("webPushRefused").first?.string("detail")?.contains("not vapid or WebPush") == true)
    }

    @Test func aVAPIDKeyThatAlsoEncryptedIsRefused() throws {
        var w = WebPushHarness()
        let keys = w.subscription.keys
        let sameKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: w.vapid.rawRepresentation)
        let sealed = try WebPushCipher.encrypt(
            Array("x".utf8), encoding: .aes128gcm, to: keys.publicKey, auth: keys.authSecret, senderKey: sameKey,
            salt: Array(repeating: 1, count: 16))
        var request = try w.request("x")
        request.body = Base64URL.encode(sealed.body)
        let answer = w.push(request).0
        #expect(answer.status == 400 && answer.body.contains("same key"))
    }

    @Test func aBodyOf4096BytesIsTakenAndTwoRecordsDoNotDecrypt() throws {
        var w = WebPushHarness()
        var request = try w.request("longer than one small record")
        var body = Base64URL.decode(request.body)!
        // The header says rs 18: the one record read as several.
        body[16...19] = [0, 0, 0, 18]
        request.body = Base64URL.encode(body)
        let events = w.push(request).1
        #expect(
            events.named("webPushDropped").first?.string("detail")?.contains("more than one record") == true,
            "\(events.map(\.name)) \(events.last?.fields ?? [])")
        request.body = Base64URL.encode(body + [UInt8](repeating: 0, count: 4_096 - body.count))
        #expect(w.push(request).0.status == 201)
    }

    @Test func theOldestOfMoreThanAHundredHeldIsDropped() throws {
        var w = WebPushHarness()
        w.h.run(.setNetwork(.offline))
        let request = try w.request("many")
        for _ in 0...PushService.heldLimit { _ = w.push(request) }
        #expect(w.h.named("webPushDropped").map { $0.string("reason") } == ["overflow"])
        #expect(w.h.engine.server.webPush.held.count == PushService.heldLimit)
    }

    @Test func subscriptionsWhatEndedAndWhatIsHeldAreSavedAndRead() throws {
        var w = WebPushHarness()
        w.h.run(.setNetwork(.offline))
        _ = w.push(try w.request("kept while away", topic: "t"))
        let restored = try JSONDecoder().decode(DeviceEngine.self, from: JSONEncoder().encode(w.h.engine))
        #expect(restored.server.webPush == w.h.engine.server.webPush)
        #expect(!restored.server.webPush.ended.isEmpty && restored.server.webPush.held.count == 1)
        var back = restored
        let events = back.handle(.input(.on(.setNetwork(.online)), at: w.h.time + 1))
        #expect(events.named("pushEvent").first?.string("data") == "kept while away")
    }
}
