/// What a saved device holds, by explicit keys: the state file depends on these
/// names, not on how the engine's fields happen to be spelled. A key added later is
/// read if present, so a file saved before it still opens (see FCMStore's migrations).
extension DeviceEngine {
    enum CodingKeys: String, CodingKey {
        case configuration, names, tokenFactory, now, appState, network, doze, serviceUp, installed
        case senders, tokens, tokenOwners, issuedTokens, installation, refreshes
        case pending, awaitingAck, awaitingDeadlines, batch, usedIDs, realAppServers
        case stored, tray, inbox, owedReceipts, deletedCount, unreachableSince, lastInactiveDropAt, messageCounter
        /// Since state format 3: the app-server connections.
        case links
        /// Since state format 4: topic subscriptions, the app's changes not made yet,
        /// device groups and faults.
        case topics, pendingTopicChanges, groups, faults, nextFaultID, startConfiguration
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        configuration = try c.decode(EngineConfiguration.self, forKey: .configuration)
        startConfiguration =
            try c.decodeIfPresent(EngineConfiguration.self, forKey: .startConfiguration) ?? configuration
        names = try c.decode(CallbackNames.self, forKey: .names)
        tokenFactory = try c.decode(TokenFactory.self, forKey: .tokenFactory)
        now = try c.decode(Millis.self, forKey: .now)
        appState = try c.decode(AppState.self, forKey: .appState)
        network = try c.decode(Network.self, forKey: .network)
        doze = try c.decode(Bool.self, forKey: .doze)
        serviceUp = try c.decode(Bool.self, forKey: .serviceUp)
        installed = try c.decode(Bool.self, forKey: .installed)
        senders = try c.decode([SenderConfig].self, forKey: .senders)
        tokens = try c.decode([String: String].self, forKey: .tokens)
        tokenOwners = try c.decode([String: String].self, forKey: .tokenOwners)
        issuedTokens = try c.decode([String: [String]].self, forKey: .issuedTokens)
        installation = try c.decode(Int.self, forKey: .installation)
        refreshes = try c.decode([String: Int].self, forKey: .refreshes)
        pending = try c.decode([UpstreamMessage].self, forKey: .pending)
        awaitingAck = try c.decode(HeldUpstreams.self, forKey: .awaitingAck)
        awaitingDeadlines = try c.decode(DeadlineHeap.self, forKey: .awaitingDeadlines)
        batch = try c.decodeIfPresent(SendBatch.self, forKey: .batch)
        usedIDs = try c.decode([String: Set<String>].self, forKey: .usedIDs)
        realAppServers = try c.decode(Set<String>.self, forKey: .realAppServers)
        stored = try c.decode([StoredMessage].self, forKey: .stored)
        tray = try c.decode([TrayNotification].self, forKey: .tray)
        inbox = try c.decode([DeliveredMessage].self, forKey: .inbox)
        owedReceipts = try c.decode([OwedReceipt].self, forKey: .owedReceipts)
        deletedCount = try c.decode(Int.self, forKey: .deletedCount)
        unreachableSince = try c.decodeIfPresent(Millis.self, forKey: .unreachableSince)
        lastInactiveDropAt = try c.decodeIfPresent(Millis.self, forKey: .lastInactiveDropAt)
        messageCounter = try c.decode(UInt64.self, forKey: .messageCounter)
        if let saved = try c.decodeIfPresent(AppServerLinks.self, forKey: .links) {
            links = saved
        } else {
            // Saved before connections were part of the device (format 2): everything
            // held waits for the next connection, as the server then sent it.
            for held in awaitingAck { links.queue(held.message) }
        }
        topics = try c.decodeIfPresent([String: Set<String>].self, forKey: .topics) ?? [:]
        pendingTopicChanges = try c.decodeIfPresent([TopicChange].self, forKey: .pendingTopicChanges) ?? []
        groups = try c.decodeIfPresent([DeviceGroup].self, forKey: .groups) ?? []
        faults = try c.decodeIfPresent([Fault].self, forKey: .faults) ?? []
        nextFaultID = try c.decodeIfPresent(Int.self, forKey: .nextFaultID) ?? 0
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(configuration, forKey: .configuration)
        try c.encode(names, forKey: .names)
        try c.encode(tokenFactory, forKey: .tokenFactory)
        try c.encode(now, forKey: .now)
        try c.encode(appState, forKey: .appState)
        try c.encode(network, forKey: .network)
        try c.encode(doze, forKey: .doze)
        try c.encode(serviceUp, forKey: .serviceUp)
        try c.encode(installed, forKey: .installed)
        try c.encode(senders, forKey: .senders)
        try c.encode(tokens, forKey: .tokens)
        try c.encode(tokenOwners, forKey: .tokenOwners)
        try c.encode(issuedTokens, forKey: .issuedTokens)
        try c.encode(installation, forKey: .installation)
        try c.encode(refreshes, forKey: .refreshes)
        try c.encode(pending, forKey: .pending)
        try c.encode(awaitingAck, forKey: .awaitingAck)
        try c.encode(awaitingDeadlines, forKey: .awaitingDeadlines)
        try c.encodeIfPresent(batch, forKey: .batch)
        try c.encode(usedIDs, forKey: .usedIDs)
        try c.encode(realAppServers, forKey: .realAppServers)
        try c.encode(stored, forKey: .stored)
        try c.encode(tray, forKey: .tray)
        try c.encode(inbox, forKey: .inbox)
        try c.encode(owedReceipts, forKey: .owedReceipts)
        try c.encode(deletedCount, forKey: .deletedCount)
        try c.encodeIfPresent(unreachableSince, forKey: .unreachableSince)
        try c.encodeIfPresent(lastInactiveDropAt, forKey: .lastInactiveDropAt)
        try c.encode(messageCounter, forKey: .messageCounter)
        try c.encode(links, forKey: .links)
        try c.encode(topics.mapValues { $0.sorted() }, forKey: .topics)
        try c.encode(pendingTopicChanges, forKey: .pendingTopicChanges)
        try c.encode(groups, forKey: .groups)
        try c.encode(faults, forKey: .faults)
        try c.encode(nextFaultID, forKey: .nextFaultID)
        try c.encode(startConfiguration, forKey: .startConfiguration)
    }
}
