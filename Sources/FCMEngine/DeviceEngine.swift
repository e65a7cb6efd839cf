/// The rules of one FCM/GCM client app instance and of the connection server that
/// serves it, as a value: commands and the time go in, events come out. No clock,
/// no I/O: the replay, the TUI and the network servers are shells around it.
public struct DeviceEngine: Sendable, Codable {
    public internal(set) var configuration: EngineConfiguration
    /// The configuration the device started with, for a reset.
    public internal(set) var startConfiguration: EngineConfiguration
    public internal(set) var names: CallbackNames
    var tokenFactory: TokenFactory

    /// The time of the last command or timer handled.
    public internal(set) var now: Millis = 0
    public internal(set) var appState: AppState
    public internal(set) var network: Network
    public internal(set) var doze: Bool
    public internal(set) var serviceUp = true
    public internal(set) var installed = true

    // Registration.
    public internal(set) var senders: [SenderConfig]
    /// Sender ID → its current token.
    public internal(set) var tokens: [String: String] = [:]
    /// Every token ever issued here → its sender.
    var tokenOwners: [String: String] = [:]
    /// Sender ID → tokens issued to it, oldest first.
    public internal(set) var issuedTokens: [String: [String]] = [:]
    var installation = 0
    var refreshes: [String: Int] = [:]

    // Upstream.
    /// The device's pending queue while it cannot reach the service (at most 20).
    public internal(set) var pending: [UpstreamMessage] = []
    /// Upstream messages the connection server holds until the app server acks.
    public internal(set) var awaitingAck = HeldUpstreams()
    /// The earliest retry or expiry among `awaitingAck`, kept without scanning it.
    var awaitingDeadlines = DeadlineHeap()
    public internal(set) var batch: SendBatch?
    var usedIDs: [String: Set<String>] = [:]
    /// Senders with a real app server connected (the echo does not answer for them).
    public internal(set) var realAppServers: Set<String> = []
    /// The connection server's app-server connections.
    public internal(set) var links = AppServerLinks()

    // Downstream.
    /// Messages the connection server stores for the device, oldest first.
    public internal(set) var stored: [StoredMessage] = []
    public internal(set) var tray: [TrayNotification] = []
    /// The newest delivered messages, oldest first (at least the newest `inboxLimit`,
    /// fewer than twice that).
    public internal(set) var inbox: [DeliveredMessage] = []
    public static let inboxLimit = 500
    /// Delivery receipts no app server has acknowledged yet, oldest first (at most
    /// `owedReceiptLimit`; past it the oldest is dropped).
    public internal(set) var owedReceipts: [OwedReceipt] = []
    public static let owedReceiptLimit = 10_000
    /// Sender → the topics this app instance is subscribed to for it.
    public internal(set) var topics: [String: Set<String>] = [:]
    /// Topic changes the app asked for while it could not reach the service, oldest first.
    public internal(set) var pendingTopicChanges: [TopicChange] = []
    /// Faults added on purpose and not used up yet, oldest first.
    public internal(set) var faults: [Fault] = []
    var nextFaultID = 0
    /// Legacy device groups, oldest first.
    public internal(set) var groups: [DeviceGroup] = []
    /// Messages discarded since the device last heard of it (onDeletedMessages).
    public internal(set) var deletedCount = 0
    var unreachableSince: Millis?
    var lastInactiveDropAt: Millis?
    var messageCounter: UInt64 = 0
    /// The calls made on this engine since a shell last took them, while recording.
    public var inputs = InputRecord()

    public init(_ configuration: EngineConfiguration) {
        self.configuration = configuration
        startConfiguration = configuration
        names = CallbackNames(platform: configuration.device.platform, sdk: configuration.device.sdk)
        tokenFactory = TokenFactory(seed: configuration.device.seed, sdk: configuration.device.sdk)
        appState = configuration.device.state
        network = configuration.device.network
        doze = configuration.device.doze
        senders = configuration.senders
    }

    /// Turns the built-in echo app server on or off (`--no-echo` on a saved device).
    public mutating func useAppServer(_ mode: AppServerMode) {
        configuration.appServer = mode
    }

    /// The device can talk to the connection server.
    public var connected: Bool { installed && network == .online && serviceUp }

    public var platform: Platform { configuration.device.platform }

    /// Registers every sender: the first `onNewToken` of each.
    public mutating func start(at time: Millis = 0, into out: inout [Event]) {
        inputs.record(.start(at: time))
        now = time
        issueFirstTokens(into: &out)
    }

    mutating func issueFirstTokens(into out: inout [Event]) {
        for sender in senders {
            issueToken(for: sender, into: &out)
        }
        if !connected { unreachableSince = now }
    }

    /// Handles one command at `time` (clamped so time never runs backwards), after
    /// every timer due by then.
    public mutating func apply(_ command: Command, at time: Millis, into out: inout [Event]) {
        inputs.record(.apply(command, at: max(time, now)))
        runTimers(to: time, into: &out)
        switch command {
        case .setNetwork(let value): setNetwork(value, into: &out)
        case .setService(let up): setService(up: up, into: &out)
        case .setDoze(let value): setDoze(value, into: &out)
        case .setAppState(let value): setAppState(value, into: &out)
        case .uninstall: uninstall(into: &out)
        case .reinstall: reinstall(into: &out)
        case .reinstallAs(let platform, let sdk): reinstall(as: platform, sdk: sdk, into: &out)
        case .refreshToken(let sender): refreshToken(sender: sender, into: &out)
        case .addSender(let sender): addSender(sender, into: &out)
        case .removeSender(let id): removeSender(id, into: &out)
        case .send(let request): send(request, into: &out)
        case .push(let request): admit(request, into: &out)
        case .tap(let target): tap(target, into: &out)
        case .ackUpstream(let sender, let id): takeAck(sender: sender, id: id, into: &out)
        case .drain: drain(into: &out)
        case .ackReceipt(let sender, let id): ackReceipt(sender: sender, id: id, into: &out)
        case .setAppServerPresent(let sender, let present):
            if present { realAppServers.insert(sender) } else { realAppServers.remove(sender) }
        case .appServer(let input): appServer(input, into: &out)
        case .subscribe(let topic, let sender): changeTopic(topic, subscribe: true, sender: sender, into: &out)
        case .unsubscribe(let topic, let sender): changeTopic(topic, subscribe: false, sender: sender, into: &out)
        case .addFault(let fault): addFault(fault, into: &out)
        case .clearFaults: clearFaults(into: &out)
        case .reset: reset(into: &out)
        }
        runTimers(to: now, into: &out)
    }

    /// Convenience for tests and small shells.
    public mutating func apply(_ command: Command, at time: Millis) -> [Event] {
        var out: [Event] = []
        apply(command, at: time, into: &out)
        return out
    }

    mutating func emit(_ side: Side, _ kind: EventName, _ fields: [Field], into out: inout [Event]) {
        out.append(Event(at: now, side: side, kind: kind, fields: fields))
    }

    mutating func refuse(_ command: String, _ detail: String, side: Side = .device, into out: inout [Event]) {
        emit(side, .commandRefused, [.text("command", command), .text("detail", detail)], into: &out)
    }
}
