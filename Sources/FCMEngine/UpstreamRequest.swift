/// A data value an app hands to the send call. Only strings survive; the others
/// are dropped with a warning, as the client libraries do.
public enum DataValue: Sendable, Equatable, Codable {
    case string(String)
    /// A value that is not a string; `kind` says what it was (number, boolean, …).
    case nonString(kind: String)
}

/// One key and value of an upstream payload as the app wrote it.
public struct DataItem: Sendable, Equatable, Codable {
    public var key: String
    public var value: DataValue

    public init(_ key: String, _ value: DataValue) {
        self.key = key
        self.value = value
    }
}

/// An upstream send call: `send(to, messageId, ttl, data)`.
public struct UpstreamRequest: Sendable, Equatable, Codable {
    /// `SENDER@fcm.googleapis.com` (or `@gcm.googleapis.com`).
    public var to: String
    public var messageID: String
    /// Seconds; nil means the library's default of one day.
    public var timeToLive: Int64?
    public var data: [DataItem]

    public init(to: String, messageID: String, timeToLive: Int64? = nil, data: [DataItem] = []) {
        self.to = to
        self.messageID = messageID
        self.timeToLive = timeToLive
        self.data = data
    }

    /// The usual address of a sender for an SDK.
    public static func address(sender: String, sdk: SDK) -> String {
        "\(sender)@\(sdk.upstreamDomain)"
    }
}

/// An upstream message the device accepted: waiting in the device's queue or held
/// by the connection server until the app server acknowledges it.
public struct UpstreamMessage: Sendable, Equatable, Codable {
    public var sender: String
    public var id: String
    public var timeToLive: Int64
    public var data: [KeyValue]
    public var sentAt: Millis
    /// The sending phone's token and app, once the connection server took it (nil
    /// while it waits in the phone's queue, and in states saved before several phones).
    public var token: String? = nil
    public var category: String? = nil

    /// When the message dies if it has not gone on by then.
    public var expiresAt: Millis { sentAt + timeToLive * Span.second }
}
