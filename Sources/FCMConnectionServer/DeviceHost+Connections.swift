import FCMEngine
import FCMXMPP
import NIOCore

/// App-server connections coming and going, and what they send the device.
extension DeviceHost {
    /// Adds an authenticated connection; false past the per-sender limit.
    func register(_ connection: CCSConnection, sender: String) -> Bool {
        guard connections.count(where: { $0.sender == sender }) < Self.connectionsPerSender else {
            note(
                "connectionRefused",
                [
                    Field("sender", .string(sender)),
                    Field("detail", .string("over \(Self.connectionsPerSender) connections")),
                ])
            return false
        }
        connections.append(connection)
        apply(.setAppServerPresent(sender: sender, present: true))
        note(
            "appServerConnected",
            [Field("sender", .string(sender)), Field("connection", .int(Int64(connection.number)))])
        return true
    }

    /// The session is established: after a short wait, anything the app server has
    /// not acknowledged goes out on this connection.
    func established(_ connection: CCSConnection) {
        loop.scheduleTask(in: Self.upstreamDelay) { [self] in
            connection.acceptsUpstream = connection.isOpen && !connection.draining
            guard connection.acceptsUpstream, let sender = connection.sender else { return }
            for receipt in engine.owedReceipts where receipt.sender == sender { write(receipt, on: connection) }
            for held in engine.awaitingAck where held.message.sender == sender {
                connection.sendUpstream(
                    held.message, token: engine.tokens[sender] ?? "", category: engine.configuration.device.app)
            }
        }
    }

    /// Sends the sender's unacknowledged upstream that no open connection holds, as
    /// far as the connections' windows allow.
    func sendWaiting(sender: String) {
        let inFlight = Set(connections.filter { $0.sender == sender }.flatMap(\.unackedUpstream))
        for held in engine.awaitingAck where held.message.sender == sender && !inFlight.contains(held.message.id) {
            guard let connection = pick(sender: sender) else { return }
            connection.sendUpstream(
                held.message, token: engine.tokens[sender] ?? "", category: engine.configuration.device.app)
        }
    }

    func unregister(_ connection: CCSConnection) {
        guard let index = connections.firstIndex(where: { $0 === connection }), let sender = connection.sender else {
            return
        }
        connections.remove(at: index)
        note(
            "appServerDisconnected",
            [Field("sender", .string(sender)), Field("connection", .int(Int64(connection.number)))])
        if !connections.contains(where: { $0.sender == sender }) {
            apply(.setAppServerPresent(sender: sender, present: false))
        } else {
            sendWaiting(sender: sender)
        }
    }

    /// A downstream message or an ack from an app server; returns the reply stanza.
    func receive(_ json: String, stanzaID: String?, from connection: CCSConnection) -> String? {
        guard let sender = connection.sender else { return nil }
        switch CCSReader.read(json, sender: sender) {
        case .unreadable(let description):
            note("stanzaError", [Field("sender", .string(sender)), Field("detail", .string(description))])
            return CCSOutbound.stanzaError(id: stanzaID, original: json, text: description)
        case .refused(let id, let error, let description):
            note("nack", [Field("sender", .string(sender)), Field("id", .string(id)), Field("error", .string(error))])
            return CCSOutbound.nack(messageID: id, from: "", error: error, description: description)
        case .ack(let id):
            if id.hasPrefix("dr2:") {
                apply(.ackReceipt(sender: sender, id: id))
            } else {
                connection.unackedUpstream.remove(id)
                apply(.ackUpstream(sender: sender, id: id))
                sendWaiting(sender: sender)
            }
            return nil
        case .downstream(let request, let id):
            let token = request.to ?? ""
            if connection.draining {
                note("nack", [Field("id", .string(id)), Field("error", .string("CONNECTION_DRAINING"))])
                return CCSOutbound.nack(
                    messageID: id, from: token, error: "CONNECTION_DRAINING",
                    description: "the connection is draining; send on a new connection")
            }
            var events: [Event] = []
            engine.advance(to: now, into: &events)
            let result = engine.push(request, into: &events)
            // The ack or nack goes first; what the message caused (a receipt) follows.
            switch result {
            case .success: connection.write(CCSOutbound.ack(messageID: id, from: token), flush: false)
            case .failure(let error):
                events.append(
                    Event(
                        at: now, side: .server, name: "nack",
                        fields: [Field("id", .string(id)), Field("error", .string(error.ccsCode))]))
                connection.write(
                    CCSOutbound.nack(messageID: id, from: token, error: error.ccsCode, description: error.detail),
                    flush: false)
            }
            dispatch(events)
            return nil
        }
    }

    /// Downstream messages from the HTTP APIs, run at once on the calling thread
    /// under the engine's lock (no hop to the loop and back per request). Events are
    /// logged in engine order; only what needs the loop (stanzas to app servers, a
    /// new timer deadline) is handed to it.
    public func send(_ orders: [SendOrder]) -> SendOutcome {
        box.lock.lock()
        defer { box.lock.unlock() }
        var events: [Event] = []
        box.engine.advance(to: now, into: &events)
        let outcome = box.engine.send(orders, into: &events)
        box.journal()
        for event in events { log(event) }
        if box.engine.nextDeadline != box.armedDeadline || events.contains(where: { Self.loopEvents.contains($0.name) })
        {
            let produced = events
            loop.execute { [self] in dispatch(produced, logging: false) }
        }
        return outcome
    }

    /// Events that make the loop send something to app servers.
    static let loopEvents: Set<String> = ["upstreamForwarded", "upstreamRetry", "receipt", "drainRequested"]

    /// CONNECTION_DRAINING on every connection (the engine's `drainRequested`, from a
    /// profile step or a key); each closes after a grace period.
    public func drainAll() {
        for connection in connections where !connection.draining {
            note("connectionDraining", [Field("connection", .int(Int64(connection.number)))])
            connection.drain()
        }
    }
}
