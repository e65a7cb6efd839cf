/// A device resumed from its saved state: what it says, and the connections it
/// no longer has.
extension DeviceEngine {
    /// `stateResumed`: where from, the clock, and what it still holds.
    public func resumedEvent(at time: Millis, state path: String) -> Event {
        Event(
            at: time, side: .server, kind: .stateResumed,
            fields: [
                .text("state", path), .number("clock", now),
                .number("pending", devices.indices.reduce(0) { $0 + phone($1) { $0.pending.count } }),
                .number("awaitingAck", server.awaitingAck.count),
                .number("stored", devices.indices.reduce(0) { $0 + phone($1) { $0.stored.count } }),
            ] + (devices.count > 1 ? [.number("devices", devices.count)] : []))
    }

    /// `tokenResumed` for each sender's current token.
    public func resumedTokenEvents(at time: Millis) -> [Event] {
        var events: [Event] = []
        events.reserveCapacity(devices.count)
        let named = devices.count > 1
        // Each phone read where it lies (`for phone in devices` copies every phone).
        for index in devices.indices {
            let (name, senders, tokens) = phone(index) { ($0.name, $0.senders, $0.tokens) }
            for sender in senders {
                guard let token = tokens[sender.id] else { continue }
                let fields: [Field] =
                    named
                    ? [.text("device", name), .text("sender", sender.id), .text("token", token)]
                    : [.text("sender", sender.id), .text("token", token)]
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
