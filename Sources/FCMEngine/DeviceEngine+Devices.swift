/// Several phones on one connection server: which one a rule acts on, finding a
/// phone by name or by token, and phones joining.
extension DeviceEngine {
    /// Runs `body` with the phone at `index` in focus: the device-side fields are
    /// that phone's, and its events name it (when there are several).
    mutating func onDevice<R>(_ index: Int, _ body: (inout DeviceEngine) -> R) -> R {
        let (oldFocus, oldInDevice) = (focus, inDevice)
        focus = index
        inDevice = true
        defer { (focus, inDevice) = (oldFocus, oldInDevice) }
        return body(&self)
    }

    /// Runs `body` with the phone holding `token` in focus, or as it is when no
    /// phone ever held it.
    mutating func onDevice<R>(holding token: String, _ body: (inout DeviceEngine) -> R) -> R {
        // One phone is in focus already, and events name no phone: no lookup (a token
        // is long to hash, and this is on every message's way).
        guard devices.count > 1, let index = tokenDevices[token] else { return body(&self) }
        return onDevice(index, body)
    }

    /// The phone that may hold `token`: with one phone, that phone (its own maps
    /// answer whether it does); with several, the one it was issued on.
    func candidate(holding token: String) -> Int? {
        devices.count == 1 ? 0 : tokenDevices[token]
    }

    /// A field read from one phone where it lies. `devices[index].field` reads through
    /// the array's getter, which copies the whole installation (every field retained
    /// and released) before taking one field; the phones' fields are read on every
    /// rule, so they are read here instead. `read` should only pick a field: work done
    /// inside it (a lookup, a call) makes the compiler copy the phone again.
    @inline(__always)
    func phone<T>(_ index: Int, _ read: (borrowing Installation) -> T) -> T {
        devices.withUnsafeBufferPointer { buffer in
            precondition(buffer.indices.contains(index), "no phone at \(index)")
            // A pointer's subscript addresses the element; a buffer's returns a copy.
            return read(buffer.baseAddress.unsafelyUnwrapped[index])
        }
    }

    /// The engine as seen from the phone at `index`: its device-side fields are
    /// that phone's. For the per-phone views below.
    func viewed(from index: Int) -> DeviceEngine {
        var copy = self
        copy.focus = index
        return copy
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
        tokenDevices.reserveCapacity(devices.reduce(0) { $0 + $1.tokenCount })
        for (index, phone) in devices.enumerated() {
            deviceIndex[phone.name] = index
            phone.forEachToken { tokenDevices[$0] = index }
        }
        countRegisteredSenders()
        topicIndex.rebuild(from: devices)
        phoneDeadlines.rebuild(
            devices.indices.compactMap { index in phone(index) { $0.earliestDeadline }.map { (index, $0) } })
    }

    /// Counts the senders every phone registers with, in the order first met.
    mutating func countRegisteredSenders() {
        var senders = AppServerSenders()
        for phone in devices {
            for sender in phone.senders { senders.add(sender) }
        }
        registeredSenders = senders
    }

    /// Brings one phone's entry in `phoneDeadlines` up to date after its queue, store
    /// or batch window changed.
    mutating func noteDeadline(of index: Int) {
        let (batch, pending, stored, wakesAt) = phone(index) {
            ($0.batch, $0.pending, $0.stored, $0.policy)
        }
        phoneDeadlines.update(
            index,
            Installation.earliestDeadline(
                batch: batch, pending: pending, stored: stored, throttleWake: wakesAt.throttleWake(stored)))
    }

    /// The sender a token is currently valid for, on whichever phone holds it.
    public func activeOwner(of token: String) -> String? {
        guard let index = candidate(holding: token) else { return nil }
        return phone(index) { $0.tokens }.first { $0.value == token }?.key
    }

    /// The sender a token was ever issued to, on any phone.
    public func everOwner(of token: String) -> String? {
        candidate(holding: token).flatMap { index in phone(index) { $0.owner(of: token) } }
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
            return refuse("add_device", "no sender \(unknown) is known to the connection server", into: &out)
        }
        let chosen = spec.senders.map { ids in known.filter { ids.contains($0.id) } } ?? configuration.senders
        for settings in spec.expanded {
            if let problem = deviceNameProblem(settings.name) { return refuse("add_device", problem, into: &out) }
            let index = devices.count
            devices.append(Installation(settings, senders: chosen, index: index))
            inputs.notePhone(index, .all)
            deviceIndex[settings.name] = index
            for sender in chosen { registeredSenders.add(sender) }
            onDevice(index) { engine in
                engine.emit(
                    .device, .deviceAdded,
                    [.text("platform", settings.platform.rawValue), .text("sdk", settings.sdk.rawValue)], into: &out)
                for sender in engine.senders { engine.issueToken(for: sender, into: &out) }
                if !engine.connected { engine.unreachableSince = engine.now }
            }
        }
    }
}
