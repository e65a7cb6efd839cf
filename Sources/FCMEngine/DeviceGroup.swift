/// A legacy device group: a notification key that stands for up to 20 registration
/// tokens of one sender.
public struct DeviceGroup: Sendable, Equatable, Codable {
    public var sender: String
    public var name: String
    public var key: String
    /// Registration tokens, in the order they were added.
    public var members: [String]

    /// The most members one group may have.
    public static let maxMembers = 20
}

/// An app server's call on `/fcm/notification`, decoded by a shell.
public struct GroupOrder: Sendable, Equatable, Codable {
    public enum Operation: String, Sendable, Codable, CaseIterable { case create, add, remove }

    /// The sender the app server authenticated as (its `project_id`).
    public var sender: String
    public var operation: Operation
    public var name: String?
    public var key: String?
    public var tokens: [String]

    public init(sender: String, operation: Operation, name: String?, key: String?, tokens: [String]) {
        self.sender = sender
        self.operation = operation
        self.name = name
        self.key = key
        self.tokens = tokens
    }
}

/// What the connection server made of a group call.
public enum GroupOutcome: Sendable, Equatable {
    case serviceDown
    /// The group's notification key (after a remove that emptied it, the key it had).
    case key(String)
    /// Refused, with the reason the service gives (`notification_key not found`, …).
    case refused(String)
}

/// How a message to a notification key went: members that took it and those that
/// did not (the legacy reply's `success`, `failure`, `failed_registration_ids`).
public struct GroupDelivery: Sendable, Equatable {
    public var success: Int
    public var failed: [String]

    public init(success: Int, failed: [String]) {
        self.success = success
        self.failed = failed
    }
}
