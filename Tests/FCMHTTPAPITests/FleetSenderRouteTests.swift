import FCMEngine
import FCMHTTPAPI
import Testing

/// Every phone and every sender first-class on the HTTP APIs: an app server of a
/// sender that only the second phone registers with, or one added while the device
/// runs, is let in on every route; one no phone registers with any more is refused.
@Suite("HTTP APIs for every phone's senders")
struct FleetSenderRouteTests {
    /// The first phone (Android) registers with the project's sender only; the
    /// second (an iPhone) with the other sender only.
    static func split() -> TestDevice {
        TestDevice(devices: [
            DeviceSpec(DeviceSettings(name: "pixel", state: .foreground, seed: 3), senders: [TestDevice.sender]),
            DeviceSpec(
                DeviceSettings(name: "iphone", platform: .ios, state: .foreground, seed: 3), senders: [TestDevice.other]
            ),
        ])
    }

    static let otherKey = "other-key"

    @Test("a legacy key= of a sender only the second phone registers with sends to that phone")
    func legacyKeyOfTheSecondPhone() async {
        let device = Self.split()
        let token = device.token(TestDevice.other, phone: 1)
        let reply = await device.legacy(#"{"to":"\#(token)","data":{"k":"v"}}"#, key: Self.otherKey)
        #expect(reply.status == 200, "\(reply.body)")
        #expect(reply.body.contains("\"success\":1"), "\(reply.body)")
    }

    @Test("the token endpoint, v1 and IID take the project of a sender only the second phone has")
    func projectOfTheSecondPhone() async throws {
        let device = Self.split()
        let bearer = try await device.bearer(project: TestDevice.other)
        let token = device.token(TestDevice.other, phone: 1)
        let sent = await device.v1(#"{"message":{"token":"\#(token)"}}"#, bearer: bearer, project: TestDevice.other)
        #expect(sent.status == 200, "\(sent.body)")
        let iid = await device.post(
            "/iid/v1:batchAdd", headers: ["Authorization": "Bearer \(bearer)", "Content-Type": "application/json"],
            body: #"{"to":"/topics/news","registration_tokens":["\#(token)"]}"#)
        #expect(iid.status == 200, "\(iid.body)")
    }

    @Test("a sender added while the device runs is let in at once; one removed from every phone is refused")
    func addedAndRemovedWhileRunning() async throws {
        let device = Self.split()
        let before = await device.legacy(#"{"to":"x","data":{"k":"v"}}"#, key: "late-key")
        #expect(before.status == 401)
        device.apply(.on(device: "iphone", .addSender(SenderConfig(id: "555", key: "late-key", project: "late"))))
        let token = device.token("555", phone: 1)
        let after = await device.legacy(#"{"to":"\#(token)","data":{"k":"v"}}"#, key: "late-key")
        #expect(after.status == 200, "\(after.body)")
        let bearer = try await device.bearer(project: "late")
        let v1 = await device.v1(#"{"message":{"token":"\#(token)"}}"#, bearer: bearer, project: "late")
        #expect(v1.status == 200, "\(v1.body)")

        device.apply(.on(device: "iphone", .removeSender("555")))
        let removed = await device.legacy(#"{"to":"\#(token)","data":{"k":"v"}}"#, key: "late-key")
        #expect(removed.status == 401)
        let refusedV1 = await device.v1(#"{"message":{"token":"\#(token)"}}"#, bearer: bearer, project: "late")
        #expect(refusedV1.status == 403)
        let grant = await device.post(
            "/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: try Assertion(project: "late", issuedAt: device.clock).formBody())
        #expect(grant.status == 400)
        #expect(grant.body.contains("late"), "\(grant.body)")
    }

    @Test("a v1 message with android and apns blocks reaches an iPhone shaped by apns when the first phone is Android")
    func shapedForTheIPhone() async throws {
        let device = TestDevice(devices: [
            DeviceSpec(DeviceSettings(name: "pixel", state: .foreground, seed: 3)),
            DeviceSpec(DeviceSettings(name: "iphone", platform: .ios, state: .foreground, seed: 3)),
        ])
        let bearer = try await device.bearer()
        let reply = await device.v1(
            #"""
            {"message":{"token":"\#(device.token(phone: 1))",
             "android":{"collapse_key":"android-key","priority":"HIGH"},
             "apns":{"headers":{"apns-priority":"5","apns-collapse-id":"apns-key"}}}}
            """#, bearer: bearer)
        #expect(reply.status == 200, "\(reply.body)")
        let accepted = try #require(device.events(named: "downstreamAccepted").last)
        #expect(accepted.string("collapse_key") == "apns-key")
        #expect(accepted.string("priority") == "normal")
    }

    @Test("apns-expiration is a time to live on the device's clock, not the machine's")
    func apnsExpirationOnTheDevicesClock() async throws {
        let device = TestDevice(platform: .ios)
        // The device's clock reads the test's date (set when it started); an hour on.
        let expiry = Int(device.clock.timeIntervalSince1970) + 3_600
        let reply = await device.v1(
            #"""
            {"message":{"token":"\#(device.token())","apns":{"headers":{"apns-expiration":"\#(expiry)"}}}}
            """#, bearer: try await device.bearer())
        #expect(reply.status == 200, "\(reply.body)")
        #expect(device.events(named: "downstreamAccepted").last?.fields.contains(Field("ttl", .int(3_600))) == true)
    }
}
