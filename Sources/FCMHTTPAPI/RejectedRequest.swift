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

    public init(_ request: HTTPRequestParts, _ reply: HTTPReply) {
        method = request.method
        path = request.path
        status = reply.status
        reason = Self.reason(of: reply)
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
            ])
    }
}
