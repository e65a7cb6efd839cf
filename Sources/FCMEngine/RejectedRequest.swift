/// An HTTP request the send APIs refused before it reached the device (bad
/// credentials, a malformed body, an unknown route, a status fault's answer, a refused
/// tunnel or TLS handshake). The shell that refused it tells the engine
/// (`Input.requestRejected`), which logs it as a `requestRejected` event like any
/// other: a profile's `expect` and the report card see it, and a journal keeps it.
public struct RejectedRequest: Sendable, Equatable, Codable {
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

    public init(
        method: String, path: String, status: Int, reason: String, origin: WireOrigin? = nil, bearer: String? = nil,
        retryAfter: Int? = nil, byFault: Bool = false, exchange: HTTPExchange? = nil
    ) {
        self.method = method
        self.path = path
        self.status = status
        self.reason = reason
        self.origin = origin
        self.bearer = bearer
        self.retryAfter = retryAfter
        self.byFault = byFault
        self.exchange = exchange
    }

    /// The fields its `requestRejected` event carries.
    public var fields: [Field] {
        var fields = [
            Field("method", .string(method)), Field("path", .string(path)), Field("status", .int(Int64(status))),
            Field("reason", .string(reason)),
        ]
        origin?.appendRequest(to: &fields)
        if let bearer { fields.append(Field("bearer", .string(bearer))) }
        if let retryAfter { fields.append(Field("retry_after", .int(Int64(retryAfter)))) }
        if byFault { fields.append(Field("fault", .bool(true))) }
        exchange?.append(to: &fields)
        return fields
    }

    /// The event a log shows.
    public func event(at time: Millis) -> Event {
        Event(at: time, side: .server, kind: .requestRejected, fields: fields)
    }
}

/// A send the app server went away from before its answer (it closed the connection
/// or reset the HTTP/2 stream), `waited` milliseconds after it started: logged as a
/// `requestAbandoned` event (`Input.requestAbandoned`).
public struct AbandonedRequest: Sendable, Equatable, Codable {
    public var method: String
    public var path: String
    public var origin: WireOrigin?
    public var exchange: HTTPExchange?
    public var waited: Millis

    public init(method: String, path: String, origin: WireOrigin?, exchange: HTTPExchange?, waited: Millis) {
        self.method = method
        self.path = path
        self.origin = origin
        self.exchange = exchange
        self.waited = waited
    }

    /// The fields its `requestAbandoned` event carries.
    public var fields: [Field] {
        var fields = [Field("method", .string(method)), Field("path", .string(path))]
        origin?.appendRequest(to: &fields)
        exchange?.append(to: &fields)
        fields.append(Field("waited", .int(waited)))
        return fields
    }
}
