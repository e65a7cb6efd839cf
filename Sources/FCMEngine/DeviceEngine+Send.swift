/// One downstream message for `send(_:into:)`, as the HTTP APIs hand them over.
public struct SendOrder: Sendable, Equatable, Codable {
    public var request: DownstreamRequest
    /// The target is a Firebase installation id (v1 `fid`), not a registration token:
    /// the device resolves it to the sender's token of that installation.
    public var byInstallation: Bool
    /// An HTTP v1 message's `android` and `apns` blocks: each copy takes the block of
    /// the platform of the phone it reaches.
    public var overrides: PlatformOverrides?
    /// The app server's request it came in (nil: a profile's or the TUI's push).
    public var origin: WireOrigin?

    public init(
        _ request: DownstreamRequest, byInstallation: Bool = false, overrides: PlatformOverrides? = nil,
        origin: WireOrigin? = nil
    ) {
        self.request = request
        self.byInstallation = byInstallation
        self.overrides = overrides
        self.origin = origin
    }
}

/// What the device made of a batch of orders.
public enum SendOutcome: Sendable, Equatable {
    /// The messaging service is down: nothing was taken.
    case serviceDown
    /// One result per order, in order: the message id, or why it was refused; and
    /// for an order to a notification key, how its members took it (nil otherwise).
    case results([Result<String, DownstreamError>], groups: [GroupDelivery?])
}

extension DeviceEngine {
    /// Runs the HTTP APIs' orders on the device, in order. While the service is down
    /// nothing is taken (each refusal is still logged) and the API answers 503.
    mutating func send(_ orders: [SendOrder], into out: inout [Event]) -> SendOutcome {
        let down = !server.serviceUp
        var results: [Result<String, DownstreamError>] = []
        var deliveries: [GroupDelivery?] = []
        results.reserveCapacity(orders.count)
        for order in orders {
            var request = order.request
            if order.byInstallation, let fid = request.to,
                let token = devices.lazy.compactMap({ $0.tokens[request.sender] }).first(where: {
                    $0.hasPrefix(fid + ":")
                })
            {
                request.to = token
            }
            arriving = order.origin
            defer { arriving = nil }
            let (result, delivery) = take(request, overrides: order.overrides, into: &out)
            results.append(result)
            deliveries.append(delivery)
        }
        return down ? .serviceDown : .results(results, groups: deliveries)
    }
}

extension DeviceEngine {
    /// One downstream message from an app server: to a notification key, a copy for
    /// every member of the sender's group (and how they took it); otherwise the one
    /// message, validated and routed.
    mutating func take(_ request: DownstreamRequest, overrides: PlatformOverrides? = nil, into out: inout [Event]) -> (
        Result<String, DownstreamError>, GroupDelivery?
    ) {
        if let key = request.to, server.serviceUp, let group = server.groups.first(where: { $0.key == key }),
            group.sender == request.sender
        {
            let delivery = sendToGroup(group, request, overrides: overrides, into: &out)
            return (delivery.success > 0 ? .success(nextMessageID()) : .failure(.notRegistered(key)), delivery)
        }
        guard let overrides else { return (admit(request, into: &out), nil) }
        return (admit(request, overrides: overrides, into: &out), nil)
    }
}
