import FCMEngine
import FCMHTTPAPI
import Testing

@Suite("HTTP replies of faults")
struct FaultRouteTests {
    @Test("a legacy 503 fault answers Unavailable with Retry-After, once; then sends work again")
    func legacy503() async {
        let device = TestDevice()
        device.apply(.addFault(Fault(path: "/fcm/send", kind: .status(503, retryAfter: 3), count: 1)))
        let failed = await device.legacy(#"{"to":"\#(device.token())","data":{"k":"v"}}"#)
        #expect(failed.status == 503)
        #expect(failed.header("Retry-After") == "3")
        // The fault is its own event; the answer it made is logged as a refused request,
        // with what the report card reads of it.
        #expect(device.rejections().map(\.status) == [503])
        #expect(device.rejections().first?.retryAfter == 3)
        #expect(device.rejections().first?.origin?.api == .legacy)
        let next = await device.legacy(#"{"to":"\#(device.token())","data":{"k":"v"}}"#)
        #expect(next.status == 200)
        #expect(device.events(named: "faultInjected").count == 1)
    }

    @Test("a v1 429 fault answers RESOURCE_EXHAUSTED with QUOTA_EXCEEDED; a 503 without Retry-After")
    func v1Statuses() async throws {
        let device = TestDevice()
        let bearer = try await device.bearer()
        device.apply(.addFault(Fault(path: "/v1", kind: .status(429, retryAfter: 30), count: 1)))
        let quota = await device.v1(#"{"message":{"token":"\#(device.token())"}}"#, bearer: bearer)
        #expect(quota.status == 429)
        #expect(quota.header("Retry-After") == "30")
        let error = try JSON.v1Error(quota.body)
        #expect(error.status == "RESOURCE_EXHAUSTED" && error.code == "QUOTA_EXCEEDED")
        device.apply(.addFault(Fault(path: "/v1", kind: .status(503, retryAfter: nil), count: 1)))
        let down = await device.v1(#"{"message":{"token":"\#(device.token())"}}"#, bearer: bearer)
        #expect(down.status == 503)
        #expect(down.header("Retry-After") == nil)
        #expect(try JSON.v1Error(down.body).status == "UNAVAILABLE")
    }

    @Test("a per-token error fault fails that token's entry in a multicast, the rest delivered")
    func perTokenError() async throws {
        let device = TestDevice()
        let old = device.token()
        device.apply(.on(.refreshToken(sender: TestDevice.sender)))
        device.apply(.addFault(Fault(token: device.token(), kind: .error("InternalServerError"), count: 1)))
        let reply = await device.legacy(#"{"registration_ids":["\#(device.token())","\#(old)"],"data":{"k":"v"}}"#)
        let results = try #require(try JSON.object(reply.body)["results"] as? [[String: String]])
        #expect(results.map { $0["error"] } == ["InternalServerError", "NotRegistered"])
    }

    @Test("an IID status fault answers in the IID API's shape")
    func iidStatus() async throws {
        let device = TestDevice()
        device.apply(.addFault(Fault(path: "/iid", kind: .status(500, retryAfter: nil), count: 1)))
        let reply = await device.iid(
            "/iid/v1:batchAdd", #"{"to":"/topics/a","registration_tokens":["\#(device.token())"]}"#)
        #expect(reply.status == 500)
        #expect(try JSON.object(reply.body)["error"] as? String == "InternalServerError")
    }
}
