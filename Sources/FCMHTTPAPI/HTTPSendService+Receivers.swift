import FCMEngine
import FCMJSON
import FCMMCS
import Foundation

extension HTTPSendService {
    /// A real client's call on Google's registration hosts (check-in, register3,
    /// Installations, FCM registrations), read into the engine's terms: the engine
    /// checks every credential and field and answers.
    func receiver(_ request: HTTPRequestParts, route: HTTPRoute) async -> HTTPReply {
        let read: ReceiverRequest
        switch route {
        case .checkin:
            guard let checkin = CheckinCodec.read(request.body) else {
                return .text(400, "the body is not an AndroidCheckinRequest (protobuf, with its checkin block)\n")
            }
            read = checkin
        case .register3:
            guard case .success(let fields) = FormDecoding.fields(request.body) else {
                return .text(400, "Error=INVALID_PARAMETERS\n")
            }
            func field(_ name: String) -> String? { fields.last { $0.name == name }?.value }
            read = .register3(
                .init(
                    authorization: request.header("authorization"), app: field("app"), subtype: field("X-subtype"),
                    sender: field("sender")))
        case .installations(let project):
            guard let body = Self.jsonObject(request.body) else { return Self.notJSON() }
            read = .installation(
                .init(
                    project: project, apiKey: request.header("x-goog-api-key"), appID: body["appId"]?.string,
                    fid: body["fid"]?.string))
        case .registrations(let project):
            guard let body = Self.jsonObject(request.body) else { return Self.notJSON() }
            let web = body["web"]?.object
            read = .registration(
                .init(
                    project: project, apiKey: request.header("x-goog-api-key"),
                    installationAuth: request.header("x-goog-firebase-installations-auth"),
                    endpoint: web?["endpoint"]?.string, p256dh: web?["p256dh"]?.string, auth: web?["auth"]?.string,
                    applicationPubKey: web?["applicationPubKey"]?.string))
        default:
            return .text(404, "\(request.path) is not a registration endpoint\n")
        }
        var reply: HTTPReply
        switch await device.receiver(read) {
        case .checkedIn(let id, let token):
            reply = HTTPReply(status: 200, contentType: "application/x-protobuf", body: "")
            reply.bytes = CheckinCodec.response(
                androidID: id, securityToken: token, unixMillis: Int64(clock().timeIntervalSince1970 * 1_000))
        case .form(let status, let text): reply = .text(status, text)
        case .json(let status, let value): reply = .json(status, value.json)
        case .text(let status, let text): reply = .text(status, text)
        }
        reply.fromDevice = true
        return reply
    }

    static func jsonObject(_ body: [UInt8]) -> JSONObject? {
        (try? JSONParser.parse(body))?.object
    }

    /// Google's answer to a body that is not JSON.
    static func notJSON() -> HTTPReply {
        .json(
            400,
            JSONValue.members([
                "error": .members([
                    "code": .int(400), "message": .string("Invalid JSON payload received."),
                    "status": .string("INVALID_ARGUMENT"),
                ])
            ]).json)
    }
}
