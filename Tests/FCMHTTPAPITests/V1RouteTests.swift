import FCMCredentials
import FCMEngine
import FCMHTTPAPI
import FCMHTTPPort
import Testing

@Suite("HTTP v1 messages:send")
struct V1RouteTests {
    @Test("a bearer token from the token endpoint sends; the reply names the message")
    func send() async throws {
        let device = TestDevice()
        let bearer = try await device.bearer()
        let reply = await device.v1(
            #"{"message":{"token":"\#(device.token())","data":{"k":"v"},"notification":{"title":"Hi"}}}"#,
            bearer: bearer)
        #expect(reply.status == 200)
        let name = try #require(try JSON.object(reply.body)["name"] as? String)
        #expect(name.hasPrefix("projects/\(TestDevice.project)/messages/0:"))
        // The sender ID (project number) names the project too.
        let byNumber = await device.v1(
            #"{"message":{"token":"\#(device.token())"}}"#, bearer: bearer, project: TestDevice.sender)
        #expect(byNumber.status == 200)
    }

    @Test("android overrides map onto the engine: ttl as a duration, priority, collapse key, notification")
    func androidOverrides() async throws {
        let device = TestDevice()
        let reply = await device.v1(
            #"""
            {"message":{"token":"\#(device.token())","notification":{"title":"A"},
             "android":{"ttl":"3.5s","priority":"HIGH","collapse_key":"score","notification":{"title":"B","tag":"t"}}}}
            """#, bearer: try await device.bearer())
        #expect(reply.status == 200)
        let accepted = try #require(device.events(named: "downstreamAccepted").first)
        #expect(accepted.string("priority") == "high")
        #expect(accepted.string("collapse_key") == "score")
        #expect(accepted.fields.contains(Field("ttl", .int(3))))
        let posted = try #require(device.events(named: "onMessageReceived").first)
        #expect(
            posted.fields.contains {
                $0.name == "notification" && $0.value == .map([KeyValue("tag", "t"), KeyValue("title", "B")])
            })
    }

    @Test("apns overrides apply on an iOS device: priority 5 is normal, collapse id, aps alert")
    func apnsOverrides() async throws {
        let device = TestDevice(platform: .ios)
        let reply = await device.v1(
            #"""
            {"message":{"token":"\#(device.token())",
             "apns":{"headers":{"apns-priority":"5","apns-collapse-id":"news"},
                     "payload":{"aps":{"alert":{"title":"T","body":"B"},"content-available":1}}}}}
            """#, bearer: try await device.bearer())
        #expect(reply.status == 200, "\(reply.body)")
        let accepted = try #require(device.events(named: "downstreamAccepted").first)
        #expect(accepted.string("priority") == "normal")
        #expect(accepted.string("collapse_key") == "news")
    }

    @Test("fid targets the sender's token of that installation; validate_only delivers nothing")
    func fidAndValidateOnly() async throws {
        let device = TestDevice()
        let bearer = try await device.bearer()
        let fid = String(device.token().prefix { $0 != ":" })
        let byFid = await device.v1(#"{"message":{"fid":"\#(fid)","data":{"k":"v"}}}"#, bearer: bearer)
        #expect(byFid.status == 200)
        #expect(device.events(named: "onMessageReceived").count == 1)
        let dry = await device.v1(
            #"{"validate_only":true,"message":{"token":"\#(device.token())"}}"#, bearer: bearer)
        #expect(
            try JSON.object(dry.body)["name"] as? String == "projects/\(TestDevice.project)/messages/fake_message_id")
        #expect(device.events(named: "onMessageReceived").count == 1)
    }

    @Test("refusals use the google.rpc shape with the FcmError code and its HTTP status")
    func refusals() async throws {
        let device = TestDevice()
        let bearer = try await device.bearer()
        let old = device.token()
        device.apply(.on(.refreshToken(sender: TestDevice.sender)))
        let cases: [(String, Int, String, String?)] = [
            (#"{"message":{"token":"\#(old)"}}"#, 404, "NOT_FOUND", "UNREGISTERED"),
            (
                #"{"message":{"token":"\#(device.token(TestDevice.other))"}}"#, 403, "PERMISSION_DENIED",
                "SENDER_ID_MISMATCH"
            ),
            (#"{"message":{"token":"junk"}}"#, 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT"),
            (#"{"message":{"data":{"k":"v"}}}"#, 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT"),
            (#"{"message":{"token":"a","topic":"b"}}"#, 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT"),
            // Refused by the schema before FCM sees them: a BadRequest detail, no FcmError.
            (#"{"message":{"token":"\#(device.token())","data":{"n":1}}}"#, 400, "INVALID_ARGUMENT", nil),
            (#"{"message":{"token":"\#(device.token())","android":{"ttl":"ten"}}}"#, 400, "INVALID_ARGUMENT", nil),
            ("[1,2", 400, "INVALID_ARGUMENT", "INVALID_ARGUMENT"),
        ]
        for (body, status, rpc, code) in cases {
            let reply = await device.v1(body, bearer: bearer)
            #expect(reply.status == status, "\(body.prefix(50)): \(reply.body)")
            let error = try JSON.v1Error(reply.body)
            #expect(error.status == rpc)
            #expect(error.code == code)
        }
        let ttl = await device.v1(
            #"{"message":{"token":"\#(device.token())","android":{"ttl":"ten"}}}"#, bearer: bearer)
        #expect(ttl.body.contains("message.android.ttl"))
    }

    @Test("service down is 503 UNAVAILABLE with an integer Retry-After")
    func serviceDown() async throws {
        let device = TestDevice()
        let bearer = try await device.bearer()
        device.apply(.setService(up: false))
        let reply = await device.v1(#"{"message":{"token":"\#(device.token())"}}"#, bearer: bearer)
        #expect(reply.status == 503)
        #expect(try JSON.v1Error(reply.body).code == "UNAVAILABLE")
        #expect(reply.header("Retry-After") == String(HTTPSendService.retryAfterSeconds))
    }

    @Test("bearer tokens: none, unknown and expired are 401; only an expired one says ACCESS_TOKEN_EXPIRED")
    func bearerChecks() async throws {
        let device = TestDevice()
        let body = #"{"message":{"token":"\#(device.token())"}}"#
        let missing = await device.v1(body, bearer: nil)
        #expect(missing.status == 401)
        #expect(try JSON.v1Error(missing.body) == ("UNAUTHENTICATED", nil, nil))
        let unknown = await device.v1(body, bearer: "ya29.made-up")
        #expect(unknown.status == 401)
        #expect(try JSON.v1Error(unknown.body).reason == nil)
        let bearer = try await device.bearer()
        device.advanceClock(seconds: AccessTokens.lifetime + 1)
        let expired = await device.v1(body, bearer: bearer)
        #expect(expired.status == 401)
        #expect(try JSON.v1Error(expired.body).reason == "ACCESS_TOKEN_EXPIRED")
        #expect(device.events(named: "downstreamAccepted").isEmpty)
    }

    @Test("a token for one project cannot send for another: 403 PERMISSION_DENIED")
    func projectMismatch() async throws {
        let device = TestDevice()
        let bearer = try await device.bearer()
        let reply = await device.v1(
            #"{"message":{"token":"\#(device.token(TestDevice.other))"}}"#, bearer: bearer, project: TestDevice.other)
        #expect(reply.status == 403)
        #expect(try JSON.v1Error(reply.body).status == "PERMISSION_DENIED")
        let unknown = await device.v1(#"{"message":{"token":"x"}}"#, bearer: bearer, project: "nobody")
        #expect(unknown.status == 403)
    }

    @Test("the project in the path is read percent-decoded; a path with more or fewer segments is 404")
    func projectInThePath() async throws {
        let device = TestDevice()
        let bearer = try await device.bearer()
        let body = #"{"message":{"token":"\#(device.token())"}}"#
        let encoded = TestDevice.project.utf8.map { "%" + String($0, radix: 16) }.joined()
        let headers = ["Content-Type": "application/json", "authorization": "Bearer \(bearer)"]
        let decoded = await device.post("/v1/projects/\(encoded)/messages:send", headers: headers, body: body)
        #expect(decoded.status == 200, "\(decoded.body)")
        for path in [
            "/v1/projects//messages:send", "/v1/projects/a/b/messages:send", "/v1/projects/messages:send",
            "/v1/projects/\(TestDevice.project)/messages:sendx",
        ] {
            let reply = await device.post(path, headers: headers, body: body)
            #expect(reply.status == 404, "\(path)")
        }
        #expect(device.events(named: "downstreamAccepted").count == 1)
    }
}

/// What FCM refuses in a v1 body, refused here too, by Google's own schema.
@Suite("HTTP v1: the schema")
struct V1SchemaTests {
    @Test(
        "a misspelled or misplaced name, or a value of the wrong type, is 400 naming it",
        arguments: [
            (#""notificaton":{"title":"x"}"#, #"Unknown name "notificaton" at 'message'"#),
            (#""notification":{"titel":"x"}"#, #"Unknown name "titel" at 'message.notification'"#),
            (#""notification":{"title":5}"#, "Invalid value at 'message.notification.title' (TYPE_STRING), 5"),
            (#""android":{"priorty":"HIGH"}"#, #"Unknown name "priorty" at 'message.android'"#),
            (
                ##""android":{"notification":{"colour":"#fff"}}"##,
                #"Unknown name "colour" at 'message.android.notification'"#
            ),
            (#""android":{"direct_boot_ok":"yes"}"#, "Invalid value at 'message.android.direct_boot_ok' (TYPE_BOOL)"),
            (#""apns":{"header":{}}"#, #"Unknown name "header" at 'message.apns'"#),
        ])
    func refused(fields: String, words: String) async throws {
        let device = TestDevice()
        let reply = await device.v1(
            #"{"message":{"token":"\#(device.token())",\#(fields)}}"#, bearer: try await device.bearer())
        #expect(reply.status == 400, "\(reply.body)")
        #expect(reply.body.contains(words.replacingOccurrences(of: "\"", with: "\\\"")), "\(reply.body)")
        #expect(try JSON.v1Error(reply.body).status == "INVALID_ARGUMENT")
        #expect(device.events(named: "downstreamAccepted").isEmpty)
    }

    @Test("an unknown name beside the message is refused too")
    func unknownAtTheTop() async throws {
        let device = TestDevice()
        let reply = await device.v1(
            #"{"message":{"token":"\#(device.token())"},"validate":true}"#, bearer: try await device.bearer())
        #expect(reply.status == 400)
        #expect(reply.body.contains(#"Unknown name \"validate\": Cannot find field."#), "\(reply.body)")
    }

    @Test("lowerCamelCase names are Google's JSON too, and take effect")
    func lowerCamelCase() async throws {
        let device = TestDevice()
        let reply = await device.v1(
            #"{"message":{"token":"\#(device.token())","android":{"collapseKey":"score","directBootOk":true}},"validateOnly":false}"#,
            bearer: try await device.bearer())
        #expect(reply.status == 200, "\(reply.body)")
        #expect(device.events(named: "downstreamAccepted").first?.string("collapse_key") == "score")
    }
}
