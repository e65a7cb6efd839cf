/// What a message says besides its payload that only some phones read: the package
/// it is restricted to, its analytics label, whether it may wake a phone locked since
/// boot, a Live Activity's token, and the parts the phone's platform does not read.
public struct MessageDetails: Sendable, Equatable, Codable {
    /// Only an app of this package gets the message (legacy `restricted_package_name`,
    /// v1 `android.restricted_package_name`).
    public var restrictedPackageName: String?
    /// `fcm_options.analytics_label`, the platform block's over the message's.
    public var analyticsLabel: String?
    /// Android's `direct_boot_ok`.
    public var directBootOK: Bool?
    /// APNs's `live_activity_token`: the message updates a Live Activity.
    public var liveActivityToken: String?
    /// Parts of the message the phone's platform does not read (`apns` on Android).
    public var ignored: [String]?
    /// How the app server's body was read, when that explains a refusal (a legacy
    /// body without a JSON Content-Type is read as a form).
    public var readNote: String?

    public init(
        restrictedPackageName: String? = nil, analyticsLabel: String? = nil, directBootOK: Bool? = nil,
        liveActivityToken: String? = nil, ignored: [String]? = nil, readNote: String? = nil
    ) {
        self.readNote = readNote
        self.restrictedPackageName = restrictedPackageName
        self.analyticsLabel = analyticsLabel
        self.directBootOK = directBootOK
        self.liveActivityToken = liveActivityToken
        self.ignored = ignored
    }

    /// Whether it says nothing.
    public var isEmpty: Bool { self == MessageDetails() }

    /// These details with `other`'s set fields over them.
    public func overlaid(by other: MessageDetails) -> MessageDetails {
        let ignoredByBoth = (ignored ?? []) + (other.ignored ?? [])
        return MessageDetails(
            restrictedPackageName: other.restrictedPackageName ?? restrictedPackageName,
            analyticsLabel: other.analyticsLabel ?? analyticsLabel, directBootOK: other.directBootOK ?? directBootOK,
            liveActivityToken: other.liveActivityToken ?? liveActivityToken,
            ignored: ignoredByBoth.isEmpty ? nil : ignoredByBoth, readNote: other.readNote ?? readNote)
    }
}

/// A message's details, held apart so a message without them stays as small as it was
/// (most messages have none, and every message is copied on its way).
final class MessageDetailsBox: Sendable, Equatable, Codable {
    let value: MessageDetails

    init(_ value: MessageDetails) {
        self.value = value
    }

    static func == (lhs: MessageDetailsBox, rhs: MessageDetailsBox) -> Bool { lhs.value == rhs.value }

    init(from decoder: any Decoder) throws {
        value = try decoder.singleValueContainer().decode(MessageDetails.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
