import FCMEngine
import FCMHTTPAPI
import FCMHTTPPort
import Testing

extension TestDevice {
    func request(
        _ method: String, _ path: String, query: String = "", headers: [String: String], body: String = ""
    ) async -> HTTPReply {
        await service.respond(
            HTTPRequestParts(method: method, path: path, query: query, headers: headers, body: Array(body.utf8)))
    }

    func iid(_ path: String, _ json: String, authorization: String = "key=\(TestDevice.key)") async -> HTTPReply {
        await request(
            "POST", path, headers: ["Authorization": authorization, "Content-Type": "application/json"], body: json)
    }

    func topicSubscriptionsPath(_ token: String, project: String = TestDevice.project) -> String {
        let encoded = token.replacingOccurrences(of: ":", with: "%3A")
        return "/v1/projects/\(project)/registrations/\(encoded)/topicSubscriptions"
    }
}

@Suite("HTTP topic management and topic sends")
struct TopicRouteTests {
    @Test("error faults with Instance ID names fail one token's topic calls: IID results, and v1 statuses")
    func topicCallFaults() async throws {
        let device = TestDevice()
        device.apply(.addFault(Fault(token: device.token(), kind: .error("INTERNAL"), count: 1)))
        let batch = await device.iid(
            "/iid/v1:batchAdd", #"{"to":"/topics/news","registration_tokens":["\#(device.token())"]}"#)
        let results = try #require(try JSON.object(batch.body)["results"] as? [[String: Any]])
        #expect(results.first?["error"] as? String == "INTERNAL")
        device.apply(.addFault(Fault(token: device.token(), kind: .error("RESOURCE_EXHAUSTED"), count: 1)))
        let bearer = try await device.bearer()
        let v1 = await device.request(
            "POST", device.topicSubscriptionsPath(device.token()), query: "topic_name=news",
            headers: ["Authorization": "Bearer \(bearer)"])
        #expect(v1.status == 429)
        #expect(v1.body.contains("RESOURCE_EXHAUSTED"))
        #expect(device.events(named: "faultInjected").count == 2)
    }

    @Test("IID batchAdd answers one result per token in order, errors by name; batchRemove removes")
    func iidBatch() async throws {
        let device = TestDevice()
        let tokens = [device.token(), "garbage", device.token(TestDevice.other)]
        let list = tokens.map { "\"\($0)\"" }.joined(separator: ",")
        let reply = await device.iid(
            "/iid/v1:batchAdd", #"{"to":"/topics/news","registration_tokens":[\#(list)]}"#)
        #expect(reply.status == 200)
        let results = try #require(try JSON.object(reply.body)["results"] as? [[String: Any]])
        #expect(results.count == 3)
        #expect(results[0].isEmpty)
        #expect(results[1]["error"] as? String == "INVALID_ARGUMENT")
        #expect(results[2]["error"] as? String == "INVALID_ARGUMENT")
        #expect(device.events(named: "topicSubscribed").count == 1)
        let removed = await device.iid(
            "/iid/v1:batchRemove", #"{"to":"news","registration_tokens":["\#(device.token())"]}"#)
        #expect(removed.status == 200)
        #expect(device.events(named: "topicUnsubscribed").count == 1)
    }

    @Test("IID calls take a bearer token too; bad auth is 401, a bad body or topic 400, nothing changed")
    func iidErrors() async throws {
        let device = TestDevice()
        let body = #"{"to":"/topics/news","registration_tokens":["\#(device.token())"]}"#
        let bearer = try await device.bearer()
        #expect(await device.iid("/iid/v1:batchAdd", body, authorization: "Bearer \(bearer)").status == 200)
        #expect(await device.iid("/iid/v1:batchAdd", body, authorization: "key=wrong").status == 401)
        let badTopic = await device.iid(
            "/iid/v1:batchAdd", #"{"to":"/topics/bad name","registration_tokens":["\#(device.token())"]}"#)
        #expect(badTopic.status == 400)
        #expect(
            try JSON.object(badTopic.body)["error"] as? String
                == #"topic "bad name" has " "; names use only letters, digits and - _ . ~ %"#)
        #expect(await device.iid("/iid/v1:batchAdd", #"{"to":"/topics/x"}"#).status == 400)
        #expect(await device.iid("/iid/v1:batchAdd", "{nope").status == 400)
        #expect(device.events(named: "topicSubscribed").count == 1)
    }

    @Test("v1 topicSubscriptions: create (topic_name or topicName), again is 409, delete honours allow_missing")
    func v1Subscriptions() async throws {
        let device = TestDevice()
        let auth = ["Authorization": "Bearer \(try await device.bearer())", "Content-Type": "application/json"]
        let path = device.topicSubscriptionsPath(device.token())
        let created = await device.request("POST", path, query: "topic_name=news", headers: auth, body: "{}")
        #expect(created.status == 200, "\(created.body)")
        #expect(try JSON.object(created.body)["topicName"] as? String == "news")
        let again = await device.request("POST", path, query: "topicName=news", headers: auth, body: "{}")
        #expect(again.status == 409)
        #expect(try JSON.v1Error(again.body).status == "ALREADY_EXISTS")
        #expect(await device.request("DELETE", path + "/news", headers: auth).status == 200)
        let missing = await device.request("DELETE", path + "/news", headers: auth)
        #expect(missing.status == 404)
        let allowed = await device.request("DELETE", path + "/news", query: "allow_missing=true", headers: auth)
        #expect(allowed.status == 200)
        let unknown = await device.request(
            "POST", device.topicSubscriptionsPath("garbage"), query: "topic_name=news", headers: auth, body: "{}")
        #expect(unknown.status == 400)
        let noAuth = await device.request("POST", path, query: "topic_name=news", headers: [:], body: "{}")
        #expect(noAuth.status == 401)
        #expect(await device.request("PUT", path, headers: auth).status == 405)
    }

    @Test("a legacy topic send answers a numeric message_id and reaches the subscribed device from the topic")
    func legacyTopicSend() async throws {
        let device = TestDevice()
        device.apply(.on(.subscribe(topic: "news", sender: nil)))
        let reply = await device.legacy(#"{"to":"/topics/news","data":{"k":"v"}}"#)
        #expect(reply.status == 200)
        #expect(try JSON.object(reply.body)["message_id"] is Int)
        let received = try #require(device.events(named: "onMessageReceived").first)
        #expect(received.string("from") == "/topics/news")
        let condition = await device.legacy(#"{"condition":"'news' in topics","data":{"k":"v"}}"#)
        #expect(try JSON.object(condition.body)["message_id"] is Int)
        #expect(device.events(named: "onMessageReceived").count == 2)
        let bad = await device.legacy(#"{"condition":"'news' in","data":{"k":"v"}}"#)
        #expect(try JSON.object(bad.body)["error"] as? String == "InvalidParameters")
        let both = await device.legacy(#"{"condition":"'news' in topics","to":"/topics/news"}"#)
        #expect(both.status == 400)
    }

    @Test("v1 topic and condition sends answer a message name; a bad condition is INVALID_ARGUMENT with its column")
    func v1TopicSend() async throws {
        let device = TestDevice()
        device.apply(.on(.subscribe(topic: "news", sender: nil)))
        let bearer = try await device.bearer()
        let topic = await device.v1(#"{"message":{"topic":"news","data":{"k":"v"}}}"#, bearer: bearer)
        #expect(topic.status == 200)
        let condition = await device.v1(
            #"{"message":{"condition":"'news' in topics && !('sport' in topics)"}}"#, bearer: bearer)
        #expect(condition.status == 200)
        #expect(device.events(named: "onMessageReceived").count == 2)
        let bad = await device.v1(#"{"message":{"condition":"'news' in topics &&"}}"#, bearer: bearer)
        #expect(bad.status == 400)
        #expect(try JSON.v1Error(bad.body).status == "INVALID_ARGUMENT")
        #expect(bad.body.contains("column"))
    }
}
