import FCMEngine

/// The replies of status faults, each in the body its API uses when the real
/// service fails that way. The engine chose the fault; this only shapes it.
extension HTTPSendService {
    static func faultReply(_ status: Int, retryAfter: Int?, path: String) -> HTTPReply {
        var reply: HTTPReply
        switch Route(path: path) {
        case .v1?, .topicSubscription?: reply = v1Fault(status).reply
        case .legacy?: reply = .text(status, legacyText(status) + "\n")
        default: reply = .json(status, JSONValue.members(["error": .string(legacyText(status))]).json)
        }
        reply.headers.removeAll { $0.name == "Retry-After" }
        if let retryAfter { reply.headers.append(KeyedHeader("Retry-After", String(retryAfter))) }
        reply.fromDevice = true
        return reply
    }

    static func v1Fault(_ status: Int) -> V1Error {
        let message = "a fault made on purpose (fcm-device control API or fault step)"
        return switch status {
        case 400: V1Error.invalidArgument(message)
        case 401:
            V1Error(httpStatus: 401, status: "UNAUTHENTICATED", message: message, fcmCode: "THIRD_PARTY_AUTH_ERROR")
        case 403: V1Error(httpStatus: 403, status: "PERMISSION_DENIED", message: message, fcmCode: "SENDER_ID_MISMATCH")
        case 404: V1Error(httpStatus: 404, status: "NOT_FOUND", message: message, fcmCode: "UNREGISTERED")
        case 429:
            V1Error(httpStatus: 429, status: "RESOURCE_EXHAUSTED", message: message, fcmCode: "QUOTA_EXCEEDED")
        case 503: V1Error(httpStatus: 503, status: "UNAVAILABLE", message: message, fcmCode: "UNAVAILABLE")
        case 504: V1Error(httpStatus: 504, status: "DEADLINE_EXCEEDED", message: message, fcmCode: "INTERNAL")
        default: V1Error(httpStatus: status, status: "INTERNAL", message: message, fcmCode: "INTERNAL")
        }
    }

    static func legacyText(_ status: Int) -> String {
        switch status {
        case 401: "Unauthorized"
        case 503: "Unavailable"
        case 500: "InternalServerError"
        case 429: "QuotaExceeded"
        default: "Error \(status)"
        }
    }
}
