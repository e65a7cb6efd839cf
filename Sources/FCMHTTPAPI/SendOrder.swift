import FCMEngine

/// One downstream message the HTTP APIs hand to the device.
public struct SendOrder: Sendable, Equatable {
    public var request: DownstreamRequest
    /// The target is a Firebase installation id (v1 `fid`), not a registration token:
    /// the device resolves it to the sender's token of that installation.
    public var byInstallation: Bool

    public init(_ request: DownstreamRequest, byInstallation: Bool = false) {
        self.request = request
        self.byInstallation = byInstallation
    }
}

/// What the device made of a batch of orders.
public enum SendOutcome: Sendable, Equatable {
    /// The messaging service is down: nothing was taken.
    case serviceDown
    /// One result per order, in order: the message id, or why it was refused.
    case results([Result<String, DownstreamError>])
}

/// How the send APIs reach the device: an async call that runs the orders on the
/// device's own thread.
public typealias DeviceGateway = @Sendable ([SendOrder]) async -> SendOutcome
