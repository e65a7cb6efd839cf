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
