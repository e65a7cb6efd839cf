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

        init(_ key: CodingKeys) { rawValue = 1 << UInt32(CodingKeys.allCases.firstIndex(of: key)!) }

        public static let all = Fields(rawValue: (1 << UInt32(CodingKeys.allCases.count)) - 1)

        public static let settings = Fields(.settings)
        // Saved in every row: a field added to `CodingKeys` changes `all`, and needs a
        // migration that rewrites the masks saved (see state format 9).
        public static let tokenOwners = Fields(.tokenOwners)
        public static let issuedTokens = Fields(.issuedTokens)
        public static let names = Fields(.names)
        public static let tokenFactory = Fields(.tokenFactory)
        public static let appState = Fields(.appState)
        public static let network = Fields(.network)
        public static let doze = Fields(.doze)
        public static let installed = Fields(.installed)
        public static let senders = Fields(.senders)
        public static let tokens = Fields(.tokens)
        public static let installation = Fields(.installation)
        public static let refreshes = Fields(.refreshes)
        public static let pending = Fields(.pending)
        public static let batch = Fields(.batch)
        public static let usedIDs = Fields(.usedIDs)
        public static let stored = Fields(.stored)
        public static let tray = Fields(.tray)
        public static let inbox = Fields(.inbox)
        public static let topics = Fields(.topics)
        public static let pendingTopicChanges = Fields(.pendingTopicChanges)
        public static let deletedCount = Fields(.deletedCount)
        public static let unreachableSince = Fields(.unreachableSince)
        public static let lastInactiveDropAt = Fields(.lastInactiveDropAt)
        public static let tokenIssuedAt = Fields(.tokenIssuedAt)
        public static let policy = Fields(.policy)
        public static let retiredTokens = Fields(.retiredTokens)

        func contains(_ key: CodingKeys) -> Bool { contains(Fields(key)) }
    }
}
