import FCMEngine

/// How the HTTP APIs reach the device: calls that run on its engine (the server runs
/// each at once, under the engine's lock). The engine decides every answer.
public struct DeviceGateway: Sendable {
    /// Downstream messages, in order.
    public var send: @Sendable ([SendOrder]) async -> SendOutcome
    /// A topic-management call.
    public var topics: @Sendable (TopicOrder) async -> TopicOutcome
    /// A device-group call.
    public var groups: @Sendable (GroupOrder) async -> GroupOutcome
    /// The notification key of a sender's group of this name, if any.
    public var groupKey: @Sendable (_ sender: String, _ name: String) async -> String?
    /// What faults in scope do to a request on this path (each use counted).
    public var faults: @Sendable (_ path: String) async -> [FaultEffect]
    /// Downstream messages sent at once, the outcome handed on once it is on disk
    /// (from any thread); nil where the device is reached only by `send`.
    public var sendNow: (@Sendable ([SendOrder], @escaping @Sendable (SendOutcome) -> Void) -> Void)?
    /// Whether any fault is in scope (then every request takes the general way).
    public var hasFaults: @Sendable () -> Bool

    public init(
        send: @escaping @Sendable ([SendOrder]) async -> SendOutcome,
        topics: @escaping @Sendable (TopicOrder) async -> TopicOutcome,
        groups: @escaping @Sendable (GroupOrder) async -> GroupOutcome,
        groupKey: @escaping @Sendable (_ sender: String, _ name: String) async -> String?,
        faults: @escaping @Sendable (_ path: String) async -> [FaultEffect],
        sendNow: (@Sendable ([SendOrder], @escaping @Sendable (SendOutcome) -> Void) -> Void)? = nil,
        hasFaults: @escaping @Sendable () -> Bool = { true }
    ) {
        self.faults = faults
        self.sendNow = sendNow
        self.hasFaults = hasFaults
        self.send = send
        self.topics = topics
        self.groups = groups
        self.groupKey = groupKey
    }
}
