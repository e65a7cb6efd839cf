/// The app-server API a downstream message came in on.
public enum AppServerAPI: String, Sendable, Codable, CaseIterable {
    /// `/fcm/send`, `/gcm/send`.
    case legacy
    /// `messages:send`.
    case v1
    /// A CCS (XMPP) connection.
    case ccs
}

/// Where a downstream message came from on an app server's wire: the API, the
/// connection (CCS), and a digest of the request as the app server sent it, so that
/// a resend of the same request can be told from a new one. A message a profile or
/// the TUI pushes has none. The events of such a message carry `api`, `request` and
/// `connection`, which the report card reads.
public struct WireOrigin: Sendable, Equatable, Codable {
    public var api: AppServerAPI
    /// `RequestDigest` of the request's body (HTTP) or of its message (CCS).
    public var digest: String
    public var connection: ConnectionID?
    /// The HTTP connection the request came on and when it started (HTTP sends).
    public var exchange: HTTPExchange?
    /// A digest of the OAuth2 access token a v1 request carried (never the token).
    public var bearer: String?
    /// A copy for a member of a device group the app server sent to (set while the
    /// engine fans it out; not saved).
    var toGroup = false

    enum CodingKeys: String, CodingKey { case api, digest, connection, exchange, bearer }

    public init(
        api: AppServerAPI, digest: String, connection: ConnectionID? = nil, exchange: HTTPExchange? = nil,
        bearer: String? = nil
    ) {
        self.api = api
        self.digest = digest
        self.connection = connection
        self.exchange = exchange
        self.bearer = bearer
    }

    /// The fields an event of this message carries.
    func append(to fields: inout [Field]) {
        appendRequest(to: &fields)
        if let connection { fields.append(.number("connection", connection)) }
        exchange?.append(to: &fields)
        if let bearer { fields.append(.text("bearer", bearer)) }
        if toGroup { fields.append(.flag("group", true)) }
    }

    /// The fields that name the request: its API and its digest.
    public func appendRequest(to fields: inout [Field]) {
        fields.append(Field("api", .string(api.rawValue)))
        fields.append(Field("request", .string(digest)))
    }
}

/// A short, stable digest (FNV-1a, 64 bits, in hex) that is the same for the same
/// request in every run: a resend sent byte for byte, or a CCS message sent again
/// with its `message_id` renewed.
public enum RequestDigest {
    public static func of(_ bytes: [UInt8]) -> String {
        var hash = Hasher64()
        bytes.withUnsafeBytes { hash.add($0) }
        return hash.hex
    }

    public static func of(_ text: Substring.UTF8View) -> String {
        var hash = Hasher64()
        hash.add(text)
        return hash.hex
    }

    /// The digest of a request's path and body, read in place (every send is
    /// digested: it is a tight loop over the bytes).
    public static func of(path: String, body: [UInt8]) -> String {
        var hash = Hasher64()
        hash.add(path)
        body.withUnsafeBytes { hash.add($0) }
        return hash.hex
    }

    /// A downstream message's digest, its `message_id` left out. (Read field by field,
    /// without making the texts it hashes: every CCS message is digested.)
    public static func of(_ request: DownstreamRequest) -> String {
        var hash = Hasher64()
        hash.add(request.sender)
        hash.add(request.to ?? "")
        hash.add(request.condition ?? "")
        for pair in request.data { hash.add(pair: pair) }
        for pair in request.notification ?? [] {
            hash.add(bytes: "n.")
            hash.add(pair: pair)
        }
        hash.add(request.collapseKey ?? "")
        hash.add(request.priority ?? "")
        if let ttl = request.timeToLive { hash.add(decimal: ttl) }
        hash.add(byte: 0xff)
        hash.add(flag: request.deliveryReceiptRequested)
        hash.add(flag: request.dryRun)
        hash.add(flag: request.contentAvailable)
        hash.add(flag: request.mutableContent)
        hash.add(byte: 0xff)
        return hash.hex
    }

    struct Hasher64 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325

        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            var value = self.value
            for byte in bytes {
                value ^= UInt64(byte)
                value = value &* 0x100_0000_01b3
            }
            self.value = value
        }

        mutating func add(_ bytes: Substring.UTF8View) {
            for byte in bytes {
                value ^= UInt64(byte)
                value = value &* 0x100_0000_01b3
            }
        }

        mutating func add(byte: UInt8) {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01b3
        }

        /// A field, closed by a separator no UTF-8 text contains.
        mutating func add(_ text: String) {
            add(bytes: text)
            add(byte: 0xff)
        }

        /// A text's bytes, read in place, with no separator.
        mutating func add(bytes text: String) {
            let read: Void? = text.utf8.withContiguousStorageIfAvailable { add(UnsafeRawBufferPointer($0)) }
            if read == nil { for byte in text.utf8 { add(byte: byte) } }
        }

        /// A data or notification pair as the field `key=value`.
        mutating func add(pair: KeyValue) {
            add(bytes: pair.key)
            add(byte: UInt8(ascii: "="))
            add(pair.value)
        }

        mutating func add(flag: Bool) { add(byte: flag ? UInt8(ascii: "1") : UInt8(ascii: "0")) }

        /// A number's decimal digits (a minus first), as `String(number)` spells it.
        mutating func add(decimal number: Int64) {
            if number < 0 { add(byte: UInt8(ascii: "-")) }
            var magnitude = number.magnitude
            var divisor: UInt64 = 1
            while divisor <= magnitude / 10 { divisor *= 10 }
            repeat {
                add(byte: UInt8(ascii: "0") + UInt8(magnitude / divisor))
                magnitude %= divisor
                divisor /= 10
            } while divisor > 0
        }

        /// Sixteen hex digits, written without a formatter.
        var hex: String {
            String(unsafeUninitializedCapacity: 16) { buffer in
                for index in 0..<16 {
                    let digit = UInt8((value >> (60 - 4 * UInt64(index))) & 0xf)
                    buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                }
                return 16
            }
        }
    }
}
