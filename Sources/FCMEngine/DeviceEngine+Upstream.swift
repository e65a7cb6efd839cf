/// Upstream: the send call, the pending queue, forwarding to the app server,
/// batched success callbacks and the server's retries.
extension DeviceEngine {
    mutating func send(_ request: UpstreamRequest, on p: Int, into out: inout [Event]) {
        let id = request.messageID
        guard self[p].installed else { return refuse("send", "the app is not installed", on: p, into: &out) }
        guard self[p].appState != .stopped else {
            return refuse("send", "the app is stopped; start it before sending", on: p, into: &out)
        }
        guard !id.isEmpty else {
            return sendFailure(id: id, error: "InvalidParameters", detail: "missing message id", on: p, into: &out)
        }
        let sender: String
        switch upstreamSender(of: request.to, on: p) {
        case .success(let value): sender = value
        case .failure(let problem):
            return sendFailure(id: id, error: "InvalidParameters", detail: problem.detail, on: p, into: &out)
        }
        // The id is taken here (one lookup, not a check and a later insert), and given
        // back on every way below that refuses the message.
        guard self[p].usedIDs[sender, default: StringSet()].insert(id) else {
            return sendFailure(
                id: id, error: "InvalidParameters",
                detail: "message id \(id) was already used for sender \(sender)", on: p, into: &out)
        }
        if !finishSend(id, sender: sender, request, on: p, into: &out) {
            // Changed where it lies (the optional subscript would copy the set).
            self[p].usedIDs[sender, default: StringSet()].remove(id)
            if self[p].usedIDs[sender]?.isEmpty == true { self[p].usedIDs[sender] = nil }
        }
    }

    /// The rest of `send` once the id is the sender's: false when the message was
    /// refused (its id is not used after all).
    mutating func finishSend(
        _ id: String, sender: String, _ request: UpstreamRequest, on p: Int, into out: inout [Event]
    ) -> Bool {
        var data: [KeyValue] = []
        for item in request.data {
            switch item.value {
            case .string(let value): data.append(KeyValue(item.key, value))
            case .nonString(let kind):
                emit(
                    .device, .warning,
                    [
                        .text("id", id), .text("key", item.key),
                        .text("detail", "dropped \(kind) value of \"\(item.key)\": only strings are sent"),
                    ], on: p, into: &out)
            }
        }
        let size = self[p].upstreamSize(data)
        guard size <= ServiceLimits.maxPayloadBytes else {
            let unit = self[p].platform == .ios ? "characters" : "bytes"
            sendFailure(
                id: id, error: "MessageTooBig",
                detail: "payload is \(size) \(unit); the limit is \(ServiceLimits.maxPayloadBytes)", on: p, into: &out)
            return false
        }
        guard let ttl = upstreamTimeToLive(request, on: p, into: &out) else { return false }
        let message = UpstreamMessage(sender: sender, id: id, timeToLive: ttl, data: data, sentAt: now)
        if connected(p) {
            accept(message, on: p, into: &out)
            forward(message, on: p, into: &out)
        } else if ttl == 0 {
            sendFailure(
                id: id, error: "SERVICE_NOT_AVAILABLE",
                detail: "time to live 0 and no connection to the service", on: p, into: &out)
            return false
        } else if self[p].pending.count >= ServiceLimits.pendingQueueLimit {
            sendFailure(
                id: id, error: "TooManyMessages",
                detail: "\(ServiceLimits.pendingQueueLimit) messages are already waiting", on: p, into: &out)
            return false
        } else {
            accept(message, on: p, into: &out)
            self[p].pending.append(message)
            emit(
                .device, .upstreamQueued,
                [.text("id", id), .text("sender", sender), .number("pending", self[p].pending.count)], on: p, into: &out
            )
        }
        return true
    }

    /// The library took the message (its id is used), and iOS GCM says it will send it.
    mutating func accept(_ message: UpstreamMessage, on p: Int, into out: inout [Event]) {
        if let willSend = self[p].names.willSend {
            emit(.device, willSend, [.text("id", message.id)], on: p, into: &out)
        }
    }

    /// The time to live the library uses: Android refuses values outside the
    /// service's range; iOS clamps them to its one-day default.
    mutating func upstreamTimeToLive(_ request: UpstreamRequest, on p: Int, into out: inout [Event]) -> Int64? {
        let ttl = request.timeToLive ?? ServiceLimits.defaultUpstreamTimeToLive
        switch self[p].platform {
        case .android, .web:
            guard ServiceLimits.isValidTimeToLive(ttl) else {
                sendFailure(
                    id: request.messageID, error: "InvalidParameters",
                    detail: "ttl \(ttl) is outside 0..\(ServiceLimits.maxTimeToLive) seconds", on: p, into: &out)
                return nil
            }
            return ttl
        case .ios:
            guard (0...ServiceLimits.defaultUpstreamTimeToLive).contains(ttl) else {
                emit(
                    .device, .warning,
                    [
                        .text("id", request.messageID),
                        .text("detail", "ttl \(ttl) clamped to \(ServiceLimits.defaultUpstreamTimeToLive) seconds"),
                    ], on: p, into: &out)
                return ServiceLimits.defaultUpstreamTimeToLive
            }
            return ttl
        }
    }

    struct AddressProblem: Error {
        var detail: String
    }

    /// The sender an upstream address names, when it is one this device may use.
    func upstreamSender(of address: String, on p: Int) -> Result<String, AddressProblem> {
        guard !address.isEmpty else { return .failure(AddressProblem(detail: "missing 'to'")) }
        let sdk = self[p].settings.sdk
        guard let sender = UpstreamAddress.sender(in: address, sdk: sdk) else {
            return .failure(AddressProblem(detail: "'to' must be SENDER@\(sdk.upstreamDomain), not \(address)"))
        }
        guard self[p].tokens[sender] != nil else {
            return .failure(AddressProblem(detail: "sender \(sender) is not registered on this device"))
        }
        return .success(sender)
    }

    mutating func sendFailure(id: String, error: String, detail: String, on p: Int, into out: inout [Event]) {
        emit(
            .device, self[p].names.sendError, [.text("id", id), .text("error", error), .text("detail", detail)],
            on: p, into: &out)
    }

    /// On reconnect the queue goes out in order.
    mutating func flushPendingQueue(on p: Int, into out: inout [Event]) {
        let queue = self[p].pending
        self[p].pending.removeAll()
        for message in queue {
            if self[p].tokens[message.sender] == nil {
                sendFailure(
                    id: message.id, error: "InvalidParameters",
                    detail: "sender \(message.sender) is no longer registered", on: p, into: &out)
            } else {
                forward(message, on: p, into: &out)
            }
        }
    }

    /// The connection server takes the message: the device will hear it was sent,
    /// and the app server gets the upstream stanza.
    /// The message is taken (`consuming`): it is changed where it lies, and only a
    /// message held for an app server's ack is copied (one for the retries, one offered).
    mutating func forward(_ message: consuming UpstreamMessage, on p: Int, into out: inout [Event]) {
        message.token = self[p].tokens[message.sender]
        message.category = self[p].settings.app
        emit(
            .server, .upstreamForwarded,
            [
                .text("sender", message.sender), .text("id", message.id),
                .text("from", message.token ?? ""), .text("category", self[p].settings.app),
                Field("data", .map(message.data)), .number("ttl", message.timeToLive),
            ], on: p, into: &out)
        addToBatch(message.id, on: p, into: &out)
        if configuration.appServer == .echo && !server.realAppServers.contains(message.sender) {
            emit(
                .server, .appServerAck,
                [.text("sender", message.sender), .text("id", message.id), .text("by", "echo")], on: p, into: &out)
        } else {
            let delay = ServiceLimits.firstRetryDelay
            let held = HeldUpstream(message: copy message, attempts: 1, nextRetryAt: now + delay, retryDelay: delay)
            // An id used again after a reinstall replaces the message still held under it.
            server.releaseCarrier(held.heapKey)
            server.awaitingAck.append(held)
            server.awaitingDeadlines.set(held.heapKey, held.deadline)
            offerUpstream(message, about: p, into: &out)
        }
    }

    mutating func addToBatch(_ id: String, on p: Int, into out: inout [Event]) {
        guard self[p].installed else { return }
        if self[p].batch == nil {
            self[p].batch = SendBatch(ids: [], flushAt: now + configuration.batch.window)
        }
        self[p].batch?.ids.append(id)
        if let open = self[p].batch, open.ids.count >= configuration.batch.max || open.flushAt <= now {
            flushBatch(on: p, into: &out)
        }
    }

    mutating func flushBatch(on p: Int, into out: inout [Event]) {
        guard let open = self[p].batch else { return }
        self[p].batch = nil
        emit(
            .device, self[p].names.messageSent, [Field("ids", .list(open.ids)), .number("count", open.ids.count)],
            on: p, into: &out)
    }

    /// The connection server asks its app-server connections to drain. The request
    /// is an event for whichever shell holds real connections; the built-in echo app
    /// server drains and reconnects at once.
    mutating func drain(into out: inout [Event]) {
        emit(.server, .drainRequested, [], on: nil, into: &out)
        drainLinks(into: &out)
        if configuration.appServer == .echo {
            emit(.server, .connectionDraining, [.text("connection", "echo")], on: nil, into: &out)
            emit(.server, .appServerConnected, [.text("connection", "echo")], on: nil, into: &out)
        }
    }

}

extension DeviceEngine {
    /// Whether an upstream message id was already taken (by any sender) in this installation.
    func hasUsedMessageID(_ id: String, on p: Int) -> Bool {
        self[p].usedIDs.values.contains { $0.contains(id) }
    }
}
