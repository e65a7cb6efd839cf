import FCMEngine
import FCMHTTPAPI
import FCMHTTPPort
import Testing

extension TestDevice {
    func groupCall(_ json: String, project: String = TestDevice.sender, key: String = TestDevice.key) async
        -> HTTPReply
    {
        await request(
            "POST", "/fcm/notification",
            headers: ["Authorization": "key=\(key)", "Content-Type": "application/json", "project_id": project],
            body: json)
    }
}

@Suite("HTTP device groups")
struct GroupRouteTests {
    @Test("create answers a notification_key; a send to it answers success and failure without multicast_id")
    func createAndSend() async throws {
        let device = TestDevice()
        let old = device.token()
        device.apply(.on(.refreshToken(sender: TestDevice.sender)))
        let created = await device.groupCall(
            #"{"operation":"create","notification_key_name":"family","registration_ids":["\#(device.token())"]}"#)
        #expect(created.status == 200, "\(created.body)")
        let key = try #require(try JSON.object(created.body)["notification_key"] as? String)
        let lookup = await device.request(
            "GET", "/fcm/notification", query: "notification_key_name=family",
            headers: ["Authorization": "key=\(TestDevice.key)", "project_id": TestDevice.sender])
        #expect(try JSON.object(lookup.body)["notification_key"] as? String == key)
        // A stale member: the token before the refresh cannot join; the reply says so.
        let stale = await device.groupCall(
            #"{"operation":"add","notification_key":"\#(key)","registration_ids":["\#(old)"]}"#)
        #expect(stale.status == 400)
        let sent = await device.legacy(#"{"to":"\#(key)","data":{"k":"v"}}"#)
        let reply = try JSON.object(sent.body)
        #expect(reply["success"] as? Int == 1)
        #expect(reply["failure"] as? Int == 0)
        #expect(reply["multicast_id"] == nil)
        #expect(reply["failed_registration_ids"] == nil)
        device.apply(.on(.uninstall))
        let afterUninstall = try JSON.object(await device.legacy(#"{"to":"\#(key)","data":{"k":"v"}}"#).body)
        #expect(afterUninstall["failure"] as? Int == 1)
        #expect(afterUninstall["failed_registration_ids"] as? [String] == [device.lastIssuedToken()])
    }

    @Test("errors: a taken name, an unknown key, no project_id, another project, a bad operation")
    func errors() async throws {
        let device = TestDevice()
        let create = #"{"operation":"create","notification_key_name":"n","registration_ids":["\#(device.token())"]}"#
        #expect(await device.groupCall(create).status == 200)
        let again = await device.groupCall(create)
        #expect(again.status == 400)
        #expect(try JSON.object(again.body)["error"] as? String == "notification_key already exists")
        let unknown = await device.groupCall(
            #"{"operation":"add","notification_key":"APA91bx","registration_ids":["\#(device.token())"]}"#)
        #expect(try JSON.object(unknown.body)["error"] as? String == "notification_key not found")
        let noProject = await device.request(
            "POST", "/fcm/notification", headers: ["Authorization": "key=\(TestDevice.key)"], body: create)
        #expect(noProject.status == 400)
        #expect(await device.groupCall(create, project: TestDevice.other).status == 401)
        let badOperation = await device.groupCall(#"{"operation":"merge","registration_ids":[]}"#)
        #expect(badOperation.body.contains("create, add, remove"))
        #expect(device.events(named: "groupChanged").count == 1)
    }
}
