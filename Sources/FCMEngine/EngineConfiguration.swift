/// Everything the engine needs to start.
public struct EngineConfiguration: Sendable, Equatable, Codable {
    /// The phone, or the first of `devices` when there are several.
    public var device: DeviceSettings
    /// Several phones (a profile's `devices:`); empty for the one `device`.
    public var devices: [DeviceSpec] = []
    public var senders: [SenderConfig]
    public var batch: BatchPolicy
    public var appServer: AppServerMode
    public var store: StorePolicy

    public init(
        device: DeviceSettings = DeviceSettings(), senders: [SenderConfig],
        batch: BatchPolicy = BatchPolicy(), appServer: AppServerMode = .echo,
        store: StorePolicy = StorePolicy()
    ) {
        self.device = device
        self.senders = senders
        self.batch = batch
        self.appServer = appServer
        self.store = store
    }

    enum CodingKeys: String, CodingKey {
        case device, devices, senders, batch, appServer, store
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        device = try c.decode(DeviceSettings.self, forKey: .device)
        devices = try c.decodeIfPresent([DeviceSpec].self, forKey: .devices) ?? []
        senders = try c.decode([SenderConfig].self, forKey: .senders)
        batch = try c.decode(BatchPolicy.self, forKey: .batch)
        appServer = try c.decode(AppServerMode.self, forKey: .appServer)
        store = try c.decode(StorePolicy.self, forKey: .store)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(device, forKey: .device)
        if !devices.isEmpty { try c.encode(devices, forKey: .devices) }
        try c.encode(senders, forKey: .senders)
        try c.encode(batch, forKey: .batch)
        try c.encode(appServer, forKey: .appServer)
        try c.encode(store, forKey: .store)
    }
}

/// The settings a saved device takes from each run rather than from the run that
/// saved it: the echo app server (`--no-echo`) and production's per-device limits
/// (`--no-device-limits`). Listed once: a store lets them differ, and a session sets
/// them through the device's front door, so the journal replays each run as it ran.
extension EngineConfiguration {
    /// This configuration with `other`'s run switches.
    public func withRunSwitches(of other: EngineConfiguration) -> EngineConfiguration {
        var configuration = self
        configuration.appServer = other.appServer
        configuration.store.deviceLimits = other.store.deviceLimits
        return configuration
    }

    /// This configuration as a run's flags change it.
    public func switched(noEcho: Bool, noDeviceLimits: Bool) -> EngineConfiguration {
        var configuration = self
        if noEcho { configuration.appServer = .none }
        if noDeviceLimits { configuration.store.deviceLimits = false }
        return configuration
    }

    /// The commands that bring a device running on this configuration to `wanted`'s
    /// run switches.
    public func switchCommands(to wanted: EngineConfiguration) -> [Input] {
        var commands: [Input] = []
        if appServer != wanted.appServer { commands.append(.setAppServerMode(wanted.appServer)) }
        if store.deviceLimits != wanted.store.deviceLimits {
            commands.append(.setDeviceLimits(wanted.store.deviceLimits))
        }
        return commands
    }
}
