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

    public init(
        send: @escaping @Sendable ([SendOrder]) async -> SendOutcome,
        topics: @escaping @Sendable (TopicOrder) async -> TopicOutcome,
        groups: @escaping @Sendable (GroupOrder) async -> GroupOutcome,
        groupKey: @escaping @Sendable (_ sender: String, _ name: String) async -> String?,
        faults: @escaping @Sendable (_ path: String) async -> [FaultEffect]
    ) {
        self.faults = faults
        self.send = send
        self.topics = topics
        self.groups = groups
        self.groupKey = groupKey
    }
}
