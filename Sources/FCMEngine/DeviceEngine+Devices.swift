/// Several phones on one connection server: each rule names the phone it acts on
/// (its index, `p`); finding a phone by name or by token; phones joining.
extension DeviceEngine {
    /// The phone at `p`, read where it lies and changed in place. What a change does
    /// beyond the phone follows it (`settle`): the fields a store saves are noted, and
    /// the maps over phones (tokens, topics, deadlines) and the topic messages going
    /// out follow the phone.
    @inline(__always) subscript(p: Int) -> Phone {
        _read {
            precondition(devices.indices.contains(p), "no phone at \(p)")
            // A pointer's element is yielded where it lies; the array's getter copies
            // the whole phone (every field retained and released) to read one field.
            let phones = devices.withUnsafeBufferPointer { $0.baseAddress.unsafelyUnwrapped }
            yield phones[p]
        }
        _modify {
            yield &devices[p]
            // A rule that only read the phone (most calls) changed nothing to settle.
            if !devices[p].changes.isEmpty { settle(p) }
        }
    }

    /// What a change of the phone at `p` does beyond it: its changed fields noted for
    /// the store, its deadline, the token and topic indexes and the topic messages
    /// going out brought up to date.
    mutating func settle(_ p: Int) {
        let (changes, before) = devices[p].takeChanges()
        guard !changes.isEmpty else { return }
        inputs.notePhone(p, changes)
        if let before {
            if let tokens = before.tokens, !server.fanOuts.isEmpty { noteTokenChanges(ofPhoneAt: p, from: tokens) }
            if let topics = before.topics {
                server.topicIndex.update(phone: p, from: topics, to: phone(p) { $0.topics })
            }
        }
        if !changes.isDisjoint(with: Self.deadlineFields) { noteDeadline(of: p) }
    }

    /// The fields a phone's next deadline is read from.
    static var deadlineFields: Phone.Fields { [.batch, .pending, .stored, .policy] }

    /// A field read from one phone where it lies. `devices[index].field` reads through
    /// the array's getter, which copies the whole installation (every field retained
    /// and released) before taking one field; the phones' fields are read on every
    /// rule, so they are read here instead. `read` should only pick a field: work done
    /// inside it (a lookup, a call) makes the compiler copy the phone again.
    @inline(__always)
    func phone<T>(_ index: Int, _ read: (borrowing Phone) -> T) -> T {
        devices.withUnsafeBufferPointer { buffer in
            precondition(buffer.indices.contains(index), "no phone at \(index)")
            // A pointer's subscript addresses the element; a buffer's returns a copy.
            return read(buffer.baseAddress.unsafelyUnwrapped[index])
        }
    }

    /// The phone that may hold `token`: with one phone, that phone (its own maps
    /// answer whether it does); with several, the one it was issued on.
    func candidate(holding token: String) -> Int? {
        devices.count == 1 ? 0 : tokenDevices[token]
    }

    /// What is wrong with `name` for a phone joining now, or nil.
    public func deviceNameProblem(_ name: String) -> String? {
        DeviceSpec.nameProblem(name) { deviceIndex[$0] != nil }
    }

    /// The index of the named phone.
    public func deviceNumber(named name: String) -> Int? { deviceIndex[name] }

    /// The phone a token was issued on, if any.
    public func device(holding token: String) -> Int? { tokenDevices[token] }

    /// Rebuilds the name, token and deadline maps from `devices`.
    mutating func indexDevices() {
        deviceIndex.removeAll(keepingCapacity: true)
        tokenDevices.removeAll(keepingCapacity: true)
        // Grown once, not doubled step by step over a big fleet.
        deviceIndex.reserveCapacity(devices.count)
        tokenDevices.reserveCapacity(devices.indices.reduce(0) { $0 + phone($1) { $0.tokenCount } })
        // Each phone read where it lies: `for phone in devices` copies every phone (each
        // of its fields retained and released), a million phones at a resume.
        server.topicIndex.removeAll()
        for index in devices.indices {
            deviceIndex[phone(index) { $0.name }] = index
            let (tokens, retired, topics) = phone(index) { ($0.tokens, $0.retiredTokens, $0.topics) }
            for token in tokens.values { tokenDevices[token] = index }
            for list in retired.values {
                for token in list { tokenDevices[token] = index }
            }
            if !topics.isEmpty { server.topicIndex.update(phone: index, from: [:], to: topics) }
        }
        countRegisteredSenders()
        phoneDeadlines.rebuild(
            devices.indices.compactMap { index in phone(index) { $0.earliestDeadline }.map { (index, $0) } })
    }

    /// Counts the senders every phone registers with, in the order first met.
    mutating func countRegisteredSenders() {
        var senders = AppServerSenders()
        // A fleet's phones mostly share one list: a run of phones with the same list
        // is counted once, when it ends.
        var run: (list: [SenderConfig], phones: Int) = ([], 0)
        for index in devices.indices {
            let list = phone(index) { $0.senders }
            if run.phones > 0, list == run.list {
                run.phones += 1
                continue
            }
            for sender in run.list { senders.add(sender, phones: run.phones) }
            run = (list, 1)
        }
        for sender in run.list { senders.add(sender, phones: run.phones) }
        registeredSenders = senders
    }

    /// Brings one phone's entry in `phoneDeadlines` up to date after its queue, store
    /// or batch window changed.
    mutating func noteDeadline(of index: Int) {
        phoneDeadlines.update(index, phone(index) { $0.earliestDeadline })
    }

    /// The sender a token is currently valid for, on whichever phone holds it.
    public func activeOwner(of token: String) -> String? {
        candidate(holding: token).flatMap { activeOwner(of: token, onPhoneAt: $0) }
    }

    /// The sender a token was ever issued to, on any phone.
    public func everOwner(of token: String) -> String? {
        candidate(holding: token).flatMap { everOwner(of: token, onPhoneAt: $0) }
    }

    /// The same, on the phone that may hold the token (`candidate(holding:)`), found
    /// once by a rule that asks several things of one token: a fleet's token map is
    /// large, and each lookup hashes the token's 152 characters.
    func activeOwner(of token: String, onPhoneAt p: Int) -> String? {
        phone(p) { $0.tokens }.first { $0.value == token }?.key
    }

    func everOwner(of token: String, onPhoneAt p: Int) -> String? {
        phone(p) { $0.owner(of: token) }
    }

    /// The IDs of `allSenders`, found without reading every phone.
    public var knownSenderIDs: Set<String> {
        Set(configuration.senders.map(\.id) + registeredSenders.all.map(\.id))
    }

    /// Every sender some phone registers with, in the order first seen.
    public var allSenders: [SenderConfig] {
        var seen: Set<String> = []
        var all: [SenderConfig] = []
        for sender in configuration.senders + devices.flatMap(\.senders) where seen.insert(sender.id).inserted {
            all.append(sender)
        }
        return all
    }

    /// A phone joins: it registers with its senders (every sender of the profile
    /// unless it names some) and gets its tokens.
    mutating func addDevice(_ spec: DeviceSpec, into out: inout [Event]) {
        let known = allSenders
        if let unknown = spec.senders?.first(where: { id in !known.contains { $0.id == id } }) {
            return refuse("add_device", "no sender \(unknown) is known to the connection server", on: nil, into: &out)
        }
        let chosen = spec.senders.map { ids in known.filter { ids.contains($0.id) } } ?? configuration.senders
        for settings in spec.expanded {
            if let problem = deviceNameProblem(settings.name) {
                return refuse("add_device", problem, on: nil, into: &out)
            }
            let index = join(settings, senders: chosen, into: &out)
            for sender in chosen { issueToken(for: sender, on: index, into: &out) }
            if !connected(index) { self[index].unreachableSince = now }
        }
    }

    /// A phone joins the fleet with `senders` (no token yet): its index.
    mutating func join(_ settings: DeviceSettings, senders: [SenderConfig], into out: inout [Event]) -> Int {
        let index = devices.count
        devices.append(Phone(settings, senders: senders, index: index))
        inputs.notePhone(index, .all)
        deviceIndex[settings.name] = index
        for sender in senders { registeredSenders.add(sender) }
        emit(
            .device, .deviceAdded,
            [.text("platform", settings.platform.rawValue), .text("sdk", settings.sdk.rawValue)], on: index,
            into: &out)
        return index
    }
}
