/// What a saved device holds, by explicit keys (the server's beside the engine's, as
/// they were saved before the server was a value of its own): the state file depends on these
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
        /// Since state format 5: the phones, each a `Phone`.
        case devices
        /// Since the wall clock: the engine's reading of the UNIX time.
        case wallClock
        /// Since topic fan-out in batches: topic messages still going out.
        case fanOuts
        case webPush
        case receivers
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        configuration = try c.decode(EngineConfiguration.self, forKey: .configuration)
        startConfiguration =
            try c.decodeIfPresent(EngineConfiguration.self, forKey: .startConfiguration) ?? configuration
        if decoder.userInfo[Self.phonesApart] as? Bool == true {
            // Saved beside its phones (format 7): they are put back by the store.
            devices = []
        } else if let saved = try c.decodeIfPresent([Phone].self, forKey: .devices) {
            devices = saved
        } else {
            // Saved before format 5: the one phone's fields stand beside the server's.
            devices = [try Phone(decoding: decoder, settings: configuration.device)]
        }
        now = try c.decode(Millis.self, forKey: .now)
        server.serviceUp = try c.decode(Bool.self, forKey: .serviceUp)
        server.awaitingAck = try c.decode(HeldUpstreams.self, forKey: .awaitingAck)
        server.awaitingDeadlines = try c.decode(DeadlineHeap<[MessageKey: Millis]>.self, forKey: .awaitingDeadlines)
        server.realAppServers = try c.decode(Set<String>.self, forKey: .realAppServers)
        server.owedReceipts = try c.decode([OwedReceipt].self, forKey: .owedReceipts)
        server.messageCounter = try c.decode(UInt64.self, forKey: .messageCounter)
        if let saved = try c.decodeIfPresent(AppServerLinks.self, forKey: .links) {
            server.links = saved
        } else {
            // Saved before connections were part of the device (format 2): everything
            // held waits for the next connection, as the server then sent it.
            for held in server.awaitingAck { server.links.queue(held.message) }
        }
        server.groups = try c.decodeIfPresent([DeviceGroup].self, forKey: .groups) ?? []
        server.faults = try c.decodeIfPresent([Fault].self, forKey: .faults) ?? []
        server.nextFaultID = try c.decodeIfPresent(Int.self, forKey: .nextFaultID) ?? 0
        wallClock = try c.decodeIfPresent(WallClock.self, forKey: .wallClock) ?? .replayDefault
        server.fanOuts = try c.decodeIfPresent([TopicFanOut].self, forKey: .fanOuts) ?? []
        // Since Web Push.
        server.webPush = try c.decodeIfPresent(PushService.self, forKey: .webPush) ?? PushService()
        if let receivers = try c.decodeIfPresent(Receivers.self, forKey: .receivers) { server.receivers = receivers }
        indexDevices()
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(configuration, forKey: .configuration)
        try c.encode(startConfiguration, forKey: .startConfiguration)
        if encoder.userInfo[Self.phonesApart] as? Bool != true { try c.encode(devices, forKey: .devices) }
        try c.encode(now, forKey: .now)
        try c.encode(server.serviceUp, forKey: .serviceUp)
        try c.encode(server.awaitingAck, forKey: .awaitingAck)
        try c.encode(server.awaitingDeadlines, forKey: .awaitingDeadlines)
        try c.encode(server.realAppServers, forKey: .realAppServers)
        try c.encode(server.owedReceipts, forKey: .owedReceipts)
        try c.encode(server.messageCounter, forKey: .messageCounter)
        try c.encode(server.links, forKey: .links)
        try c.encode(server.groups, forKey: .groups)
        try c.encode(server.faults, forKey: .faults)
        try c.encode(server.nextFaultID, forKey: .nextFaultID)
        try c.encode(wallClock, forKey: .wallClock)
        if !server.fanOuts.isEmpty { try c.encode(server.fanOuts, forKey: .fanOuts) }
        if server.webPush != PushService() { try c.encode(server.webPush, forKey: .webPush) }
        if server.hasReceivers, server.receivers != Receivers() { try c.encode(server.receivers, forKey: .receivers) }
    }
}
