/// The device as a door is shown it: every reading the engine offers, and no way
/// to change it. A shell that renders the device (the TUI) holds this, never an
/// engine it could run.
@dynamicMemberLookup
public struct DeviceView: Sendable {
    private let engine: DeviceEngine

    public init(_ engine: DeviceEngine) {
        self.engine = engine
    }

    public subscript<Value>(dynamicMember path: KeyPath<DeviceEngine, Value>) -> Value {
        engine[keyPath: path]
    }

    public func heldMessages(ofPhoneAt index: Int) -> [HeldMessage] { engine.heldMessages(ofPhoneAt: index) }
    public func storeUsage(ofPhoneAt index: Int) -> StoreUsage { engine.storeUsage(ofPhoneAt: index) }
    public func isConnected(phoneAt index: Int) -> Bool { engine.isConnected(phoneAt: index) }
    /// Whether the phone at `index` is a real client (it registered and receives over MCS).
    public func isRealClient(phoneAt index: Int) -> Bool { engine.server.isReceiver(index) }
    public func hasUsedMessageID(_ id: String, onPhoneAt index: Int) -> Bool {
        engine.hasUsedMessageID(id, onPhoneAt: index)
    }
    public func deviceNumber(named name: String) -> Int? { engine.deviceNumber(named: name) }
    public func phone(named name: String) -> Phone? { engine.phone(named: name) }
    public func deviceNameProblem(_ name: String) -> String? { engine.deviceNameProblem(name) }
    public func webPushStep(for request: WebPushRequest) -> (phone: String, step: WebPushStep)? {
        engine.webPushStep(for: request)
    }
}
