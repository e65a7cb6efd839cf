import FCMEngine
import FCMHTTPAPI
import Testing

/// Requests refused before they reach the device are reported, with the status
/// and the reason, so they show in the event log; the device's own refusals are
/// not reported twice.
@Suite("Rejected requests are reported")
struct RejectedRequestTests {
    @Test func aWrongServerKeyIsReportedWithItsStatusAndReason() async {
        let device = TestDevice()
        let reply = await device.legacy(#"{"to":"x"}"#, key: "wrong")
        #expect(reply.status == 401)
        let refusal = device.rejections().first
        #expect(refusal?.status == 401)
        #expect(refusal?.path == "/fcm/send")
        #expect(refusal?.reason.hasPrefix("Unauthorized") == true)
        let event = refusal?.event(at: 5)
        #expect(event?.kind == .requestRejected)
        #expect(event?["status"] == .int(401))
    }

    @Test func aMissingBearerTokenAndAnUnknownRouteAreReported() async {
        let device = TestDevice()
        _ = await device.post("/v1/projects/demo-project/messages:send", body: "{}")
        _ = await device.post("/nowhere", body: "")
        let refusals = device.rejections()
        #expect(refusals.map(\.status) == [401, 404])
        #expect(refusals.first?.reason.contains("Expected OAuth 2 access token") == true)
        #expect(refusals.last?.reason.contains("no such endpoint") == true)
    }

    @Test func aBadAssertionIsReportedWithTheGrantError() async {
        let device = TestDevice()
        _ = await device.post(
            "/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=not-a-jwt")
        #expect(device.rejections().first?.reason.hasPrefix("invalid_grant: Invalid JWT") == true)
    }

    @Test func aTokenTheDeviceRefusesIsNotReportedTwice() async {
        let device = TestDevice()
        let reply = await device.legacy(#"{"to":"not-a-token","data":{"a":"b"}}"#)
        #expect(reply.status == 200)
        #expect(device.rejections().isEmpty)
        #expect(!device.events(named: "downstreamRejected").isEmpty)
    }
}
