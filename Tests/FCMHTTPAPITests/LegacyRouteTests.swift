import FCMEngine
import FCMHTTPAPI
import FCMHTTPPort
import Testing

@Suite("HTTP legacy /fcm/send")
struct LegacyRouteTests {
    @Test("a message to a token is accepted, delivered and answered in the multicast shape")
    func sendToToken() async throws {
        let device = TestDevice()
        let reply = await device.legacy(#"{"to":"\#(device.token())","data":{"score":"1-0"}}"#)
        #expect(reply.status == 200)
        #expect(reply.header("Retry-After") == nil)
        let body = try JSON.object(reply.body)
        #expect(body["success"] as? Int == 1)
        #expect(body["failure"] as? Int == 0)
        #expect(body["canonical_ids"] as? Int == 0)
        #expect((body["multicast_id"] as? Int64 ?? 0) > 0)
        let id = try #require((body["results"] as? [[String: Any]])?.first?["message_id"] as? String)
        #expect(id.hasPrefix("0:"))
        let received = try #require(device.events(named: "onMessageReceived").first)
        #expect(received.string("id") == id)
    }

    @Test("a name the legacy API does not know (a misspelt time_to_live) is taken as absent and listed as ignored")
    func anUnknownNameIsListedAsIgnored() async throws {
        let device = TestDevice()
        let reply = await device.legacy(#"{"to":"\#(device.token())","time_to_lve":5,"data":{"k":"v"}}"#)
        #expect(reply.status == 200)
        let accepted = try #require(device.events(named: "downstreamAccepted").first)
        #expect(accepted["ttl"] == .int(2_419_200), "the default TTL: the misspelt one was not read")
        let received = try #require(device.events(named: "onMessageReceived").first)
        #expect(received["ignored"] == .list(["time_to_lve"]))
        let plain = await device.legacy(#"{"to":"\#(device.token())","time_to_live":5,"data":{"k":"v"}}"#)
        #expect(plain.status == 200)
        #expect(device.events(named: "onMessageReceived").last?["ignored"] == nil)
    }

    @Test("registration_ids get one result each, in request order, with the legacy error names")
    func multicastOrder() async throws {
        let device = TestDevice()
        let old = device.token()
        device.apply(.on(.refreshToken(sender: TestDevice.sender)))
        let ids = [device.token(), "not-a-token", old, device.token(TestDevice.other)]
        let reply = await device.legacy(
            #"{"registration_ids":[\#(ids.map { "\"\($0)\"" }.joined(separator: ","))],"data":{"k":"v"}}"#)
        #expect(reply.status == 200)
        let body = try JSON.object(reply.body)
        let results = try #require(body["results"] as? [[String: Any]])
        #expect(results.count == 4)
        #expect((results[0]["message_id"] as? String)?.hasPrefix("0:") == true)
        #expect(
            results.dropFirst().map { $0["error"] as? String } == [
                "InvalidRegistration", "NotRegistered", "MismatchSenderId",
            ])
        #expect(body["success"] as? Int == 1)
        #expect(body["failure"] as? Int == 3)
    }

    @Test("payload rules give per-result errors: MissingRegistration, MessageTooBig, InvalidDataKey, InvalidTtl")
    func payloadErrors() async throws {
        let device = TestDevice()
        let token = device.token()
        let big = String(repeating: "x", count: 4_100)
        let cases = [
            (#"{"data":{"k":"v"}}"#, "MissingRegistration"),
            (#"{"to":"\#(token)","data":{"k":"\#(big)"}}"#, "MessageTooBig"),
            (#"{"to":"\#(token)","data":{"from":"me"}}"#, "InvalidDataKey"),
            (#"{"to":"\#(token)","time_to_live":2419201}"#, "InvalidTtl"),
        ]
        for (json, error) in cases {
            let reply = await device.legacy(json)
            #expect(reply.status == 200)
            let results = try JSON.object(reply.body)["results"] as? [[String: Any]]
            #expect(results?.first?["error"] as? String == error, "\(json.prefix(40))")
        }
    }

    @Test("a bad or missing server key is 401; /gcm/send is the same API")
    func authentication() async throws {
        let device = TestDevice()
        #expect(await device.legacy(#"{"to":"x"}"#, key: "wrong").status == 401)
        #expect(await device.post("/fcm/send", headers: [:], body: #"{"to":"x"}"#).status == 401)
        let alias = await device.legacy(#"{"to":"\#(device.token())"}"#, path: "/gcm/send")
        #expect(alias.status == 200)
        // The second sender's key authenticates as that sender: the first sender's token mismatches.
        let other = await device.legacy(#"{"to":"\#(device.token())"}"#, key: "other-key")
        #expect(other.body.contains("MismatchSenderId"))
    }

    @Test("a JSON body without Content-Type is read as a form, as GCM did, and the refusal says so")
    func noContentType() async {
        let device = TestDevice()
        let reply = await device.post(
            "/fcm/send", headers: ["Authorization": "key=\(TestDevice.key)"],
            body: #"{"to":"\#(device.token())","data":{"k":"v"}}"#)
        #expect(reply.body.contains("Error=MissingRegistration"), "\(reply.body)")
        let detail = device.events(named: "downstreamRejected").last?.string("detail") ?? ""
        #expect(detail.contains("read as a form") && detail.contains("Content-Type: application/json"), "\(detail)")
        // A form with Content-Type says nothing of it.
        _ = await device.post(
            "/fcm/send",
            headers: ["Authorization": "key=\(TestDevice.key)", "Content-Type": "application/x-www-form-urlencoded"],
            body: "data.k=v")
        #expect(device.events(named: "downstreamRejected").last?.string("detail")?.contains("read as a form") == false)
    }

    @Test("malformed bodies are 400 with a reason naming what is wrong")
    func badRequests() async throws {
        let device = TestDevice()
        let tooMany = (0...ServiceLimits.maxRegistrationIDs).map { "\"t\($0)\"" }.joined(separator: ",")
        let cases = [
            ("{not json", "JSON_PARSING_ERROR"),
            (#"{"to":5}"#, #"Field "to" must be a JSON java.lang.String"#),
            (#"{"to":"\#(device.token())","time_to_live":"soon"}"#, "time_to_live"),
            (#"{"registration_ids":[\#(tooMany)]}"#, "exceeds maximum allowed (1000)"),
            (#"{"to":"a","registration_ids":["b"]}"#, "not both"),
        ]
        for (json, reason) in cases {
            let reply = await device.legacy(json)
            #expect(reply.status == 400, "\(json.prefix(30))")
            #expect(reply.body.contains(reason), "\(reply.body)")
        }
        #expect(device.events(named: "downstreamAccepted").isEmpty)
    }

    @Test("dry_run validates without delivering and answers fake_message_id")
    func dryRun() async throws {
        let device = TestDevice()
        let reply = await device.legacy(#"{"to":"\#(device.token())","dry_run":true,"data":{"k":"v"}}"#)
        let body = try JSON.object(reply.body)
        #expect(body["multicast_id"] as? Int == -1)
        #expect((body["results"] as? [[String: Any]])?.first?["message_id"] as? String == "fake_message_id")
        #expect(device.events(named: "onMessageReceived").isEmpty)
    }

    @Test("form-encoded bodies get the plain-text reply")
    func plainText() async throws {
        let device = TestDevice()
        let headers = ["Authorization": "key=\(TestDevice.key)", "Content-Type": "application/x-www-form-urlencoded"]
        let ok = await device.post(
            "/fcm/send", headers: headers, body: "registration_id=\(device.token())&data.greeting=hi+there%21")
        #expect(ok.status == 200)
        #expect(ok.body.hasPrefix("id=0:"))
        let received = try #require(device.events(named: "onMessageReceived").first)
        #expect(received.fields.contains { $0.name == "data" && $0.value == .map([KeyValue("greeting", "hi there!")]) })
        let refused = await device.post("/fcm/send", headers: headers, body: "registration_id=nope")
        #expect(refused.body == "Error=InvalidRegistration\n")
        let broken = await device.post("/fcm/send", headers: headers, body: "registration_id=%zz")
        #expect(broken.status == 400)
    }

    @Test("while the service is down: 503 with an integer Retry-After, and nothing is delivered")
    func serviceDown() async throws {
        let device = TestDevice()
        device.apply(.setService(up: false))
        let reply = await device.legacy(#"{"to":"\#(device.token())"}"#)
        #expect(reply.status == 503)
        #expect(reply.header("Retry-After").flatMap(Int.init) == HTTPSendService.retryAfterSeconds)
        #expect(device.events(named: "downstreamAccepted").isEmpty)
    }

    @Test("unknown paths are 404 and other methods 405")
    func routing() async throws {
        let device = TestDevice()
        #expect(await device.post("/fcm/sendx", body: "").status == 404)
        let get = await device.service.respond(HTTPRequestParts(method: "GET", path: "/fcm/send"))
        #expect(get.status == 405)
        #expect(get.header("Allow") == "POST")
    }

    @Test("a path with quotes is named in a 404 or 405 body that is still valid JSON")
    func refusedPathsAreEscaped() async throws {
        let device = TestDevice()
        let notFound = await device.post(#"/x"y\z"#, body: "")
        #expect(
            try JSON.object(notFound.body)["error"] as? String
                == #"no such endpoint: POST /x"y\z; this emulator serves "# + HTTPRoute.listed)
        let wrongMethod = await device.service.respond(
            HTTPRequestParts(method: "GET", path: #"/v1/projects/a"b/messages:send"#))
        #expect(wrongMethod.status == 405)
        #expect(
            try JSON.object(wrongMethod.body)["error"] as? String == #"/v1/projects/a"b/messages:send takes POST"#
        )
    }
}
