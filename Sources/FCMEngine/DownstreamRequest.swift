/// A downstream message as an app server sends it (legacy field names), already
/// decoded by a shell; the engine validates it as the real service would.
///
/// Held once: its fields live in one shared box, so the copies a message makes on its
/// way (held, stored, delivered, inbox, events, the journal) each cost one reference,
/// and a change to one copy copies the fields first (copy on write). The target is
/// the copy's own: a topic's copies and a multicast's each name one token, and share
/// the rest.
public struct DownstreamRequest: Sendable, Equatable, Codable, CustomReflectable {
    private var box: DownstreamFieldsBox

    /// The sender the app server authenticated as.
    public var sender: String {
        get { box.fields.sender }
        set { fields.sender = newValue }
    }
    /// The target: a registration token, or `/topics/NAME`; nil when the request
    /// named none.
    public var to: String?
    /// A topic condition (`'a' in topics && 'b' in topics`) instead of `to`.
    public var condition: String? {
        get { box.fields.condition }
        set { fields.condition = newValue }
    }
    /// The app server's own id (XMPP `message_id`); generated when nil.
    public var messageID: String? {
        get { box.fields.messageID }
        set { fields.messageID = newValue }
    }
    public var data: [KeyValue] {
        get { box.fields.data }
        set { fields.data = newValue }
    }
    public var notification: [KeyValue]? {
        get { box.fields.notification }
        set { fields.notification = newValue }
    }
    public var collapseKey: String? {
        get { box.fields.collapseKey }
        set { fields.collapseKey = newValue }
    }
    /// `high` or `normal`; any other text is refused.
    public var priority: String? {
        get { box.fields.priority }
        set { fields.priority = newValue }
    }
    /// Seconds; nil means the 4-week default.
    public var timeToLive: Int64? {
        get { box.fields.timeToLive }
        set { fields.timeToLive = newValue }
    }
    public var deliveryReceiptRequested: Bool {
        get { box.fields.deliveryReceiptRequested }
        set { fields.deliveryReceiptRequested = newValue }
    }
    public var dryRun: Bool {
        get { box.fields.dryRun }
        set { fields.dryRun = newValue }
    }
    public var contentAvailable: Bool {
        get { box.fields.contentAvailable }
        set { fields.contentAvailable = newValue }
    }
    public var mutableContent: Bool {
        get { box.fields.mutableContent }
        set { fields.mutableContent = newValue }
    }

    /// What the message says besides its payload (`MessageDetails`); nil when nothing.
    public var details: MessageDetails? {
        get { box.fields.detailsBox?.value }
        set { fields.detailsBox = newValue.flatMap { $0.isEmpty ? nil : MessageDetailsBox($0) } }
    }

    /// The fields to change: the box's own when this copy is its only holder, else a
    /// fresh box with the same fields.
    private var fields: DownstreamFields {
        get { box.fields }
        _modify {
            if !isKnownUniquelyReferenced(&box) { box = DownstreamFieldsBox(box.fields) }
            yield &box.fields
        }
    }

    public init(
        sender: String, to: String?, messageID: String? = nil, data: [KeyValue] = [],
        notification: [KeyValue]? = nil, collapseKey: String? = nil, priority: String? = nil,
        timeToLive: Int64? = nil, deliveryReceiptRequested: Bool = false, dryRun: Bool = false,
        contentAvailable: Bool = false, mutableContent: Bool = false, condition: String? = nil
    ) {
        self.to = to
        box = DownstreamFieldsBox(
            DownstreamFields(
                sender: sender, to: nil, condition: condition, messageID: messageID, data: data,
                notification: notification, collapseKey: collapseKey, priority: priority,
                timeToLive: timeToLive, deliveryReceiptRequested: deliveryReceiptRequested, dryRun: dryRun,
                contentAvailable: contentAvailable, mutableContent: mutableContent))
    }

    public static func == (lhs: DownstreamRequest, rhs: DownstreamRequest) -> Bool {
        lhs.to == rhs.to && (lhs.box === rhs.box || lhs.box.fields == rhs.box.fields)
    }

    // Coded as its fields, under their own names: the journal's and saved states'
    // format is the one the struct had before it was boxed.
    public init(from decoder: any Decoder) throws {
        var fields = try DownstreamFields(from: decoder)
        to = fields.to
        fields.to = nil
        box = DownstreamFieldsBox(fields)
    }

    public func encode(to encoder: any Encoder) throws {
        try whole.encode(to: encoder)
    }

    /// A request prints as its fields (a test's failure, a debugger), not as its box.
    public var customMirror: Mirror { Mirror(reflecting: whole) }

    /// Every field, the target among them, as the journal writes them.
    private var whole: DownstreamFields {
        var fields = box.fields
        fields.to = to
        return fields
    }

    /// The topic named by `to: /topics/NAME`, without its prefix.
    public var topic: String? {
        guard let to, TopicName.isTopicAddress(to) else { return nil }
        return TopicName.bare(to)
    }

    /// Whether the message goes to a topic's subscribers (a topic or a condition),
    /// not to one token.
    public var isTopicSend: Bool { condition != nil || to.map(TopicName.isTopicAddress) == true }

    /// A notification message carries display fields; the SDK may show it itself.
    public var isNotification: Bool { notification != nil }

    /// Notification messages default to high priority, data messages to normal.
    public var effectivePriority: Priority {
        priority.flatMap(Priority.init(rawValue:)) ?? (isNotification ? .high : .normal)
    }
}

/// Why the connection server refused a downstream message, with the name each API
/// gives it.
public enum DownstreamError: Sendable, Equatable, Error {
    case missingRegistration
    case invalidRegistration(String)
    case notRegistered(String)
    case mismatchSenderID(String)
    /// The payload's size and the limit it passed (smaller for topic messages), and
    /// the platform of the phone the token is for (nil: a topic or no phone).
    case messageTooBig(Int, limit: Int, platform: Platform?)
    /// A topic name or condition that cannot be read: why.
    case invalidTopic(String)
    /// A fault made it fail, with this legacy error name (see `Fault.errors`).
    case injected(String)
    case invalidDataKey(String)
    case invalidTtl(Int64)
    case invalidParameters(String)
    /// The message is restricted to a package (`restricted`) other than the app's
    /// that holds the token (`app`).
    case invalidPackageName(restricted: String, app: String)
    case unavailable
    /// The device's message rate passed production's limit (`DeviceLimits`): which one.
    case deviceRateExceeded(String)
    /// The token expired: its app instance has not connected for 270 days.
    case tokenExpired(String)

    /// The legacy HTTP `results[].error` name.
    public var legacyName: String {
        switch self {
        case .missingRegistration: "MissingRegistration"
        case .invalidRegistration: "InvalidRegistration"
        case .notRegistered, .tokenExpired: "NotRegistered"
        case .mismatchSenderID: "MismatchSenderId"
        case .deviceRateExceeded: "DeviceMessageRateExceeded"
        case .messageTooBig: "MessageTooBig"
        case .invalidDataKey: "InvalidDataKey"
        case .invalidTtl: "InvalidTtl"
        case .invalidParameters, .invalidTopic: "InvalidParameters"
        case .invalidPackageName: "InvalidPackageName"
        case .injected(let name): name
        case .unavailable: "Unavailable"
        }
    }

    /// The XMPP (CCS) nack `error` code.
    public var ccsCode: String {
        switch self {
        // CCS has no code of its own for a package mismatch: it is a field of the message.
        case .missingRegistration, .messageTooBig, .invalidDataKey, .invalidTtl, .invalidParameters, .invalidTopic,
            .invalidPackageName:
            "INVALID_JSON"
        case .invalidRegistration, .mismatchSenderID: "BAD_REGISTRATION"
        case .notRegistered, .tokenExpired: "DEVICE_UNREGISTERED"
        // A rate refusal is answered as the fault table has the same legacy name.
        case .injected, .deviceRateExceeded: Fault.errors[legacyName]?.ccs ?? "INTERNAL_SERVER_ERROR"
        case .unavailable: "SERVICE_UNAVAILABLE"
        }
    }

    /// The HTTP v1 `FcmError.errorCode`.
    public var v1Code: String {
        switch self {
        case .missingRegistration, .invalidRegistration, .messageTooBig, .invalidDataKey,
            .invalidTtl, .invalidParameters, .invalidTopic, .invalidPackageName:
            "INVALID_ARGUMENT"
        case .notRegistered, .tokenExpired: "UNREGISTERED"
        case .mismatchSenderID: "SENDER_ID_MISMATCH"
        case .injected, .deviceRateExceeded: Fault.errors[legacyName]?.v1 ?? "INTERNAL"
        case .unavailable: "UNAVAILABLE"
        }
    }

    /// The seconds the answer to this refusal on `api` asks the app server to wait
    /// (`Retry-After`), when it asks: a 503 on HTTP (the service down, or a v1
    /// `UNAVAILABLE`); never a result inside a 200, nor a CCS nack.
    public func retryAfter(on api: AppServerAPI) -> Int? {
        switch (self, api) {
        case (.unavailable, .legacy), (.unavailable, .v1): ServiceLimits.unavailableRetryAfterSeconds
        case (.injected, .v1) where v1Code == "UNAVAILABLE": ServiceLimits.unavailableRetryAfterSeconds
        default: nil
        }
    }

    /// What Google asks an app server to do on this refusal (app-server-practices.md):
    /// the report card reads it, so the classes are decided here once.
    public var handling: RefusalHandling {
        switch self {
        case .invalidRegistration, .notRegistered, .tokenExpired: .dropToken
        case .unavailable: .retry
        case .deviceRateExceeded: .slowDown
        case .injected(let name):
            switch Fault.errors[name]?.v1 {
            case "QUOTA_EXCEEDED"?: .slowDown
            case "UNAVAILABLE"?, "INTERNAL"?: .retry
            default: .fix
            }
        case .missingRegistration, .mismatchSenderID, .messageTooBig, .invalidTopic, .invalidDataKey, .invalidTtl,
            .invalidParameters, .invalidPackageName:
            .fix
        }
    }

    /// A sentence a person can act on.
    public var detail: String {
        switch self {
        case .missingRegistration: "the message names no target: a registration token, a topic or a condition"
        case .invalidRegistration(let token): "invalid registration token: \(TokenText.short(token))"
        case .notRegistered(let token):
            "registration token \(TokenText.short(token)) is no longer valid (app uninstalled or token refreshed)"
        case .mismatchSenderID(let token):
            "registration token \(TokenText.short(token)) belongs to another sender"
        case .messageTooBig(let size, let limit, _): "payload is \(size) bytes; the limit is \(limit)"
        case .deviceRateExceeded(let limit):
            "the message rate to this device passed \(limit) (turn the limits off with \(DeviceLimits.switchText))"
        case .tokenExpired(let token):
            "registration token \(TokenText.short(token)) expired: its app instance has not connected to FCM for "
                + "\(DeviceLimits.tokenExpiryDays) days (a new token comes when the app is opened again)"
        case .invalidTopic(let why): why
        case .injected(let name): "\(name): made on purpose by a fault or a rate rule (the control API or a fault step)"
        case .invalidDataKey(let key): "data key \"\(key)\" is reserved"
        case .invalidTtl(let ttl):
            "time_to_live \(ttl) is outside 0..\(ServiceLimits.maxTimeToLive) seconds"
        case .invalidParameters(let why): why
        case .invalidPackageName(let restricted, let app):
            "Invalid package name: the message is restricted to \(restricted); the token's app is \(app)"
        case .unavailable: "the messaging service is down"
        }
    }

    /// The message of v1's error body: Google's own words where app servers and SDK
    /// wrappers match on them (Google's texts on v1), else
    /// `detail`.
    public var v1Message: String {
        switch self {
        case .invalidRegistration: "The registration token is not a valid FCM registration token"
        case .notRegistered, .tokenExpired: "Requested entity was not found."
        case .messageTooBig(_, _, let platform):
            // Only Android's words are known; an APNs or web copy gets the generic text.
            platform == .android ? "Android message is too big" : "Request contains an invalid argument."
        default: detail
        }
    }
}

/// Shortens tokens for messages and screens.
public enum TokenText {
    /// The start and the end of a long token: every token of one installation
    /// starts alike (its instance id), so the end is what tells them apart.
    public static func short(_ token: String) -> String {
        token.count <= 24 ? token : String(token.prefix(12)) + "…" + String(token.suffix(8))
    }
}

/// What an app server is to do about a refused message, as Google asks.
public enum RefusalHandling: String, Sendable {
    /// The token is gone or was never valid: delete it, send nothing more to it.
    case dropToken = "drop-token"
    /// The request is wrong: fix it; sent again unchanged it fails again.
    case fix
    /// The service failed: retry later, backing off (after `Retry-After` when given).
    case retry
    /// Over a rate: send less, back off (a minute after a 429 without `Retry-After`).
    case slowDown = "slow-down"
}

extension DownstreamRequest {
    /// The service's own fields win over data pairs of the same name (the data is
    /// copied only when it has one).
    mutating func dropServiceData() {
        let isServiceKey = { (item: KeyValue) in ServiceLimits.isServiceDataKey(item.key) }
        if data.contains(where: isServiceKey) { data.removeAll(where: isServiceKey) }
    }

    /// How long the service keeps it: its own time to live, or the service's default.
    var timeToLiveOrDefault: Int64 { timeToLive ?? ServiceLimits.defaultDownstreamTimeToLive }
}

/// The fields of a downstream message, as the app server gave them.
struct DownstreamFields: Equatable, Codable {
    var sender: String
    /// Only as coded: a request holds its target beside its box, and the box's is nil.
    var to: String?
    var condition: String?
    var messageID: String?
    var data: [KeyValue]
    var notification: [KeyValue]?
    var collapseKey: String?
    var priority: String?
    var timeToLive: Int64?
    var deliveryReceiptRequested: Bool
    var dryRun: Bool
    var contentAvailable: Bool
    var mutableContent: Bool
    /// Kept boxed: most messages have no details.
    var detailsBox: MessageDetailsBox? = nil
}

/// The one place a message's fields are held; shared by every copy of the message
/// until one of them changes (then that copy takes a box of its own first).
final class DownstreamFieldsBox: @unchecked Sendable {
    // Changed only through `DownstreamRequest.fields`, when the one request that holds
    // the box is the only holder: no other copy, and so no other thread, can see it.
    var fields: DownstreamFields

    init(_ fields: DownstreamFields) {
        self.fields = fields
    }
}
