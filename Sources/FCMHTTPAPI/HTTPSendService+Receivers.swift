import FCMEngine
import FCMHTTPPort
import FCMJSON
import FCMLegacyFields
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
            let body: JSONObject
            switch Self.registrationBody(request.body, "CreateInstallationRequest") {
            case .failure(let refusal): return refusal.reply
            case .success(let read): body = read
            }
            read = .installation(
                .init(
                    project: project, apiKey: request.header("x-goog-api-key"), appID: body["appId"]?.string,
                    fid: body["fid"]?.string))
        case .registrations(let project):
            let body: JSONObject
            switch Self.registrationBody(request.body, "CreateRegistrationRequest") {
            case .failure(let refusal): return refusal.reply
            case .success(let read): body = read
            }
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

    /// The bodies of the Installations and FCM registrations calls, as far as a web
    /// client sends them: a name they do not have, or a value of another type, is
    /// refused with Google's words, as the v1 API's are.
    static let registrationSchemas: [String: [String: V1Field]] = [
        "CreateInstallationRequest": [
            "appId": V1Field("string"), "authVersion": V1Field("string"), "fid": V1Field("string"),
            "sdkVersion": V1Field("string"),
        ],
        "CreateRegistrationRequest": ["web": V1Field("WebRegistration")],
        "WebRegistration": [
            "applicationPubKey": V1Field("string"), "auth": V1Field("string"), "endpoint": V1Field("string"),
            "p256dh": V1Field("string"),
        ],
    ]

    /// A body read as JSON and against its schema, or Google's refusal of it.
    static func registrationBody(_ body: [UInt8], _ schema: String) -> Result<JSONObject, V1Error> {
        switch LegacyFields.object(body) {
        case .failure(let problem): return .failure(.invalidArgument("Invalid JSON payload received. \(problem)"))
        case .success(let object):
            do {
                try V1SchemaCheck.validate(object, against: schema, in: registrationSchemas)
                return .success(object)
            } catch let error as V1Error {
                return .failure(error)
            } catch {
                return .failure(.invalidArgument("\(error)"))
            }
        }
    }
}
