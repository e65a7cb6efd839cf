import FCMEngine
import FCMHTTPAPI
import Foundation
import Testing

/// v1's `webpush` block over HTTP: a web app's copy of a message, and one message
/// shaped three ways across a fleet of an Android phone, an iPhone and a browser.
@Suite("HTTP v1: webpush and a mixed fleet")
struct V1WebpushTests {
    static func fleet() -> TestDevice {
        var browser = DeviceSettings(name: "browser", platform: .web, app: "https://app.example.com", seed: 5)
        browser.state = .background
        return TestDevice(devices: [
            DeviceSpec(DeviceSettings(name: "pixel", platform: .android, state: .background, seed: 3)),
            DeviceSpec(DeviceSettings(name: "iphone", platform: .ios, state: .background, seed: 4)),
            DeviceSpec(browser),
        ])
    }

    static let blocks = #"""
        "notification":{"title":"Base"},
        "android":{"notification":{"title":"Android","channel_id":"news"}},
        "apns":{"payload":{"aps":{"alert":{"title":"Apple"},"badge":1}}},
        "webpush":{"headers":{"Urgency":"high","TTL":"600"},"notification":{"title":"Web","icon":"/i.png"},
                   "fcm_options":{"link":"https://app.example.com/news"}}
        """#

    @Test("one topic message with android, apns and webpush blocks reaches each phone shaped for its platform")
    func mixedFleet() async throws {
        let device = Self.fleet()
        for phone in ["pixel", "iphone"] { device.apply(.on(device: phone, .subscribe(topic: "news", sender: nil))) }
        // A web app is subscribed by its server.
        device.apply(
            .topics(
                TopicOrder(sender: TestDevice.sender, topic: "news", tokens: [], change: .add, api: .v1),
                phones: ["browser"]))
        let reply = await device.v1(
            #"{"message":{"topic":"news",\#(Self.blocks)}}"#, bearer: try await device.bearer())
        #expect(reply.status == 200, "\(reply.body)")
        let posted = device.events(named: "notificationPosted")
        let titles = Dictionary(posted.map { ($0.string("device") ?? "", $0.string("title") ?? "") }) { first, _ in
            first
        }
        #expect(titles == ["pixel": "Android", "iphone": "Apple", "browser": "Web"])
        let web = try #require(posted.first { $0.string("device") == "browser" })
        #expect(web.string("icon") == "/i.png")
        #expect(web.string("link") == "https://app.example.com/news")
        let hook = try #require(device.events(named: "onBackgroundMessage").first)
        #expect(hook.string("priority") == "high")
        #expect(hook["ignored"] == .list(["android", "apns"]))
        #expect(posted.first { $0.string("device") == "pixel" }?["ignored"] == .list(["apns", "webpush"]))
    }

    @Test("a web app's token takes the webpush block over HTTP; TTL is the header's")
    func toAToken() async throws {
        let device = Self.fleet()
        device.apply(.on(device: "browser", .setNetwork(.offline)))
        let token = device.token(phone: 2)
        let reply = await device.v1(
            #"{"message":{"token":"\#(token)",\#(Self.blocks)}}"#, bearer: try await device.bearer())
        #expect(reply.status == 200, "\(reply.body)")
        let stored = try #require(device.read { $0.heldMessages(ofPhoneAt: 2).last })
        #expect(stored.expiresAt - device.read { $0.now } == 600_000)
    }

    @Test(
        "a webpush link that is not HTTPS, or an Urgency FCM does not know, is 400 naming the field",
        arguments: [
            (#""webpush":{"fcm_options":{"link":"http://app.example.com/"}}"#, "message.webpush.fcm_options.link"),
            (#""webpush":{"headers":{"Urgency":"urgent"}}"#, "message.webpush.headers"),
            (#""webpush":{"headers":{"TTL":"soon"}}"#, "message.webpush.headers"),
        ])
    func refused(fields: String, field: String) async throws {
        let device = Self.fleet()
        let reply = await device.v1(
            #"{"message":{"token":"\#(device.token(phone: 2))",\#(fields)}}"#, bearer: try await device.bearer())
        #expect(reply.status == 400, "\(reply.body)")
        #expect(reply.body.contains(field), "\(reply.body)")
    }

    @Test("legacy's web fields reach a browser: click_action is the link, icon is shown")
    func legacyWebFields() async throws {
        let device = Self.fleet()
        let reply = await device.legacy(
            #"{"to":"\#(device.token(phone: 2))","notification":{"title":"T","icon":"/i.png","#
                + #""click_action":"https://app.example.com/x"}}"#)
        #expect(reply.status == 200, "\(reply.body)")
        let posted = try #require(device.events(named: "notificationPosted").last)
        #expect(posted.string("link") == "https://app.example.com/x")
        #expect(posted.string("icon") == "/i.png")
        #expect(device.events(named: "onBackgroundMessage").last?.string("link") == "https://app.example.com/x")
    }
}
