import FCMEngine
import FCMJSON

/// An HTTP v1 error in the google.rpc shape, with the FCM error code detail.
public struct V1Error: Error, Equatable, Sendable {
    public var httpStatus: Int
    /// The google.rpc status name: INVALID_ARGUMENT, NOT_FOUND, …
    public var status: String
    public var message: String
    /// The `FcmError.errorCode` detail; nil for errors that carry none (authentication).
    public var fcmCode: String?
    /// An `ErrorInfo` reason, such as ACCESS_TOKEN_EXPIRED.
    public var reason: String?

    public init(httpStatus: Int, status: String, message: String, fcmCode: String? = nil, reason: String? = nil) {
        self.httpStatus = httpStatus
        self.status = status
        self.message = message
        self.fcmCode = fcmCode
        self.reason = reason
    }

    public static func invalidArgument(_ message: String) -> V1Error {
        V1Error(httpStatus: 400, status: "INVALID_ARGUMENT", message: message, fcmCode: "INVALID_ARGUMENT")
    }

    /// The v1 answer to a message the device refused, by the engine's error table.
    public init(_ error: DownstreamError) {
        self.init(error.v1Status, message: error.detail)
    }

    /// An answer the engine's error table gives, with this message.
    public init(_ status: V1Status, message: String) {
        self.init(httpStatus: status.http, status: status.rpc, message: message, fcmCode: status.fcmCode)
    }

    public var reply: HTTPReply {
        var details: [JSONValue] = []
        if let fcmCode {
            details.append(
                .members([
                    "@type": .string("type.googleapis.com/google.firebase.fcm.v1.FcmError"),
                    "errorCode": .string(fcmCode),
                ]))
        }
        if let reason {
            details.append(
                .members([
                    "@type": .string("type.googleapis.com/google.rpc.ErrorInfo"), "reason": .string(reason),
                    "domain": .string("googleapis.com"),
                ]))
        }
        var error = JSONObject([
            (key: "code", value: .int(httpStatus)), (key: "message", value: .string(message)),
            (key: "status", value: .string(status)),
        ])
        if !details.isEmpty { error.members.append((key: "details", value: .array(details))) }
        let body = JSONValue.members(["error": .object(error)]).json
        var headers: [KeyedHeader] = []
        if httpStatus == 401 { headers.append(KeyedHeader("WWW-Authenticate", "Bearer realm=\"fcm-device\"")) }
        if httpStatus == 503 { headers.append(KeyedHeader("Retry-After", String(HTTPSendService.retryAfterSeconds))) }
        return .json(httpStatus, body, headers: headers)
    }
}
