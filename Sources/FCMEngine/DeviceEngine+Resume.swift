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
                .number("awaitingAck", awaitingAck.count),
                .number("stored", devices.reduce(0) { $0 + $1.stored.count }),
            ] + (devices.count > 1 ? [.number("devices", devices.count)] : []))
    }

    /// `tokenResumed` for each sender's current token.
    public func resumedTokenEvents(at time: Millis) -> [Event] {
        devices.flatMap { phone in
            phone.senders.compactMap { sender in
                phone.tokens[sender.id].map {
                    let named: [Field] = devices.count > 1 ? [.text("device", phone.name)] : []
                    return Event(
                        at: time, side: .device, kind: .tokenResumed,
                        fields: named + [.text("sender", sender.id), .text("token", $0)])
                }
            }
        }
    }

    /// The app servers connected when the device stopped are gone: their
    /// connections close (what they carried waits for new ones).
    public mutating func forgetAppServers(at time: Millis, into out: inout [Event]) {
        for id in links.byID.keys.sorted() {
            apply(.appServer(.closed(id)), at: time, into: &out)
        }
        for sender in realAppServers.sorted() {
            apply(.setAppServerPresent(sender: sender, present: false), at: time, into: &out)
        }
        _ = takeEffects()
    }
}
