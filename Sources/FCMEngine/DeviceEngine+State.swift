/// Network, service, doze and app state: each change may let held messages move.
extension DeviceEngine {
    mutating func setNetwork(_ value: Network, on p: Int, into out: inout [Event]) {
        guard value != self[p].network else { return }
        self[p].network = value
        emit(.device, .networkChanged, [.text("network", value.rawValue)], on: p, into: &out)
        connectivityChanged(on: p, into: &out)
    }

    mutating func setService(up: Bool, into out: inout [Event]) {
        guard up != server.serviceUp else { return }
        server.serviceUp = up
        emit(.server, .serviceChanged, [.text("service", up ? "up" : "down")], on: nil, into: &out)
        for p in devices.indices { connectivityChanged(on: p, into: &out) }
    }

    mutating func setDoze(_ value: Bool, on p: Int, into out: inout [Event]) {
        guard value != self[p].doze else { return }
        self[p].doze = value
        emit(.device, .dozeChanged, [.flag("doze", value)], on: p, into: &out)
        deliverWaiting(on: p, into: &out)
    }

    mutating func setAppState(_ value: AppState, on p: Int, into out: inout [Event]) {
        guard value != self[p].appState else { return }
        self[p].appState = value
        emit(.device, .appStateChanged, [.text("state", value.rawValue)], on: p, into: &out)
        renewExpiredTokens(on: p, into: &out)
        deliverWaiting(on: p, into: &out)
    }

    /// Called whenever `connected` may have changed.
    mutating func connectivityChanged(on p: Int, into out: inout [Event]) {
        guard connected(p) else {
            if self[p].unreachableSince == nil { self[p].unreachableSince = now }
            return
        }
        if let since = self[p].unreachableSince { noteTokenExpiry(unreachableSince: since, on: p, into: &out) }
        self[p].unreachableSince = nil
        renewExpiredTokens(on: p, into: &out)
        flushPendingQueue(on: p, into: &out)
        flushTopicChanges(on: p, into: &out)
        deliverWaiting(on: p, into: &out)
    }
}
