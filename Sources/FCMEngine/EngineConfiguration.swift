/// Everything the engine needs to start.
public struct EngineConfiguration: Sendable, Equatable, Codable {
    public var device: DeviceSettings
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
}
