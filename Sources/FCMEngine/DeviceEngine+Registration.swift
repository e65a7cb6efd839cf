/// Registration tokens per sender: issue, refresh, uninstall, reinstall.
extension DeviceEngine {
    mutating func issueToken(for sender: SenderConfig, on p: Int, into out: inout [Event]) {
        // A web app's getToken rejects without notification permission: no token.
        if let problem = self[p].permissionProblem() {
            let fields: [Field] = [
                .text("sender", sender.id), .text("error", "messaging/permission-blocked"), .text("detail", problem),
            ]
            return emit(.device, self[p].names.newToken, fields, on: p, into: &out)
        }
        let count = self[p].refreshes[sender.id, default: 0]
        var token = self[p].tokenFactory.token(sender: sender.id, installation: self[p].installation, refreshes: count)
        if p == 0, self[p].installation == 0, count == 0, let fixed = sender.token { token = fixed }
        self[p].tokens[sender.id] = token
        if self[p].platform == .web { self[p].tokenIssuedAt[sender.id] = now }
        tokenDevices[token] = p
        // The browser subscribes to push before the SDK registers its token.
        if self[p].platform == .web { subscribeBrowser(on: p, key: self[p].policy.vapidKeys[sender.id], into: &out) }
        emit(.device, self[p].names.newToken, [.text("sender", sender.id), .text("token", token)], on: p, into: &out)
    }

    mutating func refreshToken(sender: String?, on p: Int, into out: inout [Event]) {
        guard let targets = tokenCallTargets(sender, step: "refresh_token", on: p, into: &out) else { return }
        for target in targets {
            self[p].refreshes[target.id, default: 0] += 1
            issueToken(for: target, on: p, into: &out)
        }
    }

    /// The senders a token call (`refresh_token`, `get_token`, `delete_token`) acts on:
    /// the one named, or every one; nil, with the call refused, while the app is not
    /// installed or when no such sender is registered.
    mutating func tokenCallTargets(_ sender: String?, step: String, on p: Int, into out: inout [Event])
        -> [SenderConfig]?
    {
        guard self[p].installed else {
            refuse(step, "the app is not installed", on: p, into: &out)
            return nil
        }
        let targets = self[p].senders.filter { sender == nil || $0.id == sender }
        guard !targets.isEmpty else {
            refuse(step, "no sender \(sender ?? "") is registered", on: p, into: &out)
            return nil
        }
        return targets
    }

    mutating func addSender(_ sender: SenderConfig, on p: Int, into out: inout [Event]) {
        guard self[p].senders.count < ServiceLimits.maxSenders else {
            return refuse(
                "add_sender", "an app instance can register at most \(ServiceLimits.maxSenders) senders",
                on: p, into: &out)
        }
        guard !self[p].senders.contains(where: { $0.id == sender.id }) else {
            return refuse("add_sender", "sender \(sender.id) is already registered", on: p, into: &out)
        }
        // One sender ID is one app server with one server key, on every phone.
        if let known = registeredSenders.sender(id: sender.id),
            known.key != sender.key || known.project != sender.project
        {
            return refuse(
                "add_sender",
                "sender \(sender.id) is registered on another phone with another key or project; "
                    + "a sender ID has one server key", on: p, into: &out)
        }
        self[p].senders.append(sender)
        registeredSenders.add(sender)
        if self[p].installed { issueToken(for: sender, on: p, into: &out) }
    }

    mutating func removeSender(_ id: String, on p: Int, into out: inout [Event]) {
        guard let index = self[p].senders.firstIndex(where: { $0.id == id }) else {
            return refuse("remove_sender", "sender \(id) is not registered", on: p, into: &out)
        }
        self[p].senders.remove(at: index)
        registeredSenders.remove(id)
        self[p].tokens[id] = nil
        self[p].topics[id] = nil
        if self[p].policy.vapidKeys[id] != nil { self[p].policy.vapidKeys[id] = nil }
        self[p].pendingTopicChanges.removeAll { $0.sender == id }
        emit(.device, .senderRemoved, [.text("sender", id)], on: p, into: &out)
        endSubscriptionIfTokenless(on: p, reason: "unsubscribed", into: &out)
    }

    mutating func uninstall(on p: Int, into out: inout [Event]) {
        guard self[p].installed else { return refuse("uninstall", "the app is not installed", on: p, into: &out) }
        self[p].installed = false
        self[p].tokens.removeAll()
        self[p].batch = nil
        self[p].tray.removeAll()
        self[p].topics.removeAll()
        self[p].pendingTopicChanges.removeAll()
        emit(.device, .uninstalled, [], on: p, into: &out)
        endSubscription(on: p, reason: "uninstalled", into: &out)
        if !self[p].pending.isEmpty {
            emit(
                .device, .discarded,
                [.text("reason", "uninstalled"), Field("ids", .list(self[p].pending.map(\.id)))], on: p, into: &out)
            self[p].pending.removeAll()
        }
        if !self[p].stored.isEmpty {
            emit(
                .server, .discarded,
                [.text("reason", "uninstalled"), Field("ids", .list(self[p].stored.map(\.id)))], on: p, into: &out)
            self[p].stored.removeAll()
        }
        self[p].deletedCount = 0
        self[p].lastInactiveDropAt = nil
        if self[p].unreachableSince == nil { self[p].unreachableSince = now }
    }

    /// The same app on another platform or SDK: uninstalled, then installed anew.
    mutating func reinstall(as platform: Platform, sdk: SDK, on p: Int, into out: inout [Event]) {
        if self[p].installed { uninstall(on: p, into: &out) }
        self[p].settings.platform = platform
        self[p].settings.sdk = sdk
        self[p].settings = self[p].settings.fitted
        // A browser has no Doze: a phone that dozed is awake as a web app.
        if platform == .web { self[p].doze = false }
        self[p].names = CallbackNames(platform: platform, sdk: sdk)
        self[p].tokenFactory = TokenFactory(seed: Phone.tokenSeed(self[p].settings.seed, index: p), sdk: sdk)
        reinstall(on: p, into: &out)
    }

    mutating func reinstall(on p: Int, into out: inout [Event]) {
        guard !self[p].installed else { return refuse("reinstall", "the app is already installed", on: p, into: &out) }
        self[p].installed = true
        self[p].installation += 1
        self[p].refreshes.removeAll()
        self[p].usedIDs.removeAll()
        // A new app instance: no expired self[p].tokens or VAPID keys of the old one, and its
        // inactivity (for token expiry) counts from now.
        if !self[p].policy.expiredTokens.isEmpty || !self[p].policy.vapidKeys.isEmpty {
            self[p].policy.expiredTokens.removeAll()
            self[p].policy.vapidKeys.removeAll()
        }
        if self[p].unreachableSince != nil { self[p].unreachableSince = now }
        emit(
            .device, .installed,
            [.text("platform", self[p].platform.rawValue), .text("sdk", self[p].settings.sdk.rawValue)],
            on: p, into: &out)
        for sender in self[p].senders {
            issueToken(for: sender, on: p, into: &out)
        }
        connectivityChanged(on: p, into: &out)
    }
}
