/// The connection server beside the phones: its app-server connections, the upstream
/// it holds until an app server acks, the receipts it owes, topics and their index,
/// device groups, topic messages going out and faults made on purpose. The engine
/// (`DeviceEngine`) is the fleet of phones, this server and the clock.
public struct Server: Sendable {
    /// Whether the messaging service is up.
    public internal(set) var serviceUp = true
    /// Upstream messages the connection server holds until the app server acks.
    public internal(set) var awaitingAck = HeldUpstreams()
    /// The earliest retry or expiry among `awaitingAck`, kept without scanning it.
    var awaitingDeadlines = DeadlineHeap<[MessageKey: Millis]>()
    /// Senders with a real app server connected (the echo does not answer for them).
    public internal(set) var realAppServers: Set<String> = []
    /// The app-server connections.
    public internal(set) var links = AppServerLinks()
    /// Delivery receipts no app server has acknowledged yet, oldest first (at most
    /// `DeviceEngine.owedReceiptLimit`; past it the oldest is dropped).
    public internal(set) var owedReceipts: [OwedReceipt] = []
    /// Faults added on purpose and not used up yet, oldest first.
    public internal(set) var faults: [Fault] = []
    var nextFaultID = 0
    /// Legacy device groups, oldest first.
    public internal(set) var groups: [DeviceGroup] = []
    /// Topic messages whose copies are still going out, oldest first.
    @usableFromInline var fanOuts: [TopicFanOut] = []
    /// Each topic's subscribed phones (`TopicIndex`): an index over the phones, made
    /// again with the engine's other maps over them (not saved).
    var topicIndex = TopicIndex()
    /// Messages taken so far: the seed of each message id.
    var messageCounter: UInt64 = 0
    /// Web Push: the browsers' subscriptions and what is held for them.
    public internal(set) var webPush = PushService()
    /// Real clients, boxed (`receivers`): nil until the first registration call, so
    /// a server without one is no larger for them.
    var receiversBox: SharedBox<Receivers>?
    /// MCS connections not logged in yet, and when each must have (not saved: a
    /// restarted server has no connections).
    var mcsLoginDeadlines: [ConnectionID: Millis] = [:]
}

/// The time a rule's events happen at, and whether anyone hears them
/// (`DeviceEngine.handleSilently`): what a rule outside the engine (the server's own)
/// needs to make events as the engine makes them.
struct EventStamp {
    var now: Millis
    var silent: Bool

    /// An event now; one about a phone names it first (`device`). The fields are
    /// taken, not copied: the name goes in front of them in their own list (a new list
    /// for the name retained every field once more).
    func emit(
        _ side: Side, _ kind: EventName, _ fields: consuming [Field], naming phone: String? = nil,
        into out: inout [Event]
    ) {
        if silent { return }
        if let phone { fields.insert(.text("device", phone), at: 0) }
        out.append(Event(at: now, side: side, kind: kind, fields: fields))
    }
}

extension Server {
    /// Real clients: the devices that checked in, their registrations, and the
    /// receivers of the fleet with their MCS connections.
    public internal(set) var receivers: Receivers {
        get { receiversBox?.value ?? Receivers() }
        _modify {
            if receiversBox == nil { receiversBox = SharedBox(Receivers()) }
            yield &receiversBox!.value
        }
        set { receiversBox = SharedBox(newValue) }
    }

    /// Whether any real client ever called: what the rules on every message ask
    /// before they look further.
    var hasReceivers: Bool { receiversBox != nil }

    /// Whether the phone at `p` is a real client's.
    func isReceiver(_ p: Int) -> Bool { receiversBox?.value.byPhone[p] != nil }
}
