/// One app instance on one emulated phone: its own instance id, tokens, upstream
/// queue, stored messages, tray, inbox, topics, app state, network and doze. The
/// connection server (`DeviceEngine`) holds one or more of these.
public struct Phone: Sendable, Codable {
    /// What the phone is, as it is now (a reinstall on another platform changes it).
    public internal(set) var settings: DeviceSettings { didSet { changes.insert(.settings) } }
    public internal(set) var names: CallbackNames { didSet { changes.insert(.names) } }
    var tokenFactory: TokenFactory { didSet { changes.insert(.tokenFactory) } }
    public internal(set) var appState: AppState { didSet { changes.insert(.appState) } }
    public internal(set) var network: Network { didSet { changes.insert(.network) } }
    public internal(set) var doze: Bool { didSet { changes.insert(.doze) } }
    public internal(set) var installed = true { didSet { changes.insert(.installed) } }
    /// The fields changed since the engine last took note (`DeviceEngine.settle`): a
    /// store saves those. Not saved (it lies where the fields above leave room).
    var changes: Fields = []
    public internal(set) var senders: [SenderConfig] { didSet { changes.insert(.senders) } }
    /// Sender ID → its current token.
    public internal(set) var tokens: SenderMap<String> = [:] {
        didSet { tokensChanged(from: oldValue) }
    }
    /// Sender ID → the tokens issued to it that are no longer current (refreshed,
    /// deleted, uninstalled), oldest first. A phone that kept its first tokens has
    /// none: with `tokens` this is every token ever issued here, each kept once.
    public internal(set) var retiredTokens: SenderMap<[String]> = [:] { didSet { changes.insert(.retiredTokens) } }
    var installation = 0 { didSet { changes.insert(.installation) } }
    var refreshes: [String: Int] = [:] { didSet { changes.insert(.refreshes) } }
    /// Sender ID → when its current token was issued (a web app's getToken refreshes
    /// a token a week old).
    var tokenIssuedAt: [String: Millis] = [:] { didSet { changes.insert(.tokenIssuedAt) } }
    public internal(set) var pending: [UpstreamMessage] = [] { didSet { changes.insert(.pending) } }
    public internal(set) var batch: SendBatch? { didSet { changes.insert(.batch) } }
    var usedIDs: SenderMap<StringSet> = [:] { didSet { changes.insert(.usedIDs) } }
    public internal(set) var stored: [StoredMessage] = [] { didSet { changes.insert(.stored) } }
    public internal(set) var tray: [TrayNotification] = [] { didSet { changes.insert(.tray) } }
    public internal(set) var inbox: [DeliveredMessage] = [] { didSet { changes.insert(.inbox) } }
    /// Sender → the topics this app instance is subscribed to for it.
    public internal(set) var topics: SenderMap<Set<String>> = [:] {
        didSet {
            if before?.topics == nil { before = Before(tokens: before?.tokens, topics: oldValue) }
            changes.insert(.topics)
        }
    }
    public internal(set) var pendingTopicChanges: [TopicChange] = [] { didSet { changes.insert(.pendingTopicChanges) } }
    public internal(set) var deletedCount = 0 { didSet { changes.insert(.deletedCount) } }
    var unreachableSince: Millis? { didSet { changes.insert(.unreachableSince) } }
    var lastInactiveDropAt: Millis? { didSet { changes.insert(.lastInactiveDropAt) } }
    /// Production's per-device limits and expiries as they stand for this phone.
    public internal(set) var policy = PhonePolicy() { didSet { changes.insert(.policy) } }

    /// The tokens and the topics as they were before the first change since the
    /// engine last took note, while there is one: the engine's maps over phones follow
    /// them. Not saved.
    var before: Before?

    /// Tokens and topics as they were (`before`), in a box: a phone pays one reference
    /// for them, not two maps.
    final class Before: Sendable {
        let tokens: SenderMap<String>?
        let topics: SenderMap<Set<String>>?

        init(tokens: SenderMap<String>?, topics: SenderMap<Set<String>>?) {
            self.tokens = tokens
            self.topics = topics
        }
    }

    /// A phone as its settings start it, registered with `senders`. The phone at
    /// `index` past the first mixes the index into its seed, so two phones never
    /// share a token even when they were given the same seed.
    init(_ settings: DeviceSettings, senders: [SenderConfig], index: Int) {
        let settings = settings.fitted
        self.settings = settings
        names = CallbackNames(platform: settings.platform, sdk: settings.sdk)
        tokenFactory = TokenFactory(seed: Self.tokenSeed(settings.seed, index: index), sdk: settings.sdk)
        appState = settings.state
        network = settings.network
        doze = settings.doze
        self.senders = senders
    }

    static func tokenSeed(_ seed: UInt64, index: Int) -> UInt64 {
        index == 0 ? seed : seed ^ (UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
    }

    public var name: String { settings.name }

    /// The fields changed and what tokens and topics were, since the engine last took
    /// note; the phone starts noting again.
    mutating func takeChanges() -> (Fields, Before?) {
        defer {
            changes = []
            before = nil
        }
        return (changes, before)
    }

    /// A token that left the current ones (refreshed, deleted, uninstalled) is kept
    /// among the retired: with the current ones, every token issued here.
    /// The tokens as they were are kept (`before`) only when one left: a token issued
    /// where there was none (a start, a million phones) changes no topic message going
    /// out, whose phones all had theirs.
    private mutating func tokensChanged(from before: SenderMap<String>) {
        changes.insert(.tokens)
        for (sender, token) in before where tokens[sender] != token {
            if self.before?.tokens == nil { self.before = Before(tokens: before, topics: self.before?.topics) }
            retiredTokens[sender, default: []].append(token)
        }
    }

    /// The phone's settings with its conditions as they stand (app state, network,
    /// doze): what a profile says to start this phone as it is now.
    public var standing: DeviceSettings {
        var standing = settings
        standing.state = appState
        standing.network = network
        standing.doze = doze
        return standing
    }
    @inline(__always) public var platform: Platform { settings.platform }

    /// Every topic this app instance is subscribed to, over all senders.
    @inline(__always) public var topicCount: Int { topics.values.reduce(0) { $0 + $1.count } }

    /// The topics of one sender, sorted.
    public func topics(of sender: String) -> [String] { (topics[sender] ?? []).sorted() }

    /// When the phone's own timers next need the engine: the end of its batch window,
    /// or the expiry of a message in its queue or its store. Nil when none runs.
    var earliestDeadline: Millis? {
        Self.earliestDeadline(batch: batch, pending: pending, stored: stored, throttleWake: policy.throttleWake(stored))
    }

    static func earliestDeadline(
        batch: SendBatch?, pending: [UpstreamMessage], stored: [StoredMessage], throttleWake: Millis?
    ) -> Millis? {
        // By index, reading one field: a loop over the messages would copy each.
        var earliest = min(batch?.flushAt ?? .max, throttleWake ?? .max)
        for index in pending.indices { earliest = min(earliest, pending[index].expiresAt) }
        for index in stored.indices { earliest = min(earliest, stored[index].expiresAt) }
        return earliest == .max ? nil : earliest
    }

    /// Numbered in their order (a field's bit in `Fields`); coded by name.
    enum CodingKeys: Int, CodingKey, CaseIterable {
        case settings = 0, names, tokenFactory, appState, network, doze, installed, senders, tokens, tokenOwners
        case issuedTokens, installation, refreshes, pending, batch, usedIDs, stored, tray, inbox, topics
        case pendingTopicChanges, deletedCount, unreachableSince, lastInactiveDropAt, tokenIssuedAt, policy
        // Saved rows number their fields by the place here: a new one goes last, and a
        // state format's migration rewrites the saved masks (`Fields.all` changes).
        case retiredTokens
    }
}

extension Phone {
    /// Set to a `Phone.Fields` in an encoder's `userInfo`: only those fields are
    /// encoded (the rest are the fleet's as started, made again on reading).
    public static let fieldsSaved = CodingUserInfoKey(rawValue: "fcm-device.fieldsSaved")!

    public init(from decoder: any Decoder) throws { try self.init(decoding: decoder, settings: nil) }

    /// A phone as saved. `settings` stands in for a state saved before phones had
    /// settings of their own (before format 5, the configuration's device); topics
    /// came in format 4.
    init(decoding decoder: any Decoder, settings saved: DeviceSettings?) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        settings = try saved ?? c.decode(DeviceSettings.self, forKey: .settings)
        names = try c.decode(CallbackNames.self, forKey: .names)
        tokenFactory = try c.decode(TokenFactory.self, forKey: .tokenFactory)
        appState = try c.decode(AppState.self, forKey: .appState)
        network = try c.decode(Network.self, forKey: .network)
        doze = try c.decode(Bool.self, forKey: .doze)
        installed = try c.decode(Bool.self, forKey: .installed)
        senders = try c.decode([SenderConfig].self, forKey: .senders)
        tokens = try c.decode(SenderMap<String>.self, forKey: .tokens)
        // Before state format 9, a phone kept every token issued (`issuedTokens`).
        retiredTokens =
            try c.decodeIfPresent(SenderMap<[String]>.self, forKey: .retiredTokens)
            ?? Self.retired(
                issued: c.decodeIfPresent([String: [String]].self, forKey: .issuedTokens) ?? [:], current: tokens)
        installation = try c.decode(Int.self, forKey: .installation)
        refreshes = try c.decode([String: Int].self, forKey: .refreshes)
        pending = try c.decode([UpstreamMessage].self, forKey: .pending)
        batch = try c.decodeIfPresent(SendBatch.self, forKey: .batch)
        usedIDs = try Self.usedIDSets(saved: c.decode([String: [String]].self, forKey: .usedIDs))
        stored = try c.decode([StoredMessage].self, forKey: .stored)
        tray = try c.decode([TrayNotification].self, forKey: .tray)
        inbox = try c.decode([DeliveredMessage].self, forKey: .inbox)
        topics = try c.decodeIfPresent(SenderMap<Set<String>>.self, forKey: .topics) ?? [:]
        pendingTopicChanges = try c.decodeIfPresent([TopicChange].self, forKey: .pendingTopicChanges) ?? []
        deletedCount = try c.decode(Int.self, forKey: .deletedCount)
        unreachableSince = try c.decodeIfPresent(Millis.self, forKey: .unreachableSince)
        lastInactiveDropAt = try c.decodeIfPresent(Millis.self, forKey: .lastInactiveDropAt)
        // Since the web platform; a state saved before has no issue times.
        tokenIssuedAt = try c.decodeIfPresent([String: Millis].self, forKey: .tokenIssuedAt) ?? [:]
        // Since production's per-device policies.
        policy = try c.decodeIfPresent(PhonePolicy.self, forKey: .policy) ?? PhonePolicy()
    }

    /// A phone saved as the fields that differ from `base` (the phone as the fleet
    /// started): every field the row holds is read, the others are `base`'s. Only the
    /// fields there are are looked at (a row after a topic message holds one).
    public init(decoding decoder: any Decoder, over base: Phone) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self = base
        var issued: [String: [String]]?
        for key in c.allKeys {
            switch key {
            case .settings: settings = try c.decode(DeviceSettings.self, forKey: key)
            case .names: names = try c.decode(CallbackNames.self, forKey: key)
            case .tokenFactory: tokenFactory = try c.decode(TokenFactory.self, forKey: key)
            case .appState: appState = try c.decode(AppState.self, forKey: key)
            case .network: network = try c.decode(Network.self, forKey: key)
            case .doze: doze = try c.decode(Bool.self, forKey: key)
            case .installed: installed = try c.decode(Bool.self, forKey: key)
            case .senders: senders = try c.decode([SenderConfig].self, forKey: key)
            case .tokens: tokens = try c.decode(SenderMap<String>.self, forKey: key)
            case .retiredTokens: retiredTokens = try c.decode(SenderMap<[String]>.self, forKey: key)
            // Saved before format 9: derived from the tokens issued (below).
            case .tokenOwners: break
            case .issuedTokens: issued = try c.decode([String: [String]].self, forKey: key)
            case .installation: installation = try c.decode(Int.self, forKey: key)
            case .refreshes: refreshes = try c.decode([String: Int].self, forKey: key)
            case .pending: pending = try c.decode([UpstreamMessage].self, forKey: key)
            case .usedIDs: usedIDs = try Self.usedIDSets(saved: c.decode([String: [String]].self, forKey: key))
            case .stored: stored = try c.decode([StoredMessage].self, forKey: key)
            case .tray: tray = try c.decode([TrayNotification].self, forKey: key)
            case .inbox: inbox = try c.decode([DeliveredMessage].self, forKey: key)
            case .topics: topics = try c.decode(SenderMap<Set<String>>.self, forKey: key)
            case .pendingTopicChanges: pendingTopicChanges = try c.decode([TopicChange].self, forKey: key)
            case .deletedCount: deletedCount = try c.decode(Int.self, forKey: key)
            case .tokenIssuedAt: tokenIssuedAt = try c.decode([String: Millis].self, forKey: key)
            case .policy: policy = try c.decode(PhonePolicy.self, forKey: key)
            // A field that may be nil is saved as null when it became nil.
            case .batch: batch = try c.decodeIfPresent(SendBatch.self, forKey: key)
            case .unreachableSince: unreachableSince = try c.decodeIfPresent(Millis.self, forKey: key)
            case .lastInactiveDropAt: lastInactiveDropAt = try c.decodeIfPresent(Millis.self, forKey: key)
            }
        }
        // A row without retired tokens whose tokens changed: saved before format 9,
        // or none retired since the fleet started. A token current at the start and
        // gone now was retired.
        if !c.contains(.retiredTokens), issued != nil || c.contains(.tokens) {
            retiredTokens = Self.retired(issued: issued ?? base.issuedTokens, current: tokens)
        }
    }

    /// The used message ids as saved (a list per sender) in their set.
    static func usedIDSets(saved: [String: [String]]) -> SenderMap<StringSet> {
        SenderMap(saved).mapValues { ids in
            var set = StringSet()
            set.reserveCapacity(ids.count)
            for id in ids { set.insert(id) }
            return set
        }
    }

    /// Every token issued but the current ones, per sender, oldest first.
    static func retired(issued: [String: [String]], current: SenderMap<String>) -> SenderMap<[String]> {
        var retired: SenderMap<[String]> = [:]
        for (sender, list) in issued.sorted(by: { $0.key < $1.key }) {
            let old = list.filter { $0 != current[sender] }
            if !old.isEmpty { retired[sender] = old }
        }
        return retired
    }

    /// Sender ID → every token issued to it here, oldest first (the current one last).
    public var issuedTokens: [String: [String]] {
        var issued: [String: [String]] = [:]
        for (sender, list) in retiredTokens { issued[sender] = list }
        for (sender, token) in tokens { issued[sender, default: []].append(token) }
        return issued
    }

    /// The sender a token was issued to here, current or retired.
    func owner(of token: String) -> String? {
        if let current = tokens.first(where: { $0.value == token }) { return current.key }
        return retiredTokens.first { $0.value.contains(token) }?.key
    }

    /// Every token issued here, current and retired.
    func forEachToken(_ body: (String) -> Void) {
        for token in tokens.values { body(token) }
        for list in retiredTokens.values { list.forEach(body) }
    }

    /// How many tokens were issued here.
    var tokenCount: Int { retiredTokens.values.reduce(tokens.count) { $0 + $1.count } }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let fields = encoder.userInfo[Self.fieldsSaved] as? Fields ?? .all
        func put<T: Encodable>(_ value: T, _ key: CodingKeys) throws {
            if fields.contains(key) { try c.encode(value, forKey: key) }
        }
        // Nil is left out of a whole phone, and saved as null among changed fields
        // (it differs from the phone as started).
        func put<T: Encodable>(_ value: T?, nullable key: CodingKeys) throws {
            if let value {
                try put(value, key)
            } else if fields != .all, fields.contains(key) {
                try c.encodeNil(forKey: key)
            }
        }
        try put(settings, .settings)
        try put(names, .names)
        try put(tokenFactory, .tokenFactory)
        try put(appState, .appState)
        try put(network, .network)
        try put(doze, .doze)
        try put(installed, .installed)
        try put(senders, .senders)
        try put(tokens, .tokens)
        if !retiredTokens.isEmpty || fields != .all { try put(retiredTokens, .retiredTokens) }
        try put(installation, .installation)
        try put(refreshes, .refreshes)
        try put(pending, .pending)
        try put(usedIDs.mapValues { $0.keys.sorted() }, .usedIDs)
        try put(stored, .stored)
        try put(tray, .tray)
        try put(inbox, .inbox)
        try put(topics.mapValues { $0.sorted() }, .topics)
        try put(pendingTopicChanges, .pendingTopicChanges)
        try put(deletedCount, .deletedCount)
        if !tokenIssuedAt.isEmpty || fields != .all { try put(tokenIssuedAt, .tokenIssuedAt) }
        if policy != PhonePolicy() || fields != .all { try put(policy, .policy) }
        try put(batch, nullable: .batch)
        try put(unreachableSince, nullable: .unreachableSince)
        try put(lastInactiveDropAt, nullable: .lastInactiveDropAt)
    }
}
