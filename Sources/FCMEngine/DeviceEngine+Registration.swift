/// Registration tokens per sender: issue, refresh, uninstall, reinstall.
extension DeviceEngine {
    mutating func issueToken(for sender: SenderConfig, into out: inout [Event]) {
        // A web app's getToken rejects without notification permission: no token.
        if let problem = permissionProblem {
            let fields: [Field] = [
                .text("sender", sender.id), .text("error", "messaging/permission-blocked"), .text("detail", problem),
            ]
            return emit(.device, names.newToken, fields, into: &out)
        }
        let count = refreshes[sender.id, default: 0]
        var token = tokenFactory.token(sender: sender.id, installation: installation, refreshes: count)
        if focus == 0, installation == 0, count == 0, let fixed = sender.token { token = fixed }
        tokens[sender.id] = token
        if platform == .web { tokenIssuedAt[sender.id] = now }
        tokenDevices[token] = focus
        emit(.device, names.newToken, [.text("sender", sender.id), .text("token", token)], into: &out)
    }

    mutating func refreshToken(sender: String?, into out: inout [Event]) {
        guard let targets = tokenCallTargets(sender, step: "refresh_token", into: &out) else { return }
        for target in targets {
            refreshes[target.id, default: 0] += 1
            issueToken(for: target, into: &out)
        }
    }

    /// The senders a token call (`refresh_token`, `get_token`, `delete_token`) acts on:
    /// the one named, or every one; nil, with the call refused, while the app is not
    /// installed or when no such sender is registered.
    mutating func tokenCallTargets(_ sender: String?, step: String, into out: inout [Event]) -> [SenderConfig]? {
        guard installed else {
            refuse(step, "the app is not installed", into: &out)
            return nil
        }
        let targets = senders.filter { sender == nil || $0.id == sender }
        guard !targets.isEmpty else {
            refuse(step, "no sender \(sender ?? "") is registered", into: &out)
            return nil
        }
        return targets
    }

    mutating func addSender(_ sender: SenderConfig, into out: inout [Event]) {
        guard senders.count < ServiceLimits.maxSenders else {
            return refuse(
                "add_sender", "an app instance can register at most \(ServiceLimits.maxSenders) senders",
                into: &out)
        }
        guard !senders.contains(where: { $0.id == sender.id }) else {
            return refuse("add_sender", "sender \(sender.id) is already registered", into: &out)
        }
        // One sender ID is one app server with one server key, on every phone.
        if let known = registeredSenders.sender(id: sender.id),
            known.key != sender.key || known.project != sender.project
        {
            return refuse(
                "add_sender",
                "sender \(sender.id) is registered on another phone with another key or project; "
                    + "a sender ID has one server key", into: &out)
        }
        senders.append(sender)
        registeredSenders.add(sender)
        if installed { issueToken(for: sender, into: &out) }
    }

    mutating func removeSender(_ id: String, into out: inout [Event]) {
        guard let index = senders.firstIndex(where: { $0.id == id }) else {
            return refuse("remove_sender", "sender \(id) is not registered", into: &out)
        }
        senders.remove(at: index)
        registeredSenders.remove(id)
        tokens[id] = nil
        topics[id] = nil
        if policy.vapidKeys[id] != nil { policy.vapidKeys[id] = nil }
        pendingTopicChanges.removeAll { $0.sender == id }
        emit(.device, .senderRemoved, [.text("sender", id)], into: &out)
    }

    mutating func uninstall(into out: inout [Event]) {
        guard installed else { return refuse("uninstall", "the app is not installed", into: &out) }
        installed = false
        tokens.removeAll()
        batch = nil
        tray.removeAll()
        topics.removeAll()
        pendingTopicChanges.removeAll()
        emit(.device, .uninstalled, [], into: &out)
        if !pending.isEmpty {
            emit(
                .device, .discarded,
                [.text("reason", "uninstalled"), Field("ids", .list(pending.map(\.id)))], into: &out)
            pending.removeAll()
        }
        if !stored.isEmpty {
            emit(
                .server, .discarded,
                [.text("reason", "uninstalled"), Field("ids", .list(stored.map(\.id)))], into: &out)
            stored.removeAll()
        }
        deletedCount = 0
        lastInactiveDropAt = nil
        if unreachableSince == nil { unreachableSince = now }
    }

    /// The same app on another platform or SDK: uninstalled, then installed anew.
    mutating func reinstall(as platform: Platform, sdk: SDK, into out: inout [Event]) {
        if installed { uninstall(into: &out) }
        device.platform = platform
        device.sdk = sdk
        device = device.fitted
        // A browser has no Doze: a phone that dozed is awake as a web app.
        if platform == .web { doze = false }
        names = CallbackNames(platform: platform, sdk: sdk)
        tokenFactory = TokenFactory(seed: Installation.tokenSeed(device.seed, index: focus), sdk: sdk)
        reinstall(into: &out)
    }

    mutating func reinstall(into out: inout [Event]) {
        guard !installed else { return refuse("reinstall", "the app is already installed", into: &out) }
        installed = true
        installation += 1
        refreshes.removeAll()
        usedIDs.removeAll()
        // A new app instance: no expired tokens or VAPID keys of the old one, and its
        // inactivity (for token expiry) counts from now.
        if !policy.expiredTokens.isEmpty || !policy.vapidKeys.isEmpty {
            policy.expiredTokens.removeAll()
            policy.vapidKeys.removeAll()
        }
        if unreachableSince != nil { unreachableSince = now }
        emit(
            .device, .installed,
            [.text("platform", platform.rawValue), .text("sdk", device.sdk.rawValue)],
            into: &out)
        for sender in senders {
            issueToken(for: sender, into: &out)
        }
        connectivityChanged(into: &out)
    }
}
