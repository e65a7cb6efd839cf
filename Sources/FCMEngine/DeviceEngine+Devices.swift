/// Several phones on one connection server: each rule names the phone it acts on
/// (its index, `p`); finding a phone by name or by token; phones joining.
extension DeviceEngine {
    /// The phone at `p`, read where it lies and changed in place. What a change does
    /// beyond the phone follows it (`settle`): the fields a store saves are noted, and
    /// the maps over phones (tokens, topics, deadlines) and the topic messages going
    /// out follow the phone.
    @inline(__always) subscript(p: Int) -> Phone {
        _read {
            let place = devices.place(of: p)
            if place >= 0 {
                yield devices.made[place]
            } else {
                yield devices.startingPhone(at: p)
            }
        }
        _modify {
            let place = devices.place(of: p) >= 0 ? devices.place(of: p) : make(p)
            yield &devices.made[place]
            // A rule that only read the phone (most calls) changed nothing to settle.
            if !devices.made[place].changes.isEmpty { settle(p) }
        }
    }

    /// Makes the phone at `p` (as started until now) for a rule to change it: its name
    /// and tokens join the maps over made phones. Nothing about it changed yet.
    mutating func make(_ p: Int) -> Int {
        let place = devices.make(p)
        deviceIndex[devices.made[place].name] = p
        devices.made[place].forEachToken { tokenDevices[$0] = p }
        return place
    }

    /// What a change of the phone at `p` does beyond it: its changed fields noted for
    /// the store, its deadline, the token and topic indexes and the topic messages
    /// going out brought up to date.
    mutating func settle(_ p: Int) {
        let (changes, before) = devices.made[devices.place(of: p)].takeChanges()
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
        let place = devices.place(of: index)
        guard place >= 0 else { return read(devices.startingPhone(at: index)) }
        return devices.made.withUnsafeBufferPointer { buffer in
            // A pointer's subscript addresses the element; a buffer's returns a copy.
            read(buffer.baseAddress.unsafelyUnwrapped[place])
        }
    }

    /// The phone that may hold `token`: with one phone, that phone (its own maps
    /// answer whether it does); with several, the one it was issued on.
    func candidate(holding token: String) -> Int? {
        devices.count == 1 ? 0 : device(holding: token)
    }

    /// What is wrong with `name` for a phone joining now, or nil.
    public func deviceNameProblem(_ name: String) -> String? {
        DeviceSpec.nameProblem(name) { deviceNumber(named: $0) != nil }
    }

    /// The index of the named phone: a made phone by the map of names, one as started
    /// by its profile entry.
    public func deviceNumber(named name: String) -> Int? {
        deviceIndex[name] ?? devices.asStarted(named: name)
    }

    /// The phone a token was issued on, if any: a made phone by the map of tokens, one
    /// as started by its first tokens.
    public func device(holding token: String) -> Int? {
        tokenDevices[token] ?? devices.asStarted(holding: token, among: startTokens.candidates(for: token))
    }

    /// Rebuilds the name, token and deadline maps from `devices`.
    /// The phones as started are in none of them: their names are their profile's,
    /// their first tokens are found by `startTokens`, and they have no topic or timer.
    mutating func indexDevices() {
        deviceIndex.removeAll(keepingCapacity: true)
        tokenDevices.removeAll(keepingCapacity: true)
        // Grown once, not doubled step by step over a big fleet.
        var names = 0
        var tokenCount = 0
        devices.forEachMade { _, phone in
            names += 1
            tokenCount += phone.tokenCount
        }
        deviceIndex.reserveCapacity(names)
        tokenDevices.reserveCapacity(tokenCount)
        server.topicIndex.removeAll()
        var deadlines: [(Int, Millis)] = []
        // Each phone read where it lies: `for phone in devices` copies every phone (each
        // of its fields retained and released), a million phones at a resume.
        devices.forEachMade { index, phone in
            deviceIndex[phone.name] = index
            phone.forEachToken { tokenDevices[$0] = index }
            if !phone.topics.isEmpty { server.topicIndex.update(phone: index, from: [:], to: phone.topics) }
            if let deadline = phone.earliestDeadline { deadlines.append((index, deadline)) }
        }
        countRegisteredSenders()
        phoneDeadlines.rebuild(deadlines)
    }

    /// Counts the senders every phone registers with, in the order first met.
    mutating func countRegisteredSenders() {
        var senders = AppServerSenders()
        // A fleet's phones mostly share one list: a run of phones with the same list
        // is counted once, when it ends.
        var run: (list: [SenderConfig], phones: Int) = ([], 0)
        for index in devices.indices {
            let list = devices.senders(at: index)
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
        for sender in configuration.senders + registeredSenders.all where seen.insert(sender.id).inserted {
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
