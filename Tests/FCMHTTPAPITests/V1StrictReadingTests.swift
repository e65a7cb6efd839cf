import FCMEngine
import FCMHTTPAPI
import FCMHTTPPort
import Foundation
import Testing

/// Every v1 body read against Google's schema all the way down: enums, durations,
/// timestamps, map values, lists, `webpush` and `fcm_options`, with Google's BadRequest
/// detail naming each field.
@Suite("HTTP v1: strict reading, Google's errors")
struct V1StrictReadingTests {
    /// The `google.rpc.BadRequest` detail's violations of a v1 error body, as (field, description).
    static func violations(_ body: String) throws -> [(field: String?, description: String)] {
        let error = try JSON.object(body)["error"] as? [String: Any] ?? [:]
        let details = error["details"] as? [[String: Any]] ?? []
        let badRequest = details.first { ($0["@type"] as? String)?.hasSuffix("google.rpc.BadRequest") == true }
        return (badRequest?["fieldViolations"] as? [[String: Any]] ?? []).map {
            ($0["field"] as? String, $0["description"] as? String ?? "")
        }
    }

    func send(_ fields: String, beside: String = "") async throws -> (TestDevice, HTTPReply) {
        let device = TestDevice()
        let reply = await device.v1(
            #"{"message":{"token":"\#(device.token())",\#(fields)}\#(beside)}"#, bearer: try await device.bearer())
        return (device, reply)
    }

    @Test(
        "what the schema refuses is 400 with Google's words and a BadRequest field naming where",
        arguments: [
            (
                #""android":{"notification":{"visibility":"PUBLICK"}}"#,
                #"Invalid value at 'message.android.notification.visibility' (TYPE_ENUM), "PUBLICK""#,
                "message.android.notification.visibility"
            ),
            (
                #""android":{"priority":"URGENT"}"#,
                #"Invalid value at 'message.android.priority' (TYPE_ENUM), "URGENT""#,
                "message.android.priority"
            ),
            (
                #""android":{"ttl":"3600"}"#,
                "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), Field 'ttl', "
                    + "Illegal duration format; duration must end with 's'", "message.android.ttl"
            ),
            (
                #""android":{"ttl":"an hours"}"#,
                "(type.googleapis.com/google.protobuf.Duration), Field 'ttl', Invalid duration format, failed to parse seconds",
                "message.android.ttl"
            ),
            (
                #""android":{"notification":{"eventTime":"2026-11-25 10:00"}}"#,
                "Invalid value at 'message.android.notification.event_time' (type.googleapis.com/google.protobuf.Timestamp)",
                "message.android.notification.event_time"
            ),
            (
                #""data":{"a":"x","b":12}"#, "Invalid value at 'message.data[1].value' (TYPE_STRING), 12",
                "message.data[1].value"
            ),
            (
                #""android":{"notification":{"notification_count":"three"}}"#,
                #"Invalid value at 'message.android.notification.notification_count' (TYPE_INT32), "three""#,
                "message.android.notification.notification_count"
            ),
            (
                #""android":{"notification":{"body_loc_args":"x"}}"#,
                #"Invalid value at 'message.android.notification.body_loc_args' (list), "x""#,
                "message.android.notification.body_loc_args"
            ),
            (
                #""notification":[]"#,
                #"Unknown name "notification" at 'message': Proto field is not repeating, cannot start list."#,
                "message"
            ),
            (
                #""webpush":{"fcm_options":{"linkk":"https://x"}}"#,
                #"Unknown name "linkk" at 'message.webpush.fcm_options': Cannot find field."#,
                "message.webpush.fcm_options"
            ),
            (
                #""fcmOptions":{"analyticsLabel":5}"#,
                "Invalid value at 'message.fcm_options.analytics_label' (TYPE_STRING), 5",
                "message.fcm_options.analytics_label"
            ),
            (
                #""apns":{"fcm_options":{"image":true}}"#,
                "Invalid value at 'message.apns.fcm_options.image' (TYPE_STRING), true",
                "message.apns.fcm_options.image"
            ),
            (
                #""android":{"notification":{"light_settings":{"color":{"red":"bright"}}}}"#,
                #"Invalid value at 'message.android.notification.light_settings.color.red' (TYPE_FLOAT), "bright""#,
                "message.android.notification.light_settings.color.red"
            ),
            (
                #""notification":"hello""#,
                #"Invalid value at 'message.notification' (type.googleapis.com/google.firebase.fcm.v1.Notification), "hello""#,
                "message.notification"
            ),
        ])
    func refused(fields: String, words: String, field: String) async throws {
        let (device, reply) = try await send(fields)
        #expect(reply.status == 400, "\(reply.body)")
        let violations = try Self.violations(reply.body)
        #expect(violations.count == 1, "\(reply.body)")
        #expect(violations.first?.field == field)
        #expect(violations.first?.description.contains(words) == true, "\(reply.body)")
        let error = try JSON.v1Error(reply.body)
        #expect(error.status == "INVALID_ARGUMENT")
        #expect(error.code == nil, "a body the schema refuses never reached FCM: no FcmError")
        #expect(device.events(named: "downstreamAccepted").isEmpty)
    }

    @Test(
        "what the schema allows is taken: enums in any case or by number, durations, timestamps, nulls, free-form payloads",
        arguments: [
            #""android":{"priority":"high","notification":{"visibility":"public","notification_priority":4}}"#,
            #""android":{"ttl":"0.5s","notification":{"eventTime":"2026-11-25T10:00:00.123+01:00"}}"#,
            #""android":{"notification":{"light_settings":{"color":{"red":0.5,"green":1},"light_on_duration":"1s"}}}"#,
            #""notification":null,"data":{"k":"v"}"#,
            #""apns":{"payload":{"aps":{"alert":"x"},"custom":[1,{"deep":null}]}}"#,
            #""webpush":{"headers":{"TTL":"60"},"data":{"k":"v"},"fcm_options":{"link":"https://example.com"}}"#,
            #""fcm_options":{"analytics_label":"campaign-1"}"#,
        ])
    func accepted(fields: String) async throws {
        let (device, reply) = try await send(fields)
        #expect(reply.status == 200, "\(reply.body)")
        #expect(device.events(named: "downstreamAccepted").count == 1)
    }

    @Test("every violation in a body is told, one line and one field violation each")
    func everyViolationTold() async throws {
        let (_, reply) = try await send(#""notification":{"titel":"x","body":5},"android":{"priorty":"HIGH"}"#)
        #expect(reply.status == 400)
        let violations = try Self.violations(reply.body)
        #expect(violations.map(\.field) == ["message.notification", "message.notification.body", "message.android"])
        let message = try #require((try JSON.object(reply.body)["error"] as? [String: Any])?["message"] as? String)
        #expect(message.split(separator: "\n").count == 3, "\(message)")
    }

    @Test("unknown names beside the message (a legacy body sent to v1) are told without a field, one each")
    func legacyNamesAtTheRoot() async throws {
        let (_, reply) = try await send(#""data":{"k":"v"}"#, beside: #","to":"x","time_to_live":60"#)
        #expect(reply.status == 400)
        let violations = try Self.violations(reply.body)
        #expect(violations.map(\.field) == [nil, nil])
        #expect(
            violations.map(\.description) == [
                #"Invalid JSON payload received. Unknown name "to": Cannot find field."#,
                #"Invalid JSON payload received. Unknown name "time_to_live": Cannot find field."#,
            ])
    }

    @Test("an enum given by number takes effect as its name: android priority 1 is high")
    func enumByNumber() async throws {
        let (device, reply) = try await send(#""android":{"priority":1}"#)
        #expect(reply.status == 200, "\(reply.body)")
        #expect(device.events(named: "downstreamAccepted").first?.string("priority") == "high")
    }
}

@Suite("HTTP v1: androidV2")
struct V1AndroidV2Tests {
    @Test(
        "android and androidV2 together, or androidV2 with neither or both of its kinds, is 400 naming why",
        arguments: [
            (#""android":{"priority":"HIGH"},"androidV2":{"backgroundSync":{}}"#, "mutually exclusive"),
            (#""android_v2":{"ttl":"10s"}"#, "not neither"),
            (#""androidV2":{"remoteNotification":{},"backgroundSync":{}}"#, "not both"),
        ])
    func refused(fields: String, words: String) async throws {
        let (device, reply) = try await V1StrictReadingTests().send(fields)
        #expect(reply.status == 400, "\(reply.body)")
        #expect(reply.body.contains(words), "\(reply.body)")
        #expect(device.events(named: "downstreamAccepted").isEmpty)
    }

    @Test("androidV2 with one of its kinds is taken")
    func taken() async throws {
        let (_, reply) = try await V1StrictReadingTests().send(
            #""androidV2":{"remoteNotification":{"notification":{"title":"x"}},"ttl":"60s"}"#)
        #expect(reply.status == 200, "\(reply.body)")
    }
}

@Suite("HTTP v1: AndroidNotification on the device")
struct V1AndroidNotificationTests {
    @Test("a tag replaces the tray's notification of that tag, and the channel is shown, in either spelling")
    func tagAndChannel() async throws {
        let device = TestDevice()
        device.apply(.on(.setAppState(.background)))
        let bearer = try await device.bearer()
        for (id, spelling) in [("1", "channel_id"), ("2", "channelId")] {
            let reply = await device.v1(
                #"{"message":{"token":"\#(device.token())","notification":{"title":"\#(id)"},"android":{"notification":{"tag":"match","\#(spelling)":"scores"}}}}"#,
                bearer: bearer)
            #expect(reply.status == 200, "\(reply.body)")
        }
        let posted = device.events(named: "notificationPosted")
        #expect(posted.map { $0.string("channel_id") } == ["scores", "scores"])
        #expect(posted.last?.string("replaced") == posted.first?.string("id"))
        #expect(device.read { $0.devices[0].tray.count } == 1)
    }
}
