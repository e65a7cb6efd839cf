/// The device-side fields of the phone in focus (`focus`), read and written in
/// place: the rules of one phone are written against these. Every write notes the
/// phone and the field as changed (`InputRecord.changedPhones`), so a store saves that
/// phone alone, and of it what differs from the fleet as started.
extension DeviceEngine {
    /// The phone in focus: its settings as they are now.
    var device: DeviceSettings {
        _read { yield phone(focus) { $0.settings } }
        _modify {
            inputs.notePhone(focus, .settings)
            yield &devices[focus].settings
        }
    }

    var names: CallbackNames {
        _read { yield phone(focus) { $0.names } }
        _modify {
            inputs.notePhone(focus, .names)
            yield &devices[focus].names
        }
    }

    var tokenFactory: TokenFactory {
        _read { yield phone(focus) { $0.tokenFactory } }
        _modify {
            inputs.notePhone(focus, .tokenFactory)
            yield &devices[focus].tokenFactory
        }
    }

    var appState: AppState {
        _read { yield phone(focus) { $0.appState } }
        _modify {
            inputs.notePhone(focus, .appState)
            yield &devices[focus].appState
        }
    }

    var network: Network {
        _read { yield phone(focus) { $0.network } }
        _modify {
            inputs.notePhone(focus, .network)
            yield &devices[focus].network
        }
    }

    var doze: Bool {
        _read { yield phone(focus) { $0.doze } }
        _modify {
            inputs.notePhone(focus, .doze)
            yield &devices[focus].doze
        }
    }

    var installed: Bool {
        _read { yield phone(focus) { $0.installed } }
        _modify {
            inputs.notePhone(focus, .installed)
            yield &devices[focus].installed
        }
    }

    /// The senders the phone in focus registers with.
    var senders: [SenderConfig] {
        _read { yield phone(focus) { $0.senders } }
        _modify {
            inputs.notePhone(focus, .senders)
            yield &devices[focus].senders
        }
    }

    /// Sender ID → the current token of the phone in focus. A token that leaves it
    /// (refreshed, deleted, uninstalled) is kept among the phone's retired tokens, and
    /// a change of a sender's token is noted in that sender's topic messages still
    /// going out.
    var tokens: [String: String] {
        _read { yield phone(focus) { $0.tokens } }
        _modify {
            let index = focus
            inputs.notePhone(index, .tokens)
            let before = phone(index) { $0.tokens }
            defer {
                retireTokens(ofPhoneAt: index, from: before)
                if !fanOuts.isEmpty { noteTokenChanges(ofPhoneAt: index, from: before) }
            }
            yield &devices[index].tokens
        }
    }

    /// The tokens of the phone in focus that are no longer current (`tokens` keeps them).
    var retiredTokens: [String: [String]] { phone(focus) { $0.retiredTokens } }

    /// Keeps the tokens of the phone at `index` that left its current ones.
    private mutating func retireTokens(ofPhoneAt index: Int, from before: [String: String]) {
        let now = phone(index) { $0.tokens }
        for (sender, token) in before where now[sender] != token {
            inputs.notePhone(index, .retiredTokens)
            devices[index].retiredTokens[sender, default: []].append(token)
        }
    }

    var installation: Int {
        _read { yield phone(focus) { $0.installation } }
        _modify {
            inputs.notePhone(focus, .installation)
            yield &devices[focus].installation
        }
    }

    var refreshes: [String: Int] {
        _read { yield phone(focus) { $0.refreshes } }
        _modify {
            inputs.notePhone(focus, .refreshes)
            yield &devices[focus].refreshes
        }
    }

    var tokenIssuedAt: [String: Millis] {
        _read { yield phone(focus) { $0.tokenIssuedAt } }
        _modify {
            inputs.notePhone(focus, .tokenIssuedAt)
            yield &devices[focus].tokenIssuedAt
        }
    }

    /// The pending queue of the phone in focus (at most 20).
    var pending: [UpstreamMessage] {
        _read { yield phone(focus) { $0.pending } }
        _modify {
            inputs.notePhone(focus, .pending)
            yield &devices[focus].pending
            noteDeadline(of: focus)
        }
    }

    var batch: SendBatch? {
        _read { yield phone(focus) { $0.batch } }
        _modify {
            inputs.notePhone(focus, .batch)
            // Ids join an open window often; only a window opening or closing moves a deadline.
            let closesAt = phone(focus) { $0.batch?.flushAt }
            yield &devices[focus].batch
            if phone(focus, { $0.batch?.flushAt }) != closesAt { noteDeadline(of: focus) }
        }
    }

    var usedIDs: [String: Set<String>] {
        _read { yield phone(focus) { $0.usedIDs } }
        _modify {
            inputs.notePhone(focus, .usedIDs)
            yield &devices[focus].usedIDs
        }
    }

    /// Messages the connection server stores for the phone in focus, oldest first.
    var stored: [StoredMessage] {
        _read { yield phone(focus) { $0.stored } }
        _modify {
            inputs.notePhone(focus, .stored)
            yield &devices[focus].stored
            noteDeadline(of: focus)
        }
    }

    var tray: [TrayNotification] {
        _read { yield phone(focus) { $0.tray } }
        _modify {
            inputs.notePhone(focus, .tray)
            yield &devices[focus].tray
        }
    }

    var inbox: [DeliveredMessage] {
        _read { yield phone(focus) { $0.inbox } }
        _modify {
            inputs.notePhone(focus, .inbox)
            yield &devices[focus].inbox
        }
    }

    /// Every change is noted in `topicIndex` too: this is the one way a rule changes
    /// a phone's subscriptions.
    var topics: [String: Set<String>] {
        _read { yield phone(focus) { $0.topics } }
        _modify {
            let index = focus
            inputs.notePhone(index, .topics)
            let before = phone(index) { $0.topics }
            defer { topicIndex.update(phone: index, from: before, to: phone(index) { $0.topics }) }
            yield &devices[index].topics
        }
    }

    var pendingTopicChanges: [TopicChange] {
        _read { yield phone(focus) { $0.pendingTopicChanges } }
        _modify {
            inputs.notePhone(focus, .pendingTopicChanges)
            yield &devices[focus].pendingTopicChanges
        }
    }

    var deletedCount: Int {
        _read { yield phone(focus) { $0.deletedCount } }
        _modify {
            inputs.notePhone(focus, .deletedCount)
            yield &devices[focus].deletedCount
        }
    }

    var unreachableSince: Millis? {
        _read { yield phone(focus) { $0.unreachableSince } }
        _modify {
            inputs.notePhone(focus, .unreachableSince)
            yield &devices[focus].unreachableSince
        }
    }

    var lastInactiveDropAt: Millis? {
        _read { yield phone(focus) { $0.lastInactiveDropAt } }
        _modify {
            inputs.notePhone(focus, .lastInactiveDropAt)
            yield &devices[focus].lastInactiveDropAt
        }
    }

    /// Production's per-device limits and expiries for the phone in focus.
    var policy: PhonePolicy {
        _read { yield phone(focus) { $0.policy } }
        _modify {
            inputs.notePhone(focus, .policy)
            yield &devices[focus].policy
            // The budget decides when throttling wakes the phone.
            noteDeadline(of: focus)
        }
    }
}
