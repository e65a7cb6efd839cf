import FCMEngine

/// An HTTP request as the send APIs see it: no server types, so the routes can be
/// tested in-process and served by any HTTP stack.
public struct HTTPRequestParts: Sendable {
    public var method: String
    /// The path without the query string, as sent (not percent-decoded).
    public var path: String
    /// The query string without its `?`, as sent.
    public var query: String
    /// Header names in lower case; a repeated header keeps its first value.
    public var headers: [String: String]
    public var body: [UInt8]
    /// Where and when the server read it (the send path sets it; the report card
    /// reads it).
    public var exchange: HTTPExchange?
    /// Whether it came over TLS (the HTTPS proxy's tunnel, `--https-port`): the
    /// listener sets it where a route reads it (Web Push's origin).
    public var secure = false

    public init(
        method: String, path: String, query: String = "", headers: [String: String] = [:], body: [UInt8] = []
    ) {
        var lowered: [String: String] = [:]
        lowered.reserveCapacity(headers.count)
        for (name, value) in headers where lowered[name.lowercased()] == nil { lowered[name.lowercased()] = value }
        self.init(method: method, path: path, query: query, lowercasedHeaders: lowered, body: body)
    }

    /// A request whose header names are lower case already (a server's canonical
    /// names): taken as they are, not read again. For this package's listeners only.
    package init(method: String, path: String, query: String, lowercasedHeaders: [String: String], body: [UInt8]) {
        self.method = method.uppercased()
        self.path = path
        self.query = query
        self.headers = lowercasedHeaders
        self.body = body
    }

    /// A digest of the OAuth2 access token it carries, if it carries one (never the token).
    public var bearer: String? {
        // The scheme compared byte by byte, case-insensitively: every v1 send asks, and a
        // lowercased copy of the header cost it.
        guard let authorization = headers["authorization"] else { return nil }
        let bytes = authorization.utf8
        guard bytes.count > 7, zip(bytes, "bearer ".utf8).allSatisfy({ $0 | 0x20 == $1 }) else { return nil }
        return RequestDigest.of(authorization.dropFirst(7).utf8)
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// A query parameter's decoded value, under any of `names` (the first given wins).
    public func parameter(_ names: String...) -> String? {
        guard case .success(let fields) = FormDecoding.fields(Array(query.utf8)) else { return nil }
        for name in names { if let value = fields.first(where: { $0.name == name })?.value { return value } }
        return nil
    }

    /// The media type of the body, lower case, without parameters.
    public var mediaType: String? {
        guard let value = header("content-type") else { return nil }
        let type = value.utf8.split(separator: UInt8(ascii: ";"), maxSplits: 1, omittingEmptySubsequences: false)[0]
        return String(decoding: HeaderText.trimmed(type), as: UTF8.self).lowercased()
    }
}

/// What the send APIs answer.
public struct HTTPReply: Sendable, Equatable {
    public var status: Int
    public var headers: [KeyedHeader]
    public var body: String
    /// A binary body (a protobuf answer), written instead of `body` when set.
    public var bytes: [UInt8]?
    /// The device itself refused the message (it logged that already).
    public var fromDevice = false
    /// A status fault made this answer (the request itself may be fine).
    public var byFault = false
    /// No reply at all: the connection ends instead (a fault made on purpose).
    public var endsConnection: ConnectionEnding?

    public enum ConnectionEnding: Sendable, Equatable {
        /// A TCP reset (on HTTP/2, the request's stream).
        case reset
        /// HTTP/2 `GOAWAY` on the request's connection (HTTP/1.1: a reset).
        case goaway
    }

    /// The connection ended before any reply.
    public static func connectionEnds(_ ending: ConnectionEnding) -> HTTPReply {
        var reply = HTTPReply.text(502, "")
        reply.endsConnection = ending
        reply.fromDevice = true
        return reply
    }

    public init(status: Int, contentType: String, body: String, headers: [KeyedHeader] = []) {
        self.status = status
        self.headers = [KeyedHeader("Content-Type", contentType)] + headers
        self.body = body
    }

    public static func json(_ status: Int, _ body: String, headers: [KeyedHeader] = []) -> HTTPReply {
        HTTPReply(status: status, contentType: "application/json; charset=UTF-8", body: body, headers: headers)
    }

    public static func text(_ status: Int, _ body: String, headers: [KeyedHeader] = []) -> HTTPReply {
        HTTPReply(status: status, contentType: "text/plain; charset=UTF-8", body: body, headers: headers)
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

public struct KeyedHeader: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Header values without the spaces and tabs around them (no Foundation, which is
/// slow here).
enum HeaderText {
    static func trimmed(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return bytes[bytes.startIndex..<bytes.startIndex] }
        return bytes[first...last]
    }

    static func trimmed(_ text: Substring) -> String {
        String(decoding: trimmed(text.utf8), as: UTF8.self)
    }
}
