/// A device resumed from its saved state: what it says, and the connections it
/// no longer has.
extension DeviceEngine {
    /// `stateResumed`: where from, the clock, and what it still holds.
    public func resumedEvent(at time: Millis, state path: String) -> Event {
        Event(
            at: time, side: .server, kind: .stateResumed,
            fields: [
                .text("state", path), .number("clock", now),
                .number("pending", devices.reduce(0) { $0 + $1.pending.count }),
                .number("awaitingAck", server.awaitingAck.count),
                .number("stored", devices.reduce(0) { $0 + $1.stored.count }),
            ] + (devices.count > 1 ? [.number("devices", devices.count)] : []))
    }

    /// `tokenResumed` for each sender's current token.
    public func resumedTokenEvents(at time: Millis) -> [Event] {
        var events: [Event] = []
        events.reserveCapacity(devices.count)
        let named = devices.count > 1
        for phone in devices {
            for sender in phone.senders {
                guard let token = phone.tokens[sender.id] else { continue }
                let fields: [Field] =
                    named
                    ? [.text("device", phone.name), .text("sender", sender.id), .text("token", token)]
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
