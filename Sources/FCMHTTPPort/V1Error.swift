import FCMEngine
import FCMJSON

/// A field a request body gets wrong, for the `google.rpc.BadRequest` detail.
public struct FieldViolation: Equatable, Sendable {
    public var field: String?
    public var description: String

    public init(field: String?, description: String) {
        self.field = field
        self.description = description
    }
}

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
    /// The `google.rpc.BadRequest` detail's field violations (none: no such detail).
    package var fieldViolations: [FieldViolation] = []

    public init(httpStatus: Int, status: String, message: String, fcmCode: String? = nil, reason: String? = nil) {
        self.httpStatus = httpStatus
        self.status = status
        self.message = message
        self.fcmCode = fcmCode
        self.reason = reason
    }

    /// 400 `INVALID_ARGUMENT` with the FcmError detail; with `field`, a BadRequest
    /// detail naming it too.
    public static func invalidArgument(_ message: String, field: String? = nil) -> V1Error {
        var error = V1Error(httpStatus: 400, status: "INVALID_ARGUMENT", message: message, fcmCode: "INVALID_ARGUMENT")
        if let field { error.fieldViolations = [FieldViolation(field: field, description: message)] }
        return error
    }

    /// What Google's JSON front end answers for a body its schema refuses: 400
    /// `INVALID_ARGUMENT`, one line per violation, a BadRequest detail with each, and
    /// no FcmError (the message never reached FCM).
    package static func schema(_ violations: [FieldViolation]) -> V1Error {
        var error = V1Error(
            httpStatus: 400, status: "INVALID_ARGUMENT",
            message: violations.map(\.description).joined(separator: "\n"))
        error.fieldViolations = violations
        return error
    }

    /// The v1 answer to a message the device refused, by the engine's error table.
    public init(_ error: DownstreamError) {
        self.init(error.v1Status, message: error.v1Message)
    }

    /// An answer the engine's error table gives, with this message.
    public init(_ status: V1Status, message: String) {
        self.init(httpStatus: status.http, status: status.rpc, message: message, fcmCode: status.fcmCode)
    }

    public var reply: HTTPReply {
        var details: [JSONValue] = []
        if !fieldViolations.isEmpty {
            let violations = fieldViolations.map { violation in
                var members: [(key: String, value: JSONValue)] = []
                if let field = violation.field { members.append((key: "field", value: .string(field))) }
                members.append((key: "description", value: .string(violation.description)))
                return JSONValue.object(JSONObject(members))
            }
            details.append(
                .members([
                    "@type": .string("type.googleapis.com/google.rpc.BadRequest"),
                    "fieldViolations": .array(violations),
                ]))
        }
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
        if httpStatus == 503 {
            headers.append(KeyedHeader("Retry-After", String(ServiceLimits.unavailableRetryAfterSeconds)))
        }
        return .json(httpStatus, body, headers: headers)
    }
}
