/// What a saved device holds, by explicit keys: the state file depends on these
/// names, not on how the engine's fields happen to be spelled. A key added later is
/// read if present, so a file saved before it still opens (see FCMStore's migrations).
extension DeviceEngine {
    enum CodingKeys: String, CodingKey {
        case configuration, now, serviceUp, awaitingAck, awaitingDeadlines, realAppServers, owedReceipts
        case messageCounter
        /// Since state format 3: the app-server connections.
        case links
        /// Since state format 4: device groups, faults and the start configuration.
        case groups, faults, nextFaultID, startConfiguration
        /// Since state format 5: the phones, each an `Installation`.
        case devices
    }

    /// The one phone's fields as states before format 5 saved them, at the top level.
    enum SinglePhoneKeys: String, CodingKey {
        case names, tokenFactory, appState, network, doze, installed, senders, tokens, tokenOwners, issuedTokens
        case installation, refreshes, pending, batch, usedIDs, stored, tray, inbox, deletedCount, unreachableSince
        case lastInactiveDropAt, topics, pendingTopicChanges
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        configuration = try c.decode(EngineConfiguration.self, forKey: .configuration)
        startConfiguration =
            try c.decodeIfPresent(EngineConfiguration.self, forKey: .startConfiguration) ?? configuration
        if let saved = try c.decodeIfPresent([Installation].self, forKey: .devices) {
            devices = saved
        } else {
            devices = [try Self.singlePhone(decoder, settings: configuration.device)]
        }
        now = try c.decode(Millis.self, forKey: .now)
        serviceUp = try c.decode(Bool.self, forKey: .serviceUp)
        awaitingAck = try c.decode(HeldUpstreams.self, forKey: .awaitingAck)
        awaitingDeadlines = try c.decode(DeadlineHeap<MessageKey>.self, forKey: .awaitingDeadlines)
        realAppServers = try c.decode(Set<String>.self, forKey: .realAppServers)
        owedReceipts = try c.decode([OwedReceipt].self, forKey: .owedReceipts)
        messageCounter = try c.decode(UInt64.self, forKey: .messageCounter)
        if let saved = try c.decodeIfPresent(AppServerLinks.self, forKey: .links) {
            links = saved
        } else {
            // Saved before connections were part of the device (format 2): everything
            // held waits for the next connection, as the server then sent it.
            for held in awaitingAck { links.queue(held.message) }
        }
        groups = try c.decodeIfPresent([DeviceGroup].self, forKey: .groups) ?? []
        faults = try c.decodeIfPresent([Fault].self, forKey: .faults) ?? []
        nextFaultID = try c.decodeIfPresent(Int.self, forKey: .nextFaultID) ?? 0
        indexDevices()
    }

    /// The one phone of a state saved before format 5.
    static func singlePhone(_ decoder: any Decoder, settings: DeviceSettings) throws -> Installation {
        let c = try decoder.container(keyedBy: SinglePhoneKeys.self)
        var phone = Installation(settings, senders: try c.decode([SenderConfig].self, forKey: .senders), index: 0)
        phone.names = try c.decode(CallbackNames.self, forKey: .names)
        phone.tokenFactory = try c.decode(TokenFactory.self, forKey: .tokenFactory)
        phone.appState = try c.decode(AppState.self, forKey: .appState)
        phone.network = try c.decode(Network.self, forKey: .network)
        phone.doze = try c.decode(Bool.self, forKey: .doze)
        phone.installed = try c.decode(Bool.self, forKey: .installed)
        phone.tokens = try c.decode([String: String].self, forKey: .tokens)
        phone.tokenOwners = try c.decode([String: String].self, forKey: .tokenOwners)
        phone.issuedTokens = try c.decode([String: [String]].self, forKey: .issuedTokens)
        phone.installation = try c.decode(Int.self, forKey: .installation)
        phone.refreshes = try c.decode([String: Int].self, forKey: .refreshes)
        phone.pending = try c.decode([UpstreamMessage].self, forKey: .pending)
        phone.batch = try c.decodeIfPresent(SendBatch.self, forKey: .batch)
        phone.usedIDs = try c.decode([String: Set<String>].self, forKey: .usedIDs)
        phone.stored = try c.decode([StoredMessage].self, forKey: .stored)
        phone.tray = try c.decode([TrayNotification].self, forKey: .tray)
        phone.inbox = try c.decode([DeliveredMessage].self, forKey: .inbox)
        phone.deletedCount = try c.decode(Int.self, forKey: .deletedCount)
        phone.unreachableSince = try c.decodeIfPresent(Millis.self, forKey: .unreachableSince)
        phone.lastInactiveDropAt = try c.decodeIfPresent(Millis.self, forKey: .lastInactiveDropAt)
        phone.topics = try c.decodeIfPresent([String: Set<String>].self, forKey: .topics) ?? [:]
        phone.pendingTopicChanges = try c.decodeIfPresent([TopicChange].self, forKey: .pendingTopicChanges) ?? []
        return phone
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(configuration, forKey: .configuration)
        try c.encode(startConfiguration, forKey: .startConfiguration)
        try c.encode(devices, forKey: .devices)
        try c.encode(now, forKey: .now)
        try c.encode(serviceUp, forKey: .serviceUp)
        try c.encode(awaitingAck, forKey: .awaitingAck)
        try c.encode(awaitingDeadlines, forKey: .awaitingDeadlines)
        try c.encode(realAppServers, forKey: .realAppServers)
        try c.encode(owedReceipts, forKey: .owedReceipts)
        try c.encode(messageCounter, forKey: .messageCounter)
        try c.encode(links, forKey: .links)
        try c.encode(groups, forKey: .groups)
        try c.encode(faults, forKey: .faults)
        try c.encode(nextFaultID, forKey: .nextFaultID)
    }
}
