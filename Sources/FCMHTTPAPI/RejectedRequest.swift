import FCMEngine
import FCMJSON
import Foundation

/// An HTTP request the send APIs refused before it reached the device (bad
/// credentials, a malformed body, an unknown route, the service down): logged as a
/// `requestRejected` event so a person sees why their app server got an error.
public struct RejectedRequest: Sendable, Equatable {
    public var method: String
    public var path: String
    public var status: Int
    public var reason: String
    /// For a send (legacy or v1): its API and the digest of its body, so that the
    /// report card knows a resend of it.
    public var origin: WireOrigin?
    /// A digest of the OAuth2 access token it carried (never the token itself).
    public var bearer: String?
    /// The seconds its answer's `Retry-After` asked for.
    public var retryAfter: Int?
    /// A status fault made the answer.
    public var byFault = false
    /// Where and when the request started.
    public var exchange: HTTPExchange?

    public init(_ request: HTTPRequestParts, _ reply: HTTPReply) {
        method = request.method
        path = request.path
        status = reply.status
        reason = Self.reason(of: reply)
        origin = Self.origin(of: request)
        bearer = request.bearer
        exchange = request.exchange
        retryAfter = reply.headers.first { $0.name.lowercased() == "retry-after" }.flatMap { Int($0.value) }
        byFault = reply.byFault
    }

    /// A send's API and the digest of its path and body: the same request is the same
    /// body to the same project (nil for any other request); where and when it
    /// started, and (v1) a digest of its access token.
    public static func origin(of request: HTTPRequestParts) -> WireOrigin? {
        guard request.method == "POST" else { return nil }
        let api: AppServerAPI
        switch HTTPRoute(path: request.path) {
        case .legacy?: api = .legacy
        case .v1?: api = .v1
        default: return nil
        }
        return WireOrigin(
            api: api, digest: RequestDigest.of(path: request.path, body: request.body), exchange: request.exchange,
            bearer: api == .v1 ? request.bearer : nil)
    }

    /// What the reply says went wrong: the message of a JSON error, else its text.
    static func reason(of reply: HTTPReply) -> String {
        if case .object(let object)? = try? JSONParser.parse(reply.body.utf8) {
            if let message = object["error"]?.object?["message"]?.string { return message }
            if let description = object["error_description"]?.string {
                return object["error"]?.string.map { "\($0): \(description)" } ?? description
            }
            if let error = object["error"]?.string { return error }
        }
        let text = reply.body.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return text.count > 300 ? String(text.prefix(299)) + "…" : text
    }

    /// The event a log shows.
    public func event(at time: Millis) -> Event {
        Event(
            at: time, side: .server, kind: .requestRejected,
            fields: [
                Field("method", .string(method)), Field("path", .string(path)), Field("status", .int(Int64(status))),
                Field("reason", .string(reason)),
            ] + extraFields)
    }

    var extraFields: [Field] {
        var fields: [Field] = []
        if let origin {
            fields.append(Field("api", .string(origin.api.rawValue)))
            fields.append(Field("request", .string(origin.digest)))
        }
        if let bearer { fields.append(Field("bearer", .string(bearer))) }
        exchange?.append(to: &fields)
        if let retryAfter { fields.append(Field("retry_after", .int(Int64(retryAfter)))) }
        if byFault { fields.append(Field("fault", .bool(true))) }
        return fields
    }
}
