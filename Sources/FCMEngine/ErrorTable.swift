/// How each refusal is answered on each interface: the one table. The HTTP, CCS and
/// IID shells shape bodies from these answers; none of them decides a status.
public struct V1Status: Sendable, Equatable {
    /// The HTTP status.
    public var http: Int
    /// The google.rpc status name (INVALID_ARGUMENT, NOT_FOUND, …).
    public var rpc: String
    /// The `FcmError.errorCode` detail, if the answer carries one.
    public var fcmCode: String?

    public init(http: Int, rpc: String, fcmCode: String?) {
        self.http = http
        self.rpc = rpc
        self.fcmCode = fcmCode
    }
}

public enum ErrorTable {
    /// An FcmError code → the status v1 answers with (Google's table of error codes).
    public static func v1(fcmCode code: String) -> V1Status {
        switch code {
        case "UNREGISTERED": V1Status(http: 404, rpc: "NOT_FOUND", fcmCode: code)
        case "SENDER_ID_MISMATCH": V1Status(http: 403, rpc: "PERMISSION_DENIED", fcmCode: code)
        case "UNAVAILABLE": V1Status(http: 503, rpc: "UNAVAILABLE", fcmCode: code)
        case "QUOTA_EXCEEDED": V1Status(http: 429, rpc: "RESOURCE_EXHAUSTED", fcmCode: code)
        case "THIRD_PARTY_AUTH_ERROR": V1Status(http: 401, rpc: "UNAUTHENTICATED", fcmCode: code)
        case "INTERNAL": V1Status(http: 500, rpc: "INTERNAL", fcmCode: code)
        default: V1Status(http: 400, rpc: "INVALID_ARGUMENT", fcmCode: code)
        }
    }

    /// A status fault (an HTTP status made on purpose) as v1 answers it: the FcmError
    /// code the real service gives with that status.
    public static func v1(faultStatus status: Int) -> V1Status {
        switch status {
        case 400: v1(fcmCode: "INVALID_ARGUMENT")
        case 401: v1(fcmCode: "THIRD_PARTY_AUTH_ERROR")
        case 403: v1(fcmCode: "SENDER_ID_MISMATCH")
        case 404: v1(fcmCode: "UNREGISTERED")
        case 429: v1(fcmCode: "QUOTA_EXCEEDED")
        case 503: v1(fcmCode: "UNAVAILABLE")
        case 504: V1Status(http: 504, rpc: "DEADLINE_EXCEEDED", fcmCode: "INTERNAL")
        default: V1Status(http: status, rpc: "INTERNAL", fcmCode: "INTERNAL")
        }
    }

    /// A status fault as the legacy API words it (the body of its plain-text reply).
    public static func legacyText(faultStatus status: Int) -> String {
        switch status {
        case 401: "Unauthorized"
        case 503: "Unavailable"
        case 500: "InternalServerError"
        case 429: "QuotaExceeded"
        default: "Error \(status)"
        }
    }

    /// A topic-management refusal as the IID API's one-token call answers it.
    public static func iidStatus(_ error: TopicError) -> Int {
        switch error {
        case .notFound: 404
        case .internalError: 500
        case .resourceExhausted, .tooManyTopics: 429
        case .invalidArgument, .alreadyExists: 400
        }
    }

    /// A topic-management refusal as v1 `topicSubscriptions` answers it.
    public static func v1(_ error: TopicError) -> V1Status {
        switch error {
        case .notFound: V1Status(http: 404, rpc: "NOT_FOUND", fcmCode: nil)
        case .invalidArgument: V1Status(http: 400, rpc: "INVALID_ARGUMENT", fcmCode: "INVALID_ARGUMENT")
        case .alreadyExists: V1Status(http: 409, rpc: "ALREADY_EXISTS", fcmCode: nil)
        case .tooManyTopics, .resourceExhausted: V1Status(http: 429, rpc: "RESOURCE_EXHAUSTED", fcmCode: nil)
        case .internalError: V1Status(http: 500, rpc: "INTERNAL", fcmCode: nil)
        }
    }
}

extension DownstreamError {
    /// How v1 answers this refusal.
    public var v1Status: V1Status { ErrorTable.v1(fcmCode: v1Code) }
}
