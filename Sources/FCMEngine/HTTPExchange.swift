/// Where and when an HTTP request started, as the server read it: the report card
/// judges a request by whether it started after an answer that should have stopped
/// it. On an HTTP/1.1 connection the requests follow one another, so any later one
/// started after the answers before it; on separate connections or HTTP/2 streams,
/// only the times tell.
public struct HTTPExchange: Sendable, Equatable, Codable {
    /// The connection (an HTTP/2 stream: the stream), numbered from 1 as the server
    /// accepted them.
    public var connection: Int64
    /// The request's place on an HTTP/1.1 connection, from 1 (nil on an HTTP/2 stream,
    /// whose requests do not wait for each other).
    public var request: Int64?
    /// When its head was read, in engine time.
    public var started: Millis

    public init(connection: Int64, request: Int64?, started: Millis) {
        self.connection = connection
        self.request = request
        self.started = started
    }

    /// The fields an event of the request carries.
    public func append(to fields: inout [Field]) {
        fields.append(Field("http_connection", .int(connection)))
        if let request { fields.append(Field("http_request", .int(request))) }
        fields.append(Field("started", .int(started)))
    }

    /// The exchange an event names, if it names one.
    public init?(of event: Event) {
        guard let connection = event.int("http_connection"), let started = event.int("started") else { return nil }
        self.init(connection: connection, request: event.int("http_request"), started: started)
    }

    /// Whether this request started after an answer, given at `answeredAt`, to the
    /// request `earlier`: later on the same HTTP/1.1 connection, or begun more than
    /// `tolerance` after the answer.
    public func started(after earlier: HTTPExchange?, answeredAt: Millis, tolerance: Millis) -> Bool {
        if let earlier, earlier.connection == connection, let mine = request, let theirs = earlier.request {
            return mine > theirs
        }
        if earlier == self { return false }
        return started > answeredAt + tolerance
    }
}
