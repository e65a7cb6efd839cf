import FCMEngine
import FCMHTTPAPI
import Foundation
import Testing

/// The six methods of Google's discovery document for FCM v1: beside `messages.send`,
/// `topicSubscriptions` `create`, `get`, `list`, `patch` and `delete`, on a registration
/// named by its token or its installation's FID.
@Suite("HTTP v1 topicSubscriptions: every method")
struct V1TopicSubscriptionMethodsTests {
    func subscribed(_ topics: [String]) async throws -> (TestDevice, [String: String], String) {
        let device = TestDevice()
        let auth = ["Authorization": "Bearer \(try await device.bearer())", "Content-Type": "application/json"]
        let path = device.topicSubscriptionsPath(device.token())
        for topic in topics {
            let created = await device.request("POST", path, query: "topicName=\(topic)", headers: auth, body: "{}")
            #expect(created.status == 200, "\(created.body)")
        }
        return (device, auth, path)
    }

    @Test("get answers a TopicSubscription, and 404 for a topic the registration is not subscribed to")
    func get() async throws {
        let (device, auth, path) = try await subscribed(["news"])
        let found = await device.request("GET", path + "/news", headers: auth)
        #expect(found.status == 200, "\(found.body)")
        let object = try JSON.object(found.body)
        #expect(object["topicName"] as? String == "news")
        #expect((object["name"] as? String)?.hasSuffix("/topicSubscriptions/news") == true)
        let missing = await device.request("GET", path + "/sports", headers: auth)
        #expect(missing.status == 404)
        #expect(try JSON.v1Error(missing.body).status == "NOT_FOUND")
    }

    @Test("list pages through the topics in name order with pageSize and pageToken")
    func list() async throws {
        let (device, auth, path) = try await subscribed(["c", "a", "b"])
        let first = await device.request("GET", path, query: "pageSize=2", headers: auth)
        #expect(first.status == 200, "\(first.body)")
        let page = try JSON.object(first.body)
        let names = (page["topicSubscriptions"] as? [[String: Any]] ?? []).compactMap { $0["topicName"] as? String }
        #expect(names == ["a", "b"])
        let next = try #require(page["nextPageToken"] as? String)
        let second = try JSON.object(
            await device.request("GET", path, query: "pageSize=2&pageToken=\(next)", headers: auth).body)
        #expect(
            (second["topicSubscriptions"] as? [[String: Any]] ?? []).compactMap { $0["topicName"] as? String } == ["c"])
        #expect(second["nextPageToken"] == nil)
        let bad = await device.request("GET", path, query: "pageSize=many", headers: auth)
        #expect(bad.status == 400)
    }

    @Test("patch answers an existing subscription, 404 for a missing one, and creates it with allowMissing")
    func patch() async throws {
        let (device, auth, path) = try await subscribed(["news"])
        #expect(await device.request("PATCH", path + "/news", headers: auth, body: "{}").status == 200)
        #expect(await device.request("PATCH", path + "/sports", headers: auth, body: "{}").status == 404)
        let created = await device.request(
            "PATCH", path + "/sports", query: "allowMissing=true", headers: auth, body: "{}")
        #expect(created.status == 200, "\(created.body)")
        #expect(device.events(named: "topicSubscribed").map { $0.string("topic") } == ["news", "sports"])
        let misnamed = await device.request(
            "PATCH", path + "/news", headers: auth, body: #"{"name":"projects/p/registrations/x/topicSubscriptions/y"}"#
        )
        #expect(misnamed.status == 400)
        let typo = await device.request("PATCH", path + "/news", headers: auth, body: #"{"topicNmae":"news"}"#)
        #expect(typo.status == 400)
        #expect(typo.body.contains(#"Unknown name \"topicNmae\""#), "\(typo.body)")
    }

    @Test("a registration may be named by its installation's FID, for every method")
    func byFID() async throws {
        let device = TestDevice()
        let auth = ["Authorization": "Bearer \(try await device.bearer())", "Content-Type": "application/json"]
        let fid = String(device.token().prefix { $0 != ":" })
        let path = device.topicSubscriptionsPath(fid)
        #expect(await device.request("POST", path, query: "topicName=news", headers: auth, body: "{}").status == 200)
        #expect(await device.request("GET", path + "/news", headers: auth).status == 200)
        let listed = try JSON.object(await device.request("GET", path, headers: auth).body)
        #expect((listed["topicSubscriptions"] as? [Any])?.count == 1)
        #expect(await device.request("DELETE", path + "/news", headers: auth).status == 200)
        #expect(device.events(named: "topicUnsubscribed").first?.string("token") == device.token())
    }
}
