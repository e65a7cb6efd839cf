/// Reset: the device back to how its profile starts it (the same seed, so the same
/// tokens), for a test suite between tests. App-server connections are ended (they
/// reconnect); the clock runs on. Real clients are not the profile's: they stay
/// registered, with their phones, tokens and connections, and lose what was held for
/// them.
extension DeviceEngine {
    mutating func reset(into out: inout [Event]) {
        let time = now
        let open = server.links.byID.keys.sorted()
        let revision = appServerSendersRevision
        let clients = server.receivers.byPhone.values.sorted { $0.phone < $1.phone }.map { receiver in
            (
                receiver, phone(receiver.phone) { ($0.settings, $0.senders, $0.tokens) },
                server.webPush.subscription(ofPhone: receiver.phone)
            )
        }
        let registrations = server.receivers.keptByReset
        var fresh = DeviceEngine(startConfiguration)
        fresh.configuration.appServer = configuration.appServer
        fresh.startConfiguration = startConfiguration
        fresh.server.links.loginTimeout = server.links.loginTimeout
        // Real clients' connections stay, and so do those still to log in.
        fresh.server.mcsLoginDeadlines = server.mcsLoginDeadlines
        fresh.inputs = inputs
        fresh.silent = silent
        fresh.now = time
        fresh.wallClock = wallClock
        for id in open { fresh.server.links.effects.append(.endStream(id)) }
        self = fresh
        // The senders may differ from before the reset whatever the fresh engine counted.
        appServerSendersRevision = revision &+ 1
        emit(.server, .deviceReset, [.number("connections_ended", open.count)], on: nil, into: &out)
        issueFirstTokens(into: &out)
        if registrations != Receivers() { server.receivers = registrations }
        for (receiver, (settings, senders, tokens), subscription) in clients {
            rejoin(receiver, settings: settings, senders: senders, tokens: tokens, subscription, into: &out)
        }
        // Every phone differs from the fleet as it was first started (its tokens came later).
        inputs.changedPhones.insertAll(below: devices.count)
    }
}
