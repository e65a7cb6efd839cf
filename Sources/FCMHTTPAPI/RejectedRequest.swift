import FCMEngine
import FCMHTTPPort
import FCMJSON
import Foundation

/// A request the send APIs refused, read off the request and its reply.
extension RejectedRequest {
    public init(_ request: HTTPRequestParts, _ reply: HTTPReply) {
        self.init(
            method: request.method, path: request.path, status: reply.status, reason: Self.reason(of: reply),
            origin: Self.origin(of: request), bearer: request.bearer,
            retryAfter: reply.headers.first { $0.name.lowercased() == "retry-after" }.flatMap { Int($0.value) },
            byFault: reply.byFault, exchange: request.exchange)
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
}
