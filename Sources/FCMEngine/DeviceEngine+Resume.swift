/// A device resumed from its saved state: what it says, and the connections it
/// no longer has.
extension DeviceEngine {
    /// `stateResumed`: where from, the clock, and what it still holds.
    public func resumedEvent(at time: Millis, state path: String) -> Event {
        Event(
            at: time, side: .server, kind: .stateResumed,
            fields: [
                .text("state", path), .number("clock", now),
                .number("pending", held.pending), .number("awaitingAck", server.awaitingAck.count),
                .number("stored", held.stored),
            ] + (devices.count > 1 ? [.number("devices", devices.count)] : []))
    }

    /// The upstream messages queued and the downstream messages stored on every phone
    /// (a phone as started holds none).
    private var held: (pending: Int, stored: Int) {
        var held = (pending: 0, stored: 0)
        devices.forEachMade { _, phone in
            held.pending += phone.pending.count
            held.stored += phone.stored.count
        }
        return held
    }

    /// `tokenResumed` for each sender's current token.
    public func resumedTokenEvents(at time: Millis) -> [Event] {
        var events: [Event] = []
        events.reserveCapacity(devices.count)
        let named = devices.count > 1
        // Each phone read where it lies (`for phone in devices` copies every phone).
        for index in devices.indices {
            let name = devices.name(at: index)
            let tokens: [(sender: String, token: String)]
            if let start = devices.start, start.startedAt != nil, devices.isAsStarted(index) {
                tokens = start.firstTokens(at: index)
            } else {
                let (senders, current) = phone(index) { ($0.senders, $0.tokens) }
                tokens = senders.compactMap { sender in current[sender.id].map { (sender.id, $0) } }
            }
            for (sender, token) in tokens {
                let fields: [Field] =
                    named
                    ? [.text("device", name), .text("sender", sender), .text("token", token)]
                    : [.text("sender", sender), .text("token", token)]
                events.append(Event(at: time, side: .device, kind: .tokenResumed, fields: fields))
            }
        }
        return events
    }

    /// The app servers connected when the device stopped are gone: their
    /// connections close (what they carried waits for new ones).
    mutating func forgetAppServers(at time: Millis, into out: inout [Event]) {
        for id in server.links.byID.keys.sorted() {
            apply(.appServer(.closed(id)), at: time, into: &out)
        }
        for sender in server.realAppServers.sorted() {
            apply(.setAppServerPresent(sender: sender, present: false), at: time, into: &out)
        }
        // So are the real clients' MCS connections: they log in again.
        for id in server.receivers.deviceByConnection.keys.sorted() where server.hasReceivers {
            apply(.mcs(.closed(id)), at: time, into: &out)
        }
        server.mcsLoginDeadlines = [:]
        _ = takeEffects()
    }
}
