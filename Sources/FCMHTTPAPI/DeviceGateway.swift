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
    /// Downstream messages sent at once, on the caller's thread: the device's outcome,
    /// and how far its journal must be on disk before the outcome may be told; nil
    /// where the device is reached only by `send`.
    public var sendNow: (@Sendable ([SendOrder]) -> Durable<SendOutcome>)?
    /// Whether any fault is in scope (then every request takes the general way).
    public var hasFaults: @Sendable () -> Bool
    /// The senders app servers may act for now (for listing them).
    public var appServers: @Sendable () -> AppServerSenders
    /// The sender a request names, among those app servers may act for now (asked at
    /// every request).
    public var findSender: @Sendable (SenderLookup) -> SenderConfig?

    public init(
        send: @escaping @Sendable ([SendOrder]) async -> SendOutcome,
        topics: @escaping @Sendable (TopicOrder) async -> TopicOutcome,
        groups: @escaping @Sendable (GroupOrder) async -> GroupOutcome,
        groupKey: @escaping @Sendable (_ sender: String, _ name: String) async -> String?,
        faults: @escaping @Sendable (_ path: String) async -> [FaultEffect],
        sendNow: (@Sendable ([SendOrder]) -> Durable<SendOutcome>)? = nil,
        hasFaults: @escaping @Sendable () -> Bool = { true },
        appServers: @escaping @Sendable () -> AppServerSenders,
        findSender: (@Sendable (SenderLookup) -> SenderConfig?)? = nil
    ) {
        self.appServers = appServers
        self.findSender = findSender ?? { lookup in appServers().find(lookup) }
        self.faults = faults
        self.sendNow = sendNow
        self.hasFaults = hasFaults
        self.send = send
        self.topics = topics
        self.groups = groups
        self.groupKey = groupKey
    }
}

/// Something told only once the device's journal is on disk up to `point` (0 when
/// nothing was journaled): what the device made of a send, or the reply to it.
public struct Durable<Value: Sendable>: Sendable {
    public var value: Value
    public var point: Int64

    public init(_ value: Value, point: Int64) {
        self.value = value
        self.point = point
    }
}
