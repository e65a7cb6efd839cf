/// Network, service, doze and app state: each change may let held messages move.
extension DeviceEngine {
    mutating func setNetwork(_ value: Network, into out: inout [Event]) {
        guard value != network else { return }
        network = value
        emit(.device, .networkChanged, [.text("network", value.rawValue)], into: &out)
        connectivityChanged(into: &out)
    }

    mutating func setService(up: Bool, into out: inout [Event]) {
        guard up != serviceUp else { return }
        serviceUp = up
        emit(.server, .serviceChanged, [.text("service", up ? "up" : "down")], into: &out)
        for index in devices.indices { onDevice(index) { $0.connectivityChanged(into: &out) } }
    }

    mutating func setDoze(_ value: Bool, into out: inout [Event]) {
        guard value != doze else { return }
        doze = value
        emit(.device, .dozeChanged, [.flag("doze", value)], into: &out)
        deliverWaiting(into: &out)
    }

    mutating func setAppState(_ value: AppState, into out: inout [Event]) {
        guard value != appState else { return }
        appState = value
        emit(.device, .appStateChanged, [.text("state", value.rawValue)], into: &out)
        renewExpiredTokens(into: &out)
        deliverWaiting(into: &out)
    }

    /// Called whenever `connected` may have changed.
    mutating func connectivityChanged(into out: inout [Event]) {
        guard connected else {
            if unreachableSince == nil { unreachableSince = now }
            return
        }
        if let since = unreachableSince { noteTokenExpiry(unreachableSince: since, into: &out) }
        unreachableSince = nil
        renewExpiredTokens(into: &out)
        flushPendingQueue(into: &out)
        flushTopicChanges(into: &out)
        deliverWaiting(into: &out)
    }
}
