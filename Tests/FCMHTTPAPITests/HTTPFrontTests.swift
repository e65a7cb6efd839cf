import FCMEngine
import FCMHTTPAPI
import FCMHTTPPort
import Testing

/// The HTTP port's one route table and its one authentication step.
@Suite("HTTP front: one route table, one authentication step")
struct HTTPFrontTests {
    @Test("every path the port serves is one entry of the table, with how its callers prove who they are")
    func theTable() {
        let cases: [(String, HTTPRoute?, HTTPRoute.Credential?)] = [
            ("/healthz", .healthz, HTTPRoute.Credential.none),
            ("/fcm/send", .legacy, .serverKey),
            ("/gcm/send", .legacy, .serverKey),
            ("/v1/projects/demo/messages:send", .v1(project: "demo"), .bearer(project: "demo")),
            ("/v1/projects/a%2Bb/messages:send", .v1(project: "a+b"), .bearer(project: "a+b")),
            ("/token", .token, HTTPRoute.Credential.none),
            ("/iid/v1:batchAdd", .iidBatch(add: true), .serverKeyOrBearer),
            ("/iid/v1/T/rel/topics/news", .iidRelation(token: "T", topic: "news"), .serverKeyOrBearer),
            (
                "/v1/projects/demo/registrations/T/topicSubscriptions",
                .topicSubscription(project: "demo", token: "T", topic: nil),
                .bearer(project: "demo")
            ),
            ("/fcm/notification", .groups, .serverKeyOrBearer),
            ("/emulator/v1/projects/demo/devices", .control(project: "demo", rest: "/devices"), .controlToken),
            ("/nowhere", nil, nil),
        ]
        for (path, route, credential) in cases {
            #expect(HTTPRoute(path: path) == route, "\(path)")
            #expect(HTTPRoute(path: path)?.credential == credential, "\(path)")
        }
        #expect(HTTPRoute.legacy.isSend && HTTPRoute.v1(project: "p").isSend && !HTTPRoute.token.isSend)
        #expect(HTTPSendService.isSend(method: "POST", path: "/fcm/send"))
        #expect(!HTTPSendService.isSend(method: "POST", path: "/iid/v1:batchAdd"))
    }

    static func request(_ path: String, authorization: String?) -> HTTPRequestParts {
        HTTPRequestParts(
            method: "POST", path: path, headers: authorization.map { ["Authorization": $0] } ?? [:], body: [])
    }

    @Test("the step answers each API's refusal in that API's body, and lets the right caller in")
    func theStep() async throws {
        let device = TestDevice()
        let step = device.service.authenticator
        let legacy = step.authenticate(Self.request("/fcm/send", authorization: "key=nope"), for: .legacy)
        #expect((try? legacy.get()) == nil)
        if case .failure(let refused) = legacy {
            #expect(refused.reply.status == 401 && refused.reply.body.hasPrefix("Unauthorized"))
        }
        let allowed = step.authenticate(Self.request("/fcm/send", authorization: "key=\(TestDevice.key)"), for: .legacy)
        #expect(
            try allowed.get()
                == .sender(SenderConfig(id: TestDevice.sender, key: TestDevice.key, project: TestDevice.project)))

        let bearer = try await device.bearer()
        let v1 = step.authenticate(
            Self.request("/v1/projects/\(TestDevice.project)/messages:send", authorization: "Bearer \(bearer)"),
            for: .v1(project: TestDevice.project))
        #expect((try? v1.get()) != nil)
        let elsewhere = step.authenticate(
            Self.request("/v1/projects/other/messages:send", authorization: "Bearer \(bearer)"),
            for: .v1(project: "other"))
        if case .failure(let refused) = elsewhere {
            #expect(refused.reply.status == 403 && refused.reply.body.contains("PERMISSION_DENIED"))
        } else {
            Issue.record("a bearer granted for one project sent for another")
        }
        let iid = step.authenticate(
            Self.request("/iid/v1:batchAdd", authorization: "Bearer \(bearer)"), for: .iidBatch(add: true))
        #expect((try? iid.get()) != nil)
        let open = step.authenticate(Self.request("/healthz", authorization: nil), for: .healthz)
        #expect(try open.get() == .anyone)
    }

    @Test("the control API's token is checked by the same step")
    func theControlToken() throws {
        let step = HTTPAuthenticator(findSender: { AppServerSendersFixture.none.find($0) }, controlToken: "secret")
        let route = HTTPRoute.control(project: "p", rest: "/devices")
        let missing = step.authenticate(Self.request("/emulator/v1/projects/p/devices", authorization: nil), for: route)
        if case .failure(let refused) = missing { #expect(refused.reply.status == 401) } else { Issue.record("let in") }
        let right = step.authenticate(
            Self.request("/emulator/v1/projects/p/devices", authorization: "Bearer secret"), for: route)
        #expect(try right.get() == .controller)
        let closed = HTTPAuthenticator(
            findSender: { AppServerSendersFixture.none.find($0) }, controlClosedBecause: "closed here")
        if case .failure(let refused) = closed.authenticate(
            Self.request("/emulator/v1/projects/p/devices", authorization: "Bearer secret"), for: route)
        {
            #expect(refused.reply.status == 403 && refused.reply.body.contains("closed here"))
        } else {
            Issue.record("a closed control API let a caller in")
        }
    }
}

/// A device's senders when no phone registers with any.
enum AppServerSendersFixture {
    static var none: AppServerSenders {
        DeviceEngine(EngineConfiguration(senders: [])).appServerSenders
    }
}
