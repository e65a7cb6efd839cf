/// A plain number the network shell gives each app-server connection it accepted.
public typealias ConnectionID = Int

/// What happens on an app server's CCS connection, as the engine hears it. The
/// XMPP layer turns bytes into these; every rule about what follows is the engine's.
public enum AppServerInput: Sendable, Equatable, Codable {
    /// A connection was accepted: it must reach a session before `loginTimeout`.
    case opened(ConnectionID)
    /// SASL PLAIN succeeded for a sender: the connection counts against its limit.
    case authenticated(ConnectionID, sender: String)
    /// The session request was answered: after `settleTime` the connection takes
    /// upstream and receipts.
    case sessionEstablished(ConnectionID)
    /// A CCS message read from the connection.
    case received(ConnectionID, CCSMessage)
    /// The connection is gone.
    case closed(ConnectionID)
    /// Opened, authenticated for a sender and established at once (a profile's
    /// `connect` step: an app server the scenario describes).
    case connected(ConnectionID, sender: String)
}

extension AppServerInput {
    /// The connection it happened on.
    public var connection: ConnectionID {
        switch self {
        case .opened(let id), .authenticated(let id, _), .sessionEstablished(let id), .received(let id, _),
            .closed(let id), .connected(let id, _):
            id
        }
    }

    /// Whether it happened on a connection a profile describes (`connect`), not a
    /// real app server's.
    public var isOnScenarioConnection: Bool { ConnectionRules.scenarioConnections.contains(connection) }
}

/// A CCS message from an app server, as the XMPP layer read it.
public enum CCSMessage: Sendable, Equatable, Codable {
    /// An ack of an upstream message or of a delivery receipt (`dr2:…`).
    case ack(messageID: String)
    /// A nack from the app server. CCS defines none (servers ack upstream); the
    /// engine decides what one means (`DeviceEngine.receive`).
    case nack(messageID: String)
    /// A downstream message with its `message_id`.
    case downstream(DownstreamRequest, messageID: String)
    /// A message whose JSON CCS refuses before it reaches the device (bad JSON,
    /// a missing field): nacked with this code.
    case refused(messageID: String, error: String, description: String)
    /// A stanza that cannot even be nacked: echoed with a stanza error.
    case unreadable(stanzaID: String?, original: String, description: String)
}

/// A stanza the connection server writes to an app server.
public enum CCSStanza: Sendable, Equatable {
    case ack(messageID: String, token: String)
    case nack(messageID: String, token: String, error: String, description: String)
    case upstream(UpstreamMessage, token: String, category: String)
    case receipt(OwedReceipt, category: String)
    /// The `CONNECTION_DRAINING` control message.
    case draining
    case stanzaError(stanzaID: String?, original: String, text: String)
}

/// What the engine asks the network shell to do to a connection.
public enum LinkEffect: Sendable, Equatable {
    case write(ConnectionID, CCSStanza)
    /// Refuse the login (too many connections) and end the stream with a policy error.
    case refuseLogin(ConnectionID, detail: String)
    /// End the stream with an error condition and close.
    case streamError(ConnectionID, condition: String, text: String)
    /// End the stream normally and close (a drained connection's grace is over).
    case endStream(ConnectionID)
    /// Write on a real client's MCS connection (boxed: a message is larger than every
    /// other effect, and CCS writes one effect per message).
    indirect case mcs(ConnectionID, MCSStanza)

    /// The connection the effect is for.
    public var connection: ConnectionID {
        switch self {
        case .write(let id, _), .refuseLogin(let id, _), .streamError(let id, _, _), .endStream(let id),
            .mcs(let id, _):
            id
        }
    }
}

/// One app-server connection as the connection server sees it.
public struct AppServerLink: Sendable, Equatable, Codable {
    public var id: ConnectionID
    public var sender: String?
    public var openedAt: Millis
    /// When the session was established; the connection takes upstream `settleTime` later.
    public var establishedAt: Millis?
    public var ready = false
    public var draining = false
    /// When a draining connection closes.
    public var closesAt: Millis?
    /// Upstream ids written on this connection and not acknowledged, oldest first.
    public var unacked: [String] = []
    /// Receipts written on this connection (each goes once per connection).
    public var receiptsSent: Set<String> = []

    /// The connection can take upstream now: ready, not draining, window not full.
    var hasRoom: Bool { ready && !draining && unacked.count < ConnectionRules.unackedUpstreamLimit }

    /// When this connection next needs the engine: its drain ends, its session
    /// settles, or its login time runs out.
    func timer(loginTimeout: Millis) -> Millis? {
        if let closesAt { return closesAt }
        if let establishedAt { return ready ? nil : establishedAt + ConnectionRules.settleTime }
        return openedAt + loginTimeout
    }
}

/// The connection server's limits on app-server connections.
public enum ConnectionRules {
    /// Upstream messages CCS leaves unacknowledged on one connection before it
    /// stops sending on it.
    public static let unackedUpstreamLimit = 100
    /// Connections one sender may hold at once.
    public static let connectionsPerSender = 1_000
    /// How long a new connection may take to reach a session.
    public static let loginTimeout: Millis = 30 * Span.second
    /// Wait after the session result before upstream goes out (some clients only
    /// listen once their login call has returned).
    public static let settleTime: Millis = 150
    /// How long a draining connection stays open for replies before it closes.
    public static let drainGrace: Millis = Span.second
    /// The connection numbers a profile's steps may use; the app servers that
    /// connect for real are numbered after them, so the two never meet.
    public static let scenarioConnections: ClosedRange<ConnectionID> = 1...1_000
}

/// The app-server connections of the connection server, and the upstream each
/// sender's connections have not yet been given.
public struct AppServerLinks: Sendable, Codable {
    public internal(set) var byID: [ConnectionID: AppServerLink] = [:]
    /// Each sender's authenticated connections in the order they came, for turns.
    public internal(set) var bySender: [String: [ConnectionID]] = [:]
    var turn: [String: Int] = [:]
    /// Upstream held for each sender that no open connection carries, oldest first.
    var waiting: [String: UpstreamQueue] = [:]
    /// Which connection carries each held upstream message.
    var carrier: [MessageKey: ConnectionID] = [:]
    /// Each connection's next timer: login, settle or drain.
    var timers = DeadlineHeap<[MessageKey: Millis]>()
    /// Effects not yet taken by the shell (they never travel with the state).
    var effects: [LinkEffect] = []

    enum CodingKeys: String, CodingKey {
        case byID = "connections", bySender, turn, waiting, carrier, timers, loginTimeout
    }

    public init() {}

    /// Established connections of a sender.
    public func count(of sender: String) -> Int { bySender[sender]?.count ?? 0 }

    /// Upstream ids of a sender waiting for a connection with room.
    public func waitingUpstream(of sender: String) -> [String] { waiting[sender]?.messages.map(\.id) ?? [] }

    /// How long a new connection may take to reach a session (shorter in tests).
    public var loginTimeout = ConnectionRules.loginTimeout

    static func timerKey(_ id: ConnectionID) -> MessageKey { MessageKey(sender: "", id: String(id)) }

    /// Puts a held message at the back of its sender's waiting queue.
    mutating func queue(_ message: UpstreamMessage) {
        carrier[MessageKey(sender: message.sender, id: message.id)] = DeviceEngine.waitingCarrier
        waiting[message.sender, default: UpstreamQueue()].append(message)
    }

    /// Drops waiting upstream that was acknowledged or expired meanwhile.
    mutating func pruneWaiting() {
        for (sender, queue) in waiting {
            let kept = queue.messages.filter {
                carrier[MessageKey(sender: sender, id: $0.id)] == DeviceEngine.waitingCarrier
            }
            waiting[sender] = kept.isEmpty ? nil : UpstreamQueue(kept)
        }
    }

    /// Re-arms a connection's timer after it changed.
    mutating func update(_ link: AppServerLink) {
        byID[link.id] = link
        if let at = link.timer(loginTimeout: loginTimeout) {
            timers.set(Self.timerKey(link.id), at)
        } else {
            timers.remove(Self.timerKey(link.id))
        }
    }
}

/// Upstream messages waiting for a connection, oldest first: taken from the front
/// without shifting the rest (a long queue drains one ack at a time).
struct UpstreamQueue: Sendable, Codable {
    private var items: [UpstreamMessage]
    private var head = 0

    init(_ items: [UpstreamMessage] = []) {
        self.items = items
    }

    var isEmpty: Bool { head >= items.count }
    var first: UpstreamMessage? { isEmpty ? nil : items[head] }
    /// The waiting messages, oldest first.
    var messages: ArraySlice<UpstreamMessage> { items[head...] }

    mutating func append(_ message: UpstreamMessage) { items.append(message) }

    mutating func removeFirst() {
        head += 1
        // Taken messages are let go in chunks, not one at a time.
        if head > 64 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
    }

    /// Puts messages back in front of the rest, in their order.
    mutating func putBack(_ returned: [UpstreamMessage]) {
        items = returned + items[head...]
        head = 0
    }
}
