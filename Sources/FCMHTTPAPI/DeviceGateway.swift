import FCMEngine

/// How the HTTP APIs reach the device: calls that run on its engine (the server runs
/// each at once, under the engine's lock). The engine decides every answer.
public struct DeviceGateway: Sendable {
    /// Downstream messages sent at once, on the caller's thread: the device's outcome,
    /// and how far its journal must be on disk before the outcome may be told.
    public var sendNow: @Sendable ([SendOrder]) -> Durable<SendOutcome>
    /// What faults in scope do to a request on this path (each use counted), at once,
    /// with the journal point their counting reached.
    public var faultsNow: @Sendable (_ path: String) -> Durable<[FaultEffect]>
    /// Returns once the device's journal is on disk up to a point.
    public var durable: @Sendable (_ point: Int64) async -> Void
    /// A topic-management call.
    public var topics: @Sendable (TopicOrder) async -> TopicOutcome
    /// The topics a registration (token or FID) of a sender is subscribed to.
    public var subscriptions: @Sendable (_ registration: String, _ sender: String) async -> Result<[String], TopicError>
    /// A device-group call.
    public var groups: @Sendable (GroupOrder) async -> GroupOutcome
    /// A Web Push request at the push service: its answer.
    public var webPush: @Sendable (WebPushRequest) async -> WebPushAnswer
    /// A real client's call on the registration hosts: their answer.
    public var receiver: @Sendable (ReceiverRequest) async -> ReceiverAnswer
    /// The notification key of a sender's group of this name, if any.
    public var groupKey: @Sendable (_ sender: String, _ name: String) async -> String?
    /// Whether any fault is in scope (without counting a use).
    public var hasFaults: @Sendable () -> Bool
    /// The senders app servers may act for now (for listing them).
    public var appServers: @Sendable () -> AppServerSenders
    /// The sender a request names, among those app servers may act for now (asked at
    /// every request).
    public var findSender: @Sendable (SenderLookup) -> SenderConfig?
    /// The device's time now (when a request started, in the events of its send).
    public var now: @Sendable () -> Millis

    public init(
        sendNow: @escaping @Sendable ([SendOrder]) -> Durable<SendOutcome>,
        faultsNow: @escaping @Sendable (_ path: String) -> Durable<[FaultEffect]>,
        durable: @escaping @Sendable (_ point: Int64) async -> Void = { _ in },
        topics: @escaping @Sendable (TopicOrder) async -> TopicOutcome,
        subscriptions:
            @escaping @Sendable (_ registration: String, _ sender: String) async -> Result<
                [String], TopicError
            >,
        groups: @escaping @Sendable (GroupOrder) async -> GroupOutcome,
        groupKey: @escaping @Sendable (_ sender: String, _ name: String) async -> String?,
        webPush: @escaping @Sendable (WebPushRequest) async -> WebPushAnswer = { _ in
            WebPushAnswer(status: 503, body: "no push service\n")
        },
        receiver: @escaping @Sendable (ReceiverRequest) async -> ReceiverAnswer = { _ in
            .text(status: 503, "no registration service\n")
        },
        hasFaults: @escaping @Sendable () -> Bool = { true },
        appServers: @escaping @Sendable () -> AppServerSenders,
        findSender: (@Sendable (SenderLookup) -> SenderConfig?)? = nil,
        now: @escaping @Sendable () -> Millis = { 0 }
    ) {
        self.now = now
        self.appServers = appServers
        self.findSender = findSender ?? { lookup in appServers().find(lookup) }
        self.sendNow = sendNow
        self.faultsNow = faultsNow
        self.durable = durable
        self.hasFaults = hasFaults
        self.topics = topics
        self.subscriptions = subscriptions
        self.groups = groups
        self.groupKey = groupKey
        self.webPush = webPush
        self.receiver = receiver
    }

    /// Downstream messages, in order, told once they are on disk.
    public func send(_ orders: [SendOrder]) async -> SendOutcome {
        let sent = sendNow(orders)
        await durable(sent.point)
        return sent.value
    }

    /// The faults in scope on a path, told once their counting is on disk.
    public func faults(_ path: String) async -> [FaultEffect] {
        guard hasFaults() else { return [] }
        let effects = faultsNow(path)
        await durable(effects.point)
        return effects.value
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
