/// Upstream: the send call, the pending queue, forwarding to the app server,
/// batched success callbacks and the server's retries.
extension DeviceEngine {
    mutating func send(_ request: UpstreamRequest, into out: inout [Event]) {
        let id = request.messageID
        guard installed else { return refuse("send", "the app is not installed", into: &out) }
        guard appState != .stopped else {
            return refuse("send", "the app is stopped; start it before sending", into: &out)
        }
        guard !id.isEmpty else {
            return sendFailure(id: id, error: "InvalidParameters", detail: "missing message id", into: &out)
        }
        let sender: String
        switch upstreamSender(of: request.to) {
        case .success(let value): sender = value
        case .failure(let problem):
            return sendFailure(id: id, error: "InvalidParameters", detail: problem.detail, into: &out)
        }
        // The id is taken here (one lookup, not a check and a later insert), and given
        // back on every way below that refuses the message.
        guard usedIDs[sender, default: []].insert(id).inserted else {
            return sendFailure(
                id: id, error: "InvalidParameters",
                detail: "message id \(id) was already used for sender \(sender)", into: &out)
        }
        if !finishSend(id, sender: sender, request, into: &out) {
            usedIDs[sender]?.remove(id)
            if usedIDs[sender]?.isEmpty == true { usedIDs[sender] = nil }
        }
    }

    /// The rest of `send` once the id is the sender's: false when the message was
    /// refused (its id is not used after all).
    mutating func finishSend(_ id: String, sender: String, _ request: UpstreamRequest, into out: inout [Event]) -> Bool
    {
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
                    ], into: &out)
            }
        }
        let size = upstreamSize(data)
        guard size <= ServiceLimits.maxPayloadBytes else {
            let unit = platform == .ios ? "characters" : "bytes"
            sendFailure(
                id: id, error: "MessageTooBig",
                detail: "payload is \(size) \(unit); the limit is \(ServiceLimits.maxPayloadBytes)", into: &out)
            return false
        }
        guard let ttl = upstreamTimeToLive(request, into: &out) else { return false }
        let message = UpstreamMessage(sender: sender, id: id, timeToLive: ttl, data: data, sentAt: now)
        if connected {
            accept(message, into: &out)
            forward(message, into: &out)
        } else if ttl == 0 {
            sendFailure(
                id: id, error: "SERVICE_NOT_AVAILABLE",
                detail: "time to live 0 and no connection to the service", into: &out)
            return false
        } else if pending.count >= ServiceLimits.pendingQueueLimit {
            sendFailure(
                id: id, error: "TooManyMessages",
                detail: "\(ServiceLimits.pendingQueueLimit) messages are already waiting", into: &out)
            return false
        } else {
            accept(message, into: &out)
            pending.append(message)
            emit(
                .device, .upstreamQueued,
                [.text("id", id), .text("sender", sender), .number("pending", pending.count)], into: &out)
        }
        return true
    }

    /// The payload size the device's SDK checks: UTF-8 bytes on Android, characters
    /// (UTF-16 code units, as `NSString` counts) on iOS.
    func upstreamSize(_ data: [KeyValue]) -> Int {
        platform == .ios ? ServiceLimits.iosUpstreamSize(data) : ServiceLimits.payloadSize(data)
    }

    /// The library took the message (its id is used), and iOS GCM says it will send it.
    mutating func accept(_ message: UpstreamMessage, into out: inout [Event]) {
        if let willSend = names.willSend {
            emit(.device, willSend, [.text("id", message.id)], into: &out)
        }
    }

    /// The time to live the library uses: Android refuses values outside the
    /// service's range; iOS clamps them to its one-day default.
    mutating func upstreamTimeToLive(_ request: UpstreamRequest, into out: inout [Event]) -> Int64? {
        let ttl = request.timeToLive ?? ServiceLimits.defaultUpstreamTimeToLive
        switch platform {
        case .android, .web:
            guard ServiceLimits.isValidTimeToLive(ttl) else {
                sendFailure(
                    id: request.messageID, error: "InvalidParameters",
                    detail: "ttl \(ttl) is outside 0..\(ServiceLimits.maxTimeToLive) seconds", into: &out)
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
                    ], into: &out)
                return ServiceLimits.defaultUpstreamTimeToLive
            }
            return ttl
        }
    }

    struct AddressProblem: Error {
        var detail: String
    }

    /// The sender an upstream address names, when it is one this device may use.
    static let gcmDomain = Substring(SDK.gcm.upstreamDomain)
    static let fcmDomain = Substring(SDK.fcm.upstreamDomain)

    func upstreamSender(of address: String) -> Result<String, AddressProblem> {
        guard !address.isEmpty else { return .failure(AddressProblem(detail: "missing 'to'")) }
        let sdk = device.sdk
        guard let at = address.utf8.firstIndex(of: UInt8(ascii: "@")) else {
            return .failure(AddressProblem(detail: "'to' must be SENDER@\(sdk.upstreamDomain), not \(address)"))
        }
        // Compared as a Substring with the domains: the standard library's fast path
        // for native UTF-8 (a generic byte-by-byte comparison cost more than the rest
        // of a send).
        let domain = address[address.utf8.index(after: at)...]
        let allowed =
            domain == Self.gcmDomain || (sdk == .fcm && domain == Self.fcmDomain)
        guard allowed else {
            return .failure(AddressProblem(detail: "'to' must be SENDER@\(sdk.upstreamDomain), not \(address)"))
        }
        let sender = String(address[..<at])
        guard tokens[sender] != nil else {
            return .failure(AddressProblem(detail: "sender \(sender) is not registered on this device"))
        }
        return .success(sender)
    }

    mutating func sendFailure(id: String, error: String, detail: String, into out: inout [Event]) {
        emit(
            .device, names.sendError, [.text("id", id), .text("error", error), .text("detail", detail)],
            into: &out)
    }

    /// On reconnect the queue goes out in order.
    mutating func flushPendingQueue(into out: inout [Event]) {
        let queue = pending
        pending.removeAll()
        for message in queue {
            if tokens[message.sender] == nil {
                sendFailure(
                    id: message.id, error: "InvalidParameters",
                    detail: "sender \(message.sender) is no longer registered", into: &out)
            } else {
                forward(message, into: &out)
            }
        }
    }

    /// The connection server takes the message: the device will hear it was sent,
    /// and the app server gets the upstream stanza.
    mutating func forward(_ message: UpstreamMessage, into out: inout [Event]) {
        var message = message
        message.token = tokens[message.sender]
        message.category = device.app
        emit(
            .server, .upstreamForwarded,
            [
                .text("sender", message.sender), .text("id", message.id),
                .text("from", message.token ?? ""), .text("category", device.app),
                Field("data", .map(message.data)), .number("ttl", message.timeToLive),
            ], into: &out)
        addToBatch(message.id, into: &out)
        if configuration.appServer == .echo && !realAppServers.contains(message.sender) {
            emit(
                .server, .appServerAck,
                [.text("sender", message.sender), .text("id", message.id), .text("by", "echo")], into: &out)
        } else {
            let delay = ServiceLimits.firstRetryDelay
            let held = HeldUpstream(message: message, attempts: 1, nextRetryAt: now + delay, retryDelay: delay)
            // An id used again after a reinstall replaces the message still held under it.
            releaseCarrier(held.heapKey)
            awaitingAck.append(held)
            awaitingDeadlines.set(held.heapKey, held.deadline)
            offerUpstream(message, into: &out)
        }
    }

    mutating func addToBatch(_ id: String, into out: inout [Event]) {
        guard installed else { return }
        if batch == nil {
            batch = SendBatch(ids: [], flushAt: now + configuration.batch.window)
        }
        batch?.ids.append(id)
        if let open = batch, open.ids.count >= configuration.batch.max || open.flushAt <= now {
            flushBatch(into: &out)
        }
    }

    mutating func flushBatch(into out: inout [Event]) {
        guard let open = batch else { return }
        batch = nil
        emit(
            .device, names.messageSent, [Field("ids", .list(open.ids)), .number("count", open.ids.count)],
            into: &out)
    }

    mutating func ackUpstream(sender: String, id: String, into out: inout [Event]) {
        let key = MessageKey(sender: sender, id: id)
        guard awaitingAck.remove(key) != nil else {
            return emit(
                .server, .ackIgnored,
                [
                    .text("sender", sender), .text("id", id),
                    .text("detail", "no upstream message \(id) of sender \(sender) awaits an ack"),
                ], into: &out)
        }
        awaitingDeadlines.remove(key)
        releaseCarrier(key)
        emit(
            .server, .appServerAck, [.text("sender", sender), .text("id", id), .text("by", "app server")], into: &out)
    }

    /// The connection server asks its app-server connections to drain. The request
    /// is an event for whichever shell holds real connections; the built-in echo app
    /// server drains and reconnects at once.
    mutating func drain(into out: inout [Event]) {
        emit(.server, .drainRequested, [], into: &out)
        drainLinks(into: &out)
        if configuration.appServer == .echo {
            emit(.server, .connectionDraining, [.text("connection", "echo")], into: &out)
            emit(.server, .appServerConnected, [.text("connection", "echo")], into: &out)
        }
    }

}

extension DeviceEngine {
    /// Whether an upstream message id was already taken (by any sender) in this installation.
    func hasUsedMessageID(_ id: String) -> Bool {
        usedIDs.values.contains { $0.contains(id) }
    }
}
