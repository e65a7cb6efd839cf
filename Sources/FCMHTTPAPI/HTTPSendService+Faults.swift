import FCMEngine
import FCMHTTPPort
import FCMJSON

/// The replies of status faults, each in the body its API uses when the real
/// service fails that way. The engine chose the fault; this only shapes it.
extension HTTPSendService {
    /// What the faults in scope do to one request, read once for every path that
    /// serves it: hold it `delay` milliseconds, then answer it with `answer` (a status,
    /// or the connection's end) or, with none, serve it.
    public struct FaultPlan: Sendable {
        public var delay: Millis = 0
        public var answer: HTTPReply?

        /// The engine's effects (delays, then at most one answer) for a request on `path`.
        public init(_ effects: some Sequence<FaultEffect>, path: String) {
            for effect in effects {
                switch effect {
                case .delay(let millis): delay += millis
                case .status(let status, let retryAfter):
                    answer = HTTPSendService.faultReply(status, retryAfter: retryAfter, path: path)
                case .reset: answer = .connectionEnds(.reset)
                case .goaway: answer = .connectionEnds(.goaway)
                }
                if answer != nil { break }
            }
        }
    }

    /// The reply of a status fault on `path`, in the body its API uses.
    public static func faultReply(_ status: Int, retryAfter: Int?, path: String) -> HTTPReply {
        var reply: HTTPReply
        switch HTTPRoute(path: path) {
        // Google's APIs (v1, Installations, FCM registrations) answer in Google's error shape.
        case .v1?, .topicSubscription?, .installations?, .registrations?: reply = v1Fault(status).reply
        case .checkin?, .register3?: reply = .text(status, legacyText(status) + "\n")
        case .legacy?: reply = .text(status, legacyText(status) + "\n")
        default: reply = .json(status, JSONValue.members(["error": .string(legacyText(status))]).json)
        }
        reply.headers.removeAll { $0.name == "Retry-After" }
        if let retryAfter { reply.headers.append(KeyedHeader("Retry-After", String(retryAfter))) }
        reply.byFault = true
        // Logged as a refused request (with its Retry-After), after the engine's
        // `faultInjected`: the report card reads what each request was answered.
        return reply
    }

    static func v1Fault(_ status: Int) -> V1Error {
        V1Error(
            ErrorTable.v1(faultStatus: status),
            message: "a fault made on purpose (fcm-device control API or fault step)")
    }

    static func legacyText(_ status: Int) -> String { ErrorTable.legacyText(faultStatus: status) }
}
