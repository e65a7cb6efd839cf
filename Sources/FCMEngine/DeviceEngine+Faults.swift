/// Faults made on purpose, the server's own rules: added and cleared by a test suite
/// or a profile, used up by the requests and messages in their scope, each use an
/// event. They take the time and the event stamp from the engine (`EventStamp`).
extension Server {
    /// Adds a fault; why it cannot be, if it cannot (the engine refuses it).
    mutating func addFault(_ fault: Fault, _ stamp: EventStamp, into out: inout [Event]) -> String? {
        if let problem = fault.problem { return problem }
        var fault = fault
        nextFaultID += 1
        fault.id = nextFaultID
        if let duration = fault.duration { fault.until = stamp.now + duration }
        if fault.count == nil && fault.until == nil && !fault.isRule { fault.count = 1 }
        faults.append(fault)
        var fields: [Field] = [.number("fault", fault.id), .text("does", fault.summary)]
        fields += Self.scopeFields(fault)
        if let count = fault.count { fields.append(.number("count", count)) }
        if let until = fault.until { fields.append(.number("until", until)) }
        stamp.emit(.server, .faultAdded, fields, into: &out)
        return nil
    }

    mutating func clearFaults(_ stamp: EventStamp, into out: inout [Event]) {
        let count = faults.count
        faults.removeAll()
        stamp.emit(.server, .faultsCleared, [.number("count", count)], into: &out)
    }

    static func scopeFields(_ fault: Fault) -> [Field] {
        [("path", fault.path), ("token", fault.token), ("sender", fault.sender), ("topic", fault.topic)]
            .compactMap { name, value in value.map { Field.text(name, $0) } }
    }

    /// What the faults in scope do to an HTTP request on `path`: a delay, then a
    /// status, each use counted and logged. Nil when no fault is in scope for the
    /// path (nothing was used, so the call need not be kept).
    mutating func httpFaults(path: String, seed: UInt64, _ stamp: EventStamp, into out: inout [Event])
        -> [FaultEffect]?
    {
        dropEndedFaults(at: stamp.now)
        // An error fault with a path (register3's) is the engine's to use, not the request's.
        guard faults.contains(where: { $0.path.map(path.hasPrefix) == true && !$0.failsMessages }) else { return nil }
        var effects: [FaultEffect] = []
        for index in faults.indices where faults[index].path.map(path.hasPrefix) == true && !faults[index].failsMessages
        {
            if case .latency(let delay, let jitter) = faults[index].kind {
                var rng = SeededGenerator(
                    seed: seed ^ UInt64(stamp.now) ^ UInt64(faults[index].id))
                let held = delay + (jitter > 0 ? Millis(rng.next() % UInt64(jitter + 1)) : 0)
                effects.insert(.delay(held), at: 0)
                use(index, on: path, delay: held, stamp, into: &out)
                continue
            } else if let answer = faults[index].answer, !effects.contains(where: \.answers) {
                // One request gets one answer; the next fault waits for the next request.
                effects.append(answer)
            } else {
                continue
            }
            use(index, on: path, stamp, into: &out)
        }
        faults.removeAll { $0.count == 0 }
        return effects
    }

    /// The error a fault makes a downstream message fail with, if one is in scope:
    /// an error fault, or a rate rule the message would go past. A message within
    /// every rate counts toward each of them.
    mutating func injectedError(for request: DownstreamRequest, _ stamp: EventStamp, into out: inout [Event])
        -> DownstreamError?
    {
        dropEndedFaults(at: stamp.now)
        guard !faults.isEmpty else { return nil }
        let inScope = { (fault: Fault) in fault.covers(token: request.to, sender: request.sender, topic: request.topic)
        }
        if let index = faults.firstIndex(where: { fault in
            guard case .error(let name) = fault.kind, Fault.errors[name] != nil else { return false }
            return inScope(fault)
        }),
            case .error(let name) = faults[index].kind
        {
            use(index, on: nil, stamp, into: &out)
            faults.removeAll { $0.count == 0 }
            return .injected(name)
        }
        let rules = faults.indices.filter { faults[$0].isRule && inScope(faults[$0]) }
        for index in rules {
            guard case .rate(let limit, let per) = faults[index].kind else { continue }
            if faults[index].window.isFull(limit: limit, per: per, at: stamp.now) {
                use(index, on: nil, stamp, into: &out)
                return .injected(faults[index].rateError)
            }
        }
        for index in rules {
            guard case .rate(_, let per) = faults[index].kind else { continue }
            faults[index].window.count(per: per, at: stamp.now)
        }
        return nil
    }

    /// The error a fault makes one token of a topic call fail with, if one is in
    /// scope (its token, its sender, its topic).
    mutating func injectedTopicError(
        token: String, order: TopicOrder, topic: String, naming phone: String?, _ stamp: EventStamp,
        into out: inout [Event]
    ) -> TopicError? {
        dropEndedFaults(at: stamp.now)
        guard
            let index = faults.firstIndex(where: { fault in
                guard case .error(let name) = fault.kind, Fault.topicCallError(name) != nil else { return false }
                return fault.covers(token: token, sender: order.sender, topic: topic)
            }), case .error(let name) = faults[index].kind
        else { return nil }
        use(index, on: nil, naming: phone, stamp, into: &out)
        faults.removeAll { $0.count == 0 }
        return Fault.topicCallError(name)
    }

    /// What a fault does to a downstream message on one of `sender`'s CCS
    /// connections before it is read: end the connection, or drain it.
    mutating func connectionFault(sender: String, _ stamp: EventStamp, into out: inout [Event]) -> Fault.Kind? {
        dropEndedFaults(at: stamp.now)
        guard
            let index = faults.firstIndex(where: { fault in
                guard fault.sender == sender, fault.path == nil else { return false }
                switch fault.kind {
                case .reset, .drain: return true
                default: return false
                }
            })
        else { return nil }
        let kind = faults[index].kind
        use(index, on: nil, stamp, into: &out)
        faults.removeAll { $0.count == 0 }
        return kind
    }

    mutating func use(
        _ index: Int, on path: String?, delay: Millis? = nil, naming phone: String? = nil, _ stamp: EventStamp,
        into out: inout [Event]
    ) {
        if let count = faults[index].count { faults[index].count = count - 1 }
        var fields: [Field] = [.number("fault", faults[index].id), .text("does", faults[index].summary)]
        if let path { fields.append(.text("path", path)) }
        if let count = faults[index].count { fields.append(.number("left", count)) }
        // How long this request is held (the report card gives requests held so long
        // their time in flight).
        if let delay { fields.append(.number("delay", delay)) }
        stamp.emit(.server, .faultInjected, fields, naming: phone, into: &out)
    }

    /// The fault of error `name` in scope of a register3 call or of a message to
    /// `token` of `sender`, used once (with its `faultInjected`): whether there was one.
    mutating func useErrorFault(
        _ name: String, path: String? = nil, token: String? = nil, sender: String? = nil, naming phone: String? = nil,
        _ stamp: EventStamp, into out: inout [Event]
    ) -> Bool {
        dropEndedFaults(at: stamp.now)
        guard
            let index = faults.firstIndex(where: { fault in
                guard case .error(name) = fault.kind else { return false }
                if let scope = fault.path { return path.map { $0.hasPrefix(scope) } == true }
                return (fault.token == nil || fault.token == token) && (fault.sender == nil || fault.sender == sender)
            })
        else { return false }
        use(index, on: path, naming: phone, stamp, into: &out)
        faults.removeAll { $0.count == 0 }
        return true
    }

    mutating func dropEndedFaults(at now: Millis) {
        guard !faults.isEmpty else { return }
        faults.removeAll { fault in fault.until.map { $0 <= now } ?? false }
    }
}
