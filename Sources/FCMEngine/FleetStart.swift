/// How a profile's phones are made as started, one at a time, for the fleet's phones
/// not made yet (`Fleet`): by entry of the profile's `devices:` list, each with the
/// senders its phones register with.
struct FleetStart: Sendable {
    struct Entry: Sendable {
        /// The index of the entry's first phone, and one past its last.
        let first: Int
        let end: Int
        let spec: DeviceSpec
        let senders: [SenderConfig]
        /// Whether its phones wait to be made until a rule changes one: not a web
        /// app's, whose first token subscribes its browser with the connection server.
        let waits: Bool

        /// What its phones' callbacks are called.
        var names: CallbackNames { CallbackNames(platform: spec.settings.platform, sdk: spec.settings.sdk) }
    }

    let entries: [Entry]
    /// When the fleet started (its first tokens issued), and whether the connection
    /// server was up then; nil before: the phones have no token yet.
    var startedAt: Millis?
    var serviceUp = true

    init(_ configuration: EngineConfiguration) {
        guard !configuration.devices.isEmpty else {
            let spec = DeviceSpec(configuration.device)
            entries = [Entry(first: 0, end: 1, spec: spec, senders: configuration.senders, waits: true)]
            return
        }
        var first = 0
        entries = configuration.devices.map { spec in
            defer { first += spec.phoneCount }
            return Entry(
                first: first, end: first + spec.phoneCount, spec: spec,
                senders: configuration.startingSenders(of: spec), waits: spec.settings.platform != .web)
        }
    }

    /// How many phones the profile starts.
    var count: Int { entries.last?.end ?? 0 }

    /// The entry the phone at `index` is of.
    func entry(of index: Int) -> Entry {
        // A profile has a few entries; a fleet of a million is one.
        for entry in entries where index < entry.end { return entry }
        preconditionFailure("no phone at \(index)")
    }

    /// The phone at `index` of `entry` as the profile makes it, before any token.
    func madeAtStart(at index: Int, of entry: Entry) -> Phone {
        Phone(entry.spec.phone(at: index - entry.first), senders: entry.senders, index: index)
    }

    /// The phone at `index` as started: with its first tokens once the fleet started.
    func phone(at index: Int) -> Phone {
        let entry = entry(of: index)
        var phone = madeAtStart(at: index, of: entry)
        if let startedAt {
            for (sender, token) in firstTokens(at: index, of: entry) { phone.tokens[sender] = token }
            if phone.network != .online || !serviceUp { phone.unreachableSince = startedAt }
        }
        _ = phone.takeChanges()
        return phone
    }

    /// The phone's name, made without making the phone.
    func name(at index: Int) -> String {
        let entry = entry(of: index)
        return entry.spec.name(at: index - entry.first)
    }

    /// The token maker of the phone at `index` of `entry`.
    func tokenFactory(at index: Int, of entry: Entry) -> TokenFactory {
        TokenFactory(
            seed: Phone.tokenSeed(entry.spec.seed(at: index - entry.first), index: index), sdk: entry.spec.settings.sdk)
    }

    /// The first token of each sender of the phone at `index`, in its senders' order.
    func firstTokens(at index: Int) -> [(sender: String, token: String)] {
        firstTokens(at: index, of: entry(of: index))
    }

    func firstTokens(at index: Int, of entry: Entry) -> [(sender: String, token: String)] {
        let factory = tokenFactory(at: index, of: entry)
        return entry.senders.map { ($0.id, factory.token(sender: $0.id, installation: 0, refreshes: 0)) }
    }

    /// The phone the profile names `name`, or nil.
    func index(named name: String) -> Int? {
        for entry in entries {
            if let offset = entry.spec.offset(of: name) { return entry.first + offset }
        }
        return nil
    }
}
