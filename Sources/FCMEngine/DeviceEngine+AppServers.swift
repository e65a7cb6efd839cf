/// The connection server's side of app-server connections: logins and their
/// limits, the window of unacknowledged upstream on each connection, turns among a
/// sender's connections, resending what a closed connection carried, draining,
/// receipts owed, acks and nacks. The shell hands in what happened on a connection
/// and writes the effects it takes with `takeEffects()`.
extension DeviceEngine {
    mutating func appServer(_ input: AppServerInput, into out: inout [Event]) {
        switch input {
        case .opened(let id):
            guard server.links.byID[id] == nil else { return }
            server.links.update(AppServerLink(id: id, openedAt: now))
        case .authenticated(let id, let sender):
            authenticate(id, sender: sender, into: &out)
        case .sessionEstablished(let id):
            guard var link = server.links.byID[id], link.sender != nil, link.establishedAt == nil else { return }
            link.establishedAt = now
            server.links.update(link)
        case .received(let id, let message):
            receive(message, on: id, into: &out)
        case .closed(let id):
            closeLink(id, into: &out)
        case .connected(let id, let sender):
            appServer(.opened(id), into: &out)
            appServer(.authenticated(id, sender: sender), into: &out)
            appServer(.sessionEstablished(id), into: &out)
        }
    }

    /// The effects produced since the shell last took them, in order.
    public mutating func takeEffects() -> [LinkEffect] {
        defer { server.links.effects.removeAll(keepingCapacity: true) }
        return server.links.effects
    }

    /// Whether effects wait to be taken.
    public var hasEffects: Bool { !server.links.effects.isEmpty }

    mutating func authenticate(_ id: ConnectionID, sender: String, into out: inout [Event]) {
        guard var link = server.links.byID[id], link.sender == nil else { return }
        guard server.links.count(of: sender) < ConnectionRules.connectionsPerSender else {
            emit(
                .server, .connectionRefused,
                [
                    .text("sender", sender), .number("connection", id),
                    .text("detail", "over \(ConnectionRules.connectionsPerSender) connections"),
                ], on: nil, into: &out)
            server.links.effects.append(
                .refuseLogin(id, detail: "too many connections for sender \(sender)"))
            forgetLink(id)
            return
        }
        link.sender = sender
        server.links.update(link)
        server.links.bySender[sender, default: []].append(id)
        server.realAppServers.insert(sender)
        emit(.server, .appServerConnected, [.text("sender", sender), .number("connection", id)], on: nil, into: &out)
    }

    mutating func receive(_ message: CCSMessage, on id: ConnectionID, into out: inout [Event]) {
        guard let link = server.links.byID[id], let sender = link.sender else { return }
        switch message {
        case .ack(let messageID):
            if messageID.hasPrefix(OwedReceipt.idPrefix) {
                server.ackReceipt(sender: sender, id: messageID, stamp, into: &out)
            } else {
                takeAck(sender: sender, id: messageID, into: &out)
            }
        case .nack(let messageID):
            // CCS has no nack from an app server: the message was delivered to it, so
            // it is settled as an ack settles it (never re-sent), and a warning says so.
            emit(
                .server, .warning,
                [
                    .text("sender", sender), .text("id", messageID),
                    .text(
                        "detail",
                        "an app server nacked \(messageID); CCS takes only acks from app servers, so it counts as an ack"
                    ),
                ], on: nil, into: &out)
            if messageID.hasPrefix(OwedReceipt.idPrefix) {
                server.ackReceipt(sender: sender, id: messageID, stamp, into: &out)
            } else {
                takeAck(sender: sender, id: messageID, into: &out)
            }
        case .downstream(let request, let messageID):
            let token = request.to ?? ""
            switch link.draining ? nil : server.connectionFault(sender: sender, stamp, into: &out) {
            case .reset?:
                server.links.effects.append(.endStream(id))
                closeLink(id, into: &out)
                return
            case .drain?: drainLink(id, into: &out)
            default: break
            }
            if server.links.byID[id]?.draining == true {
                nack(
                    id, sender: sender, messageID: messageID, token: token, error: "CONNECTION_DRAINING",
                    description: "the connection is draining; send on a new connection", into: &out)
                return
            }
            // The ack goes before whatever the message causes (a receipt).
            let position = server.links.effects.count
            arriving = WireOrigin(api: .ccs, digest: RequestDigest.of(request), connection: id)
            defer { arriving = nil }
            switch admit(request, into: &out) {
            case .success:
                server.links.effects.insert(.write(id, .ack(messageID: messageID, token: token)), at: position)
            case .failure(let error):
                nack(
                    id, sender: sender, messageID: messageID, token: token, error: error.ccsCode,
                    description: error.detail, into: &out)
            }
        case .refused(let messageID, let error, let description):
            nack(
                id, sender: sender, messageID: messageID, token: "", error: error, description: description, into: &out)
        case .unreadable(let stanzaID, let original, let description):
            emit(
                .server, .stanzaError,
                [.text("sender", sender), .number("connection", id), .text("detail", description)], on: nil, into: &out)
            server.links.effects.append(
                .write(id, .stanzaError(stanzaID: stanzaID, original: original, text: description)))
        }
    }

    mutating func nack(
        _ id: ConnectionID, sender: String, messageID: String, token: String, error: String, description: String,
        into out: inout [Event]
    ) {
        emit(
            .server, .nack,
            [.text("sender", sender), .number("connection", id), .text("id", messageID), .text("error", error)],
            on: nil, into: &out)
        server.links.effects.append(
            .write(id, .nack(messageID: messageID, token: token, error: error, description: description)))
    }

    /// An app server acknowledged upstream on a connection: the window has room again.
    mutating func takeAck(sender: String, id: String, into out: inout [Event]) {
        server.ackUpstream(sender: sender, id: id, stamp, into: &out)
        fillWindows(of: sender, into: &out)
    }

    mutating func closeLink(_ id: ConnectionID, into out: inout [Event]) {
        guard let link = server.links.byID[id] else { return }
        forgetLink(id)
        guard let sender = link.sender else { return }
        emit(
            .server, .appServerDisconnected, [.text("sender", sender), .number("connection", id)], on: nil, into: &out)
        if server.links.count(of: sender) == 0 { server.realAppServers.remove(sender) }
        // What the connection carried unacknowledged goes first on the others.
        var returned: [UpstreamMessage] = []
        for messageID in link.unacked {
            let key = MessageKey(sender: sender, id: messageID)
            guard server.links.carrier[key] == id,
                let held = server.awaitingAck[key]
            else { continue }
            server.links.carrier[key] = Self.waitingCarrier
            returned.append(held.message)
        }
        if !returned.isEmpty { server.links.waiting[sender, default: UpstreamQueue()].putBack(returned) }
        fillWindows(of: sender, into: &out)
    }

    mutating func forgetLink(_ id: ConnectionID) {
        guard let link = server.links.byID.removeValue(forKey: id) else { return }
        server.links.timers.remove(AppServerLinks.timerKey(id))
        if let sender = link.sender { server.links.bySender[sender]?.removeAll { $0 == id } }
    }

    /// The carrier of an upstream message that waits for a connection with room.
    static let waitingCarrier: ConnectionID = -1

    /// Upstream held for the app server goes out on the sender's next connection in
    /// turn that has room, or waits for one (behind whatever already waits). Its
    /// event names the phone at `p` when it is written as that phone sends it.
    mutating func offerUpstream(_ message: UpstreamMessage, about p: Int? = nil, into out: inout [Event]) {
        let key = MessageKey(sender: message.sender, id: message.id)
        if server.links.waiting[message.sender]?.isEmpty ?? true, let link = nextLinkWithRoom(for: message.sender) {
            write(message, on: link, about: p, into: &out)
        } else {
            server.links.carrier[key] = Self.waitingCarrier
            server.links.waiting[message.sender, default: UpstreamQueue()].append(message)
        }
    }

    /// A retry moves the message to the next connection in turn with room; with
    /// none, it waits.
    mutating func retryOnLinks(_ message: UpstreamMessage, into out: inout [Event]) {
        let key = MessageKey(sender: message.sender, id: message.id)
        guard let carrierID = server.links.carrier[key], carrierID != Self.waitingCarrier else {
            if server.links.carrier[key] == nil { offerUpstream(message, into: &out) }
            return
        }
        if var carrier = server.links.byID[carrierID], let index = carrier.unacked.firstIndex(of: message.id) {
            carrier.unacked.remove(at: index)
            server.links.byID[carrierID] = carrier
        }
        server.links.carrier[key] = nil
        offerUpstream(message, into: &out)
    }

    /// Sends what waits for a sender while its connections have room.
    mutating func fillWindows(of sender: String, into out: inout [Event]) {
        // Taken out while it drains, so the queue is changed in place, not copied.
        guard var queue = server.links.waiting.removeValue(forKey: sender) else { return }
        defer { if !queue.isEmpty { server.links.waiting[sender] = queue } }
        while let queued = queue.first {
            let key = MessageKey(sender: sender, id: queued.id)
            // Acknowledged or expired while it waited (or already sent): it no longer
            // goes out; what goes out is the message held under its id now.
            guard server.links.carrier[key] == Self.waitingCarrier, let held = server.awaitingAck[key] else {
                queue.removeFirst()
                continue
            }
            guard let link = nextLinkWithRoom(for: sender) else { return }
            write(held.message, on: link, into: &out)
            queue.removeFirst()
        }
    }

    /// The sender's next connection in turn able to take upstream.
    mutating func nextLinkWithRoom(for sender: String) -> ConnectionID? {
        guard let ids = server.links.bySender[sender], !ids.isEmpty else { return nil }
        let start = server.links.turn[sender, default: 0]
        for step in 0..<ids.count {
            let id = ids[(start + step) % ids.count]
            if server.links.byID[id]?.hasRoom == true {
                server.links.turn[sender] = (start + step + 1) % ids.count
                return id
            }
        }
        return nil
    }

    mutating func write(
        _ message: UpstreamMessage, on id: ConnectionID, about p: Int? = nil, into out: inout [Event]
    ) {
        guard var link = server.links.byID[id] else { return }
        emit(
            .server, .upstreamToAppServer,
            [.text("sender", message.sender), .text("id", message.id), .number("connection", id)], on: p, into: &out)
        link.unacked.append(message.id)
        server.links.byID[id] = link
        server.links.carrier[MessageKey(sender: message.sender, id: message.id)] = id
        server.links.effects.append(
            .write(
                id,
                .upstream(
                    message, token: message.token ?? phone(0, { $0.tokens })[message.sender] ?? "",
                    category: message.category ?? configuration.device.app)))
    }

    /// A receipt owed goes on the sender's first ready connection, once per connection.
    mutating func offerReceipt(_ receipt: OwedReceipt, about p: Int? = nil, into out: inout [Event]) {
        guard
            let id = server.links.bySender[receipt.sender]?.first(where: {
                server.links.byID[$0].map { $0.ready && !$0.draining } ?? false
            })
        else { return }
        writeReceipt(receipt, on: id, about: p, into: &out)
    }

    mutating func writeReceipt(
        _ receipt: OwedReceipt, on id: ConnectionID, about p: Int? = nil, into out: inout [Event]
    ) {
        guard var link = server.links.byID[id], !link.receiptsSent.contains(receipt.id) else { return }
        emit(
            .server, .receiptToAppServer,
            [.text("sender", receipt.sender), .text("id", receipt.id), .number("connection", id)], on: p, into: &out)
        link.receiptsSent.insert(receipt.id)
        server.links.byID[id] = link
        server.links.effects.append(
            .write(id, .receipt(receipt, category: receipt.category ?? configuration.device.app)))
    }

    /// Every connection of the sender drains: `CONNECTION_DRAINING`, then the
    /// stream ends after a grace period. Downstream on it is nacked meanwhile.
    mutating func drainLinks(into out: inout [Event]) {
        for id in server.links.byID.keys.sorted() { drainLink(id, into: &out) }
    }

    mutating func drainLink(_ id: ConnectionID, into out: inout [Event]) {
        guard var link = server.links.byID[id], link.sender != nil, !link.draining else { return }
        link.draining = true
        link.closesAt = now + ConnectionRules.drainGrace
        server.links.update(link)
        emit(.server, .connectionDraining, [.number("connection", id)], on: nil, into: &out)
        server.links.effects.append(.write(id, .draining))
    }

    /// Fires the connection timers due by now: drains end, sessions settle, logins
    /// run out of time.
    mutating func fireLinkTimers(into out: inout [Event]) {
        while let due = server.links.timers.earliest, due <= now, let key = server.links.timers.earliestKey {
            guard let id = Int(key.id), var link = server.links.byID[id] else {
                server.links.timers.remove(key)
                continue
            }
            if link.closesAt != nil {
                link.closesAt = nil
                server.links.update(link)
                server.links.effects.append(.endStream(id))
            } else if link.establishedAt != nil {
                link.ready = true
                server.links.update(link)
                // A connection that drains before it settles takes nothing more.
                if !link.draining { linkBecameReady(link, into: &out) }
            } else {
                let seconds = DurationText.span(server.links.loginTimeout)
                server.links.effects.append(
                    .streamError(
                        id, condition: "connection-timeout",
                        text: "no session within \(seconds) of connecting"))
                closeLink(id, into: &out)
            }
        }
    }

    /// A settled connection gets the receipts its sender is owed, then upstream.
    mutating func linkBecameReady(_ link: AppServerLink, into out: inout [Event]) {
        guard let sender = link.sender else { return }
        for receipt in server.owedReceipts where receipt.sender == sender {
            writeReceipt(receipt, on: link.id, into: &out)
        }
        fillWindows(of: sender, into: &out)
    }
}

extension OwedReceipt {
    /// Receipt ids are the original message id behind this prefix.
    public static let idPrefix = "dr2:"
}
