/// The device-side fields of the phone in focus (`focus`), read and written in
/// place: the rules of one phone are written against these.
extension DeviceEngine {
    /// The phone in focus: its settings as they are now.
    public internal(set) var device: DeviceSettings {
        _read { yield devices[focus].settings }
        _modify { yield &devices[focus].settings }
    }

    public internal(set) var names: CallbackNames {
        _read { yield devices[focus].names }
        _modify { yield &devices[focus].names }
    }

    var tokenFactory: TokenFactory {
        _read { yield devices[focus].tokenFactory }
        _modify { yield &devices[focus].tokenFactory }
    }

    public internal(set) var appState: AppState {
        _read { yield devices[focus].appState }
        _modify { yield &devices[focus].appState }
    }

    public internal(set) var network: Network {
        _read { yield devices[focus].network }
        _modify { yield &devices[focus].network }
    }

    public internal(set) var doze: Bool {
        _read { yield devices[focus].doze }
        _modify { yield &devices[focus].doze }
    }

    public internal(set) var installed: Bool {
        _read { yield devices[focus].installed }
        _modify { yield &devices[focus].installed }
    }

    /// The senders the phone in focus registers with.
    public internal(set) var senders: [SenderConfig] {
        _read { yield devices[focus].senders }
        _modify { yield &devices[focus].senders }
    }

    /// Sender ID → the current token of the phone in focus.
    public internal(set) var tokens: [String: String] {
        _read { yield devices[focus].tokens }
        _modify { yield &devices[focus].tokens }
    }

    var tokenOwners: [String: String] {
        _read { yield devices[focus].tokenOwners }
        _modify { yield &devices[focus].tokenOwners }
    }

    public internal(set) var issuedTokens: [String: [String]] {
        _read { yield devices[focus].issuedTokens }
        _modify { yield &devices[focus].issuedTokens }
    }

    var installation: Int {
        _read { yield devices[focus].installation }
        _modify { yield &devices[focus].installation }
    }

    var refreshes: [String: Int] {
        _read { yield devices[focus].refreshes }
        _modify { yield &devices[focus].refreshes }
    }

    /// The pending queue of the phone in focus (at most 20).
    public internal(set) var pending: [UpstreamMessage] {
        _read { yield devices[focus].pending }
        _modify {
            yield &devices[focus].pending
            noteDeadline(of: focus)
        }
    }

    public internal(set) var batch: SendBatch? {
        _read { yield devices[focus].batch }
        _modify {
            yield &devices[focus].batch
            noteDeadline(of: focus)
        }
    }

    var usedIDs: [String: Set<String>] {
        _read { yield devices[focus].usedIDs }
        _modify { yield &devices[focus].usedIDs }
    }

    /// Messages the connection server stores for the phone in focus, oldest first.
    public internal(set) var stored: [StoredMessage] {
        _read { yield devices[focus].stored }
        _modify {
            yield &devices[focus].stored
            noteDeadline(of: focus)
        }
    }

    public internal(set) var tray: [TrayNotification] {
        _read { yield devices[focus].tray }
        _modify { yield &devices[focus].tray }
    }

    public internal(set) var inbox: [DeliveredMessage] {
        _read { yield devices[focus].inbox }
        _modify { yield &devices[focus].inbox }
    }

    public internal(set) var topics: [String: Set<String>] {
        _read { yield devices[focus].topics }
        _modify { yield &devices[focus].topics }
    }

    public internal(set) var pendingTopicChanges: [TopicChange] {
        _read { yield devices[focus].pendingTopicChanges }
        _modify { yield &devices[focus].pendingTopicChanges }
    }

    public internal(set) var deletedCount: Int {
        _read { yield devices[focus].deletedCount }
        _modify { yield &devices[focus].deletedCount }
    }

    var unreachableSince: Millis? {
        _read { yield devices[focus].unreachableSince }
        _modify { yield &devices[focus].unreachableSince }
    }

    var lastInactiveDropAt: Millis? {
        _read { yield devices[focus].lastInactiveDropAt }
        _modify { yield &devices[focus].lastInactiveDropAt }
    }
}
