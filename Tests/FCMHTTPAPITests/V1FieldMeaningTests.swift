import FCMEngine
import FCMHTTPAPI
import Foundation
import Testing

/// Every field of a v1 message means on the device what it means on the platform:
/// the package restriction, Android's notification fields, `androidV2`, the APNs
/// payload an iPhone shows, analytics labels, and the blocks a phone does not read.
@Suite("HTTP v1: every field means what it means on the device")
struct V1FieldMeaningTests {
    static func message(_ device: TestDevice, _ fields: String) -> String {
        #"{"message":{"token":"\#(device.token())",\#(fields)}}"#
    }

    @Test("android.restricted_package_name other than the app's is 400 INVALID_ARGUMENT naming both packages")
    func packageMismatch() async throws {
        let device = TestDevice()
        let reply = await device.v1(
            Self.message(device, #""data":{"k":"v"},"android":{"restrictedPackageName":"com.someone.else"}"#),
            bearer: try await device.bearer())
        #expect(reply.status == 400, "\(reply.body)")
        #expect(reply.body.contains("INVALID_ARGUMENT") && reply.body.contains("com.someone.else"), "\(reply.body)")
        #expect(device.events(named: "onMessageReceived").isEmpty)
        let own = await device.v1(
            Self.message(device, #""data":{"k":"v"},"android":{"restricted_package_name":"com.example.app"}"#),
            bearer: try await device.bearer())
        #expect(own.status == 200, "\(own.body)")
    }

    @Test("legacy restricted_package_name other than the app's is InvalidPackageName in results")
    func legacyPackageMismatch() async throws {
        let device = TestDevice()
        let reply = await device.legacy(
            #"{"to":"\#(device.token())","data":{"k":"v"},"restricted_package_name":"com.someone.else"}"#)
        #expect(reply.status == 200, "\(reply.body)")
        #expect(reply.body.contains(#""error":"InvalidPackageName""#), "\(reply.body)")
    }

    @Test("an android colour not of the form #rrggbb is 400 naming the field")
    func badColour() async throws {
        let device = TestDevice()
        let reply = await device.v1(
            Self.message(device, #""android":{"notification":{"color":"red"}}"#), bearer: try await device.bearer())
        #expect(reply.status == 400, "\(reply.body)")
        #expect(reply.body.contains("message.android.notification.color"), "\(reply.body)")
    }

    @Test("an analytics label outside Google's pattern is 400 naming the field; a good one is shown on delivery")
    func analyticsLabel() async throws {
        let device = TestDevice()
        let bad = await device.v1(
            Self.message(device, #""data":{"k":"v"},"fcmOptions":{"analyticsLabel":"has spaces"}"#),
            bearer: try await device.bearer())
        #expect(bad.status == 400, "\(bad.body)")
        #expect(bad.body.contains("message.fcm_options.analytics_label"), "\(bad.body)")
        let good = await device.v1(
            Self.message(device, #""data":{"k":"v"},"fcm_options":{"analytics_label":"spring-sale"}"#),
            bearer: try await device.bearer())
        #expect(good.status == 200, "\(good.body)")
        #expect(device.events(named: "onMessageReceived").last?.string("analytics_label") == "spring-sale")
    }

    @Test("android's notification fields reach the tray: colour, visibility, count; sticky stays when tapped")
    func androidNotificationFields() async throws {
        let device = TestDevice()
        device.apply(.on(.setAppState(.background)))
        let reply = await device.v1(
            Self.message(
                device,
                ##""notification":{"title":"T"},"android":{"notification":{"color":"#3366ff","visibility":"SECRET","##
                    + #""notificationCount":4,"sticky":true,"clickAction":"OPEN"}}"#),
            bearer: try await device.bearer())
        #expect(reply.status == 200, "\(reply.body)")
        let posted = device.events(named: "notificationPosted").last
        #expect(posted?.string("color") == "#3366ff")
        #expect(posted?.string("visibility") == "SECRET")
        #expect(posted?.string("notification_count") == "4")
        device.apply(.on(.tap(.last)))
        #expect(device.events(named: "notificationTapped").last?.string("click_action") == "OPEN")
        #expect(device.read { $0.devices[0].tray.count } == 1)
    }

    @Test("androidV2.backgroundSync wakes the app with data only, the message's notification left out")
    func backgroundSync() async throws {
        let device = TestDevice()
        device.apply(.on(.setAppState(.background)))
        let reply = await device.v1(
            Self.message(device, #""notification":{"title":"T"},"data":{"k":"v"},"androidV2":{"backgroundSync":{}}"#),
            bearer: try await device.bearer())
        #expect(reply.status == 200, "\(reply.body)")
        #expect(device.events(named: "notificationPosted").isEmpty)
        #expect(device.events(named: "onMessageReceived").last?["data"] == .map([KeyValue("k", "v")]))
    }

    @Test("an iPhone shows the aps dictionary: alert, badge, sound, category, thread; android and webpush ignored")
    func apnsPayload() async throws {
        let device = TestDevice(platform: .ios)
        device.apply(.on(.setAppState(.background)))
        let reply = await device.v1(
            Self.message(
                device,
                #""apns":{"payload":{"aps":{"alert":{"title":"A","subtitle":"S"},"badge":3,"sound":"ping.caf","#
                    + #""category":"REPLY","thread-id":"t1"}}},"android":{"priority":"HIGH"},"#
                    + #""webpush":{"data":{"w":"1"}}"#),
            bearer: try await device.bearer())
        #expect(reply.status == 200, "\(reply.body)")
        let posted = try #require(device.events(named: "notificationPosted").last)
        #expect(posted.string("title") == "A")
        #expect(posted.string("subtitle") == "S")
        #expect(posted.string("badge") == "3")
        #expect(posted.string("sound") == "ping.caf")
        #expect(posted.string("click_action") == "REPLY")
        #expect(posted.string("thread_id") == "t1")
        #expect(posted["ignored"] == .list(["android", "webpush"]))
    }

    @Test("apns.liveActivityToken is shown on an iPhone's delivery")
    func liveActivity() async throws {
        let device = TestDevice(platform: .ios)
        let reply = await device.v1(
            Self.message(device, #""data":{"k":"v"},"apns":{"liveActivityToken":"abcdef0123456789"}"#),
            bearer: try await device.bearer())
        #expect(reply.status == 200, "\(reply.body)")
        #expect(device.events(named: "didReceiveRemoteNotification").last?.string("live_activity_token") != nil)
    }

    @Test("a badge or sound without an alert makes no notification: a silent push stays a data message")
    func silentPushStaysSilent() async throws {
        let device = TestDevice(platform: .ios)
        device.apply(.on(.setAppState(.background)))
        let reply = await device.v1(
            Self.message(device, #""data":{"k":"v"},"apns":{"payload":{"aps":{"content-available":1,"badge":0}}}"#),
            bearer: try await device.bearer())
        #expect(reply.status == 200, "\(reply.body)")
        #expect(device.events(named: "notificationPosted").isEmpty)
        #expect(device.events(named: "didReceiveRemoteNotification").count == 1)
    }
}
