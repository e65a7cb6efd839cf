/// Faults made on purpose: added and cleared by a test suite or a profile, used up
/// by the requests and messages in their scope, each use an event.
extension DeviceEngine {
    mutating func addFault(_ fault: Fault, into out: inout [Event]) {
        if let problem = fault.problem { return refuse("fault", problem, side: .server, on: nil, into: &out) }
        var fault = fault
        server.nextFaultID += 1
        fault.id = server.nextFaultID
        if let duration = fault.duration { fault.until = now + duration }
        if fault.count == nil && fault.until == nil && !fault.isRule { fault.count = 1 }
        server.faults.append(fault)
        var fields: [Field] = [.number("fault", fault.id), .text("does", fault.summary)]
        fields += Self.scopeFields(fault)
        if let count = fault.count { fields.append(.number("count", count)) }
        if let until = fault.until { fields.append(.number("until", until)) }
        emit(.server, .faultAdded, fields, on: nil, into: &out)
    }

    mutating func clearFaults(into out: inout [Event]) {
        let count = server.faults.count
        server.faults.removeAll()
        emit(.server, .faultsCleared, [.number("count", count)], on: nil, into: &out)
    }

    static func scopeFields(_ fault: Fault) -> [Field] {
        [("path", fault.path), ("token", fault.token), ("sender", fault.sender), ("topic", fault.topic)]
            .compactMap { name, value in value.map { Field.text(name, $0) } }
    }

    /// What the faults in scope do to an HTTP request on `path`: a delay, then a
    /// status, each use counted and logged. Nil when no fault is in scope for the
    /// path (nothing was used, so the call need not be kept).
    mutating func httpFaults(path: String, into out: inout [Event]) -> [FaultEffect]? {
        dropEndedFaults()
        guard server.faults.contains(where: { $0.path.map(path.hasPrefix) == true }) else { return nil }
        var effects: [FaultEffect] = []
        for index in server.faults.indices where server.faults[index].path.map(path.hasPrefix) == true {
            if case .latency(let delay, let jitter) = server.faults[index].kind {
                var rng = SeededGenerator(
                    seed: configuration.device.seed ^ UInt64(now) ^ UInt64(server.faults[index].id))
                let held = delay + (jitter > 0 ? Millis(rng.next() % UInt64(jitter + 1)) : 0)
                effects.insert(.delay(held), at: 0)
                use(index, on: path, delay: held, into: &out)
                continue
            } else if let answer = server.faults[index].answer, !effects.contains(where: \.answers) {
                // One request gets one answer; the next fault waits for the next request.
                effects.append(answer)
            } else {
                continue
            }
            use(index, on: path, into: &out)
        }
        server.faults.removeAll { $0.count == 0 }
        return effects
    }

    /// The error a fault makes a downstream message fail with, if one is in scope:
    /// an error fault, or a rate rule the message would go past. A message within
    /// every rate counts toward each of them.
    mutating func injectedError(for request: DownstreamRequest, into out: inout [Event]) -> DownstreamError? {
        dropEndedFaults()
        guard !server.faults.isEmpty else { return nil }
        let inScope = { (fault: Fault) in fault.covers(token: request.to, sender: request.sender, topic: request.topic)
        }
        if let index = server.faults.firstIndex(where: { fault in
            guard case .error(let name) = fault.kind, Fault.errors[name] != nil else { return false }
            return inScope(fault)
        }),
            case .error(let name) = server.faults[index].kind
        {
            use(index, on: nil, into: &out)
            server.faults.removeAll { $0.count == 0 }
            return .injected(name)
        }
        let rules = server.faults.indices.filter { server.faults[$0].isRule && inScope(server.faults[$0]) }
        for index in rules {
            guard case .rate(let limit, let per) = server.faults[index].kind else { continue }
            if server.faults[index].window.isFull(limit: limit, per: per, at: now) {
                use(index, on: nil, into: &out)
                return .injected(server.faults[index].rateError)
            }
        }
        for index in rules {
            guard case .rate(_, let per) = server.faults[index].kind else { continue }
            server.faults[index].window.count(per: per, at: now)
        }
        return nil
    }

    /// The error a fault makes one token of a topic call fail with, if one is in
    /// scope (its token, its sender, its topic).
    mutating func injectedTopicError(
        token: String, order: TopicOrder, topic: String, about p: Int?, into out: inout [Event]
    ) -> TopicError? {
        dropEndedFaults()
        guard
            let index = server.faults.firstIndex(where: { fault in
                guard case .error(let name) = fault.kind, Fault.topicCallError(name) != nil else { return false }
                return fault.covers(token: token, sender: order.sender, topic: topic)
            }), case .error(let name) = server.faults[index].kind
        else { return nil }
        use(index, on: nil, about: p, into: &out)
        server.faults.removeAll { $0.count == 0 }
        return Fault.topicCallError(name)
    }

    /// What a fault does to a downstream message on one of `sender`'s CCS
    /// connections before it is read: end the connection, or drain it.
    mutating func connectionFault(sender: String, into out: inout [Event]) -> Fault.Kind? {
        dropEndedFaults()
        guard
            let index = server.faults.firstIndex(where: { fault in
                guard fault.sender == sender, fault.path == nil else { return false }
                switch fault.kind {
                case .reset, .drain: return true
                default: return false
                }
            })
        else { return nil }
        let kind = server.faults[index].kind
        use(index, on: nil, into: &out)
        server.faults.removeAll { $0.count == 0 }
        return kind
    }

    mutating func use(
        _ index: Int, on path: String?, delay: Millis? = nil, about p: Int? = nil, into out: inout [Event]
    ) {
        if let count = server.faults[index].count { server.faults[index].count = count - 1 }
        var fields: [Field] = [.number("fault", server.faults[index].id), .text("does", server.faults[index].summary)]
        if let path { fields.append(.text("path", path)) }
        if let count = server.faults[index].count { fields.append(.number("left", count)) }
        // How long this request is held (the report card gives requests held so long
        // their time in flight).
        if let delay { fields.append(.number("delay", delay)) }
        emit(.server, .faultInjected, fields, on: p, into: &out)
    }

    mutating func dropEndedFaults() {
        guard !server.faults.isEmpty else { return }
        server.faults.removeAll { fault in fault.until.map { $0 <= now } ?? false }
    }
}
