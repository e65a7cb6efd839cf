/// Which phones changed since a shell last asked, each once, and which of their fields
/// (`Phone.Fields`): what a store saves at its next checkpoint instead of the
/// whole fleet. A mask per phone and the list of phones noted, so noting a change costs
/// an array write and taking them costs what changed.
public struct ChangedPhones: Sendable {
    private var masks: [Phone.Fields] = []
    private var list: [Int] = []

    public init() {}

    public var isEmpty: Bool { list.isEmpty }

    /// How many phones are noted.
    public var count: Int { list.count }

    /// Notes `fields` of the phone at `index`.
    @inline(__always)
    public mutating func insert(_ index: Int, _ fields: Phone.Fields) {
        if index >= masks.count { masks.append(contentsOf: repeatElement([], count: index - masks.count + 1)) }
        if masks[index].isEmpty { list.append(index) }
        masks[index].formUnion(fields)
    }

    /// Notes every field of every phone below `count`.
    public mutating func insertAll(below count: Int) {
        for index in 0..<count { insert(index, .all) }
    }

    /// The phones noted with their fields, in the order first noted; none are noted afterwards.
    public mutating func take() -> [(index: Int, fields: Phone.Fields)] {
        defer { removeAll() }
        return list.map { ($0, masks[$0]) }
    }

    public mutating func removeAll() {
        if list.count * 8 < masks.count {
            for index in list { masks[index] = [] }
        } else {
            masks.removeAll(keepingCapacity: true)
        }
        list.removeAll(keepingCapacity: true)
    }
}

extension Phone {
    /// A set of an installation's saved fields (its `CodingKeys`): those a call changed,
    /// and those a saved row holds.
    public struct Fields: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        init(_ key: CodingKeys) { rawValue = 1 << UInt32(key.rawValue) }

        public static let all = Fields(rawValue: (1 << UInt32(CodingKeys.allCases.count)) - 1)

        public static var settings: Fields { Fields(.settings) }
        // Saved in every row: a field added to `CodingKeys` changes `all`, and needs a
        // migration that rewrites the masks saved (see state format 9).
        public static var tokenOwners: Fields { Fields(.tokenOwners) }
        public static var issuedTokens: Fields { Fields(.issuedTokens) }
        public static var names: Fields { Fields(.names) }
        public static var tokenFactory: Fields { Fields(.tokenFactory) }
        public static var appState: Fields { Fields(.appState) }
        public static var network: Fields { Fields(.network) }
        public static var doze: Fields { Fields(.doze) }
        public static var installed: Fields { Fields(.installed) }
        public static var senders: Fields { Fields(.senders) }
        public static var tokens: Fields { Fields(.tokens) }
        public static var installation: Fields { Fields(.installation) }
        public static var refreshes: Fields { Fields(.refreshes) }
        public static var pending: Fields { Fields(.pending) }
        public static var batch: Fields { Fields(.batch) }
        public static var usedIDs: Fields { Fields(.usedIDs) }
        public static var stored: Fields { Fields(.stored) }
        public static var tray: Fields { Fields(.tray) }
        public static var inbox: Fields { Fields(.inbox) }
        public static var topics: Fields { Fields(.topics) }
        public static var pendingTopicChanges: Fields { Fields(.pendingTopicChanges) }
        public static var deletedCount: Fields { Fields(.deletedCount) }
        public static var unreachableSince: Fields { Fields(.unreachableSince) }
        public static var lastInactiveDropAt: Fields { Fields(.lastInactiveDropAt) }
        public static var tokenIssuedAt: Fields { Fields(.tokenIssuedAt) }
        public static var policy: Fields { Fields(.policy) }
        public static var retiredTokens: Fields { Fields(.retiredTokens) }

        func contains(_ key: CodingKeys) -> Bool { contains(Fields(key)) }
    }
}
