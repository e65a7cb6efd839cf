import FCMEngine

extension DeviceEngine {
    /// Runs the HTTP APIs' orders on the device, in order. While the service is down
    /// nothing is taken (each refusal is still logged) and the API answers 503.
    public mutating func send(_ orders: [SendOrder], into out: inout [Event]) -> SendOutcome {
        let down = !serviceUp
        var results: [Result<String, DownstreamError>] = []
        results.reserveCapacity(orders.count)
        for order in orders {
            var request = order.request
            if order.byInstallation, let fid = request.to, let token = tokens[request.sender],
                token.hasPrefix(fid + ":")
            {
                request.to = token
            }
            results.append(push(request, into: &out))
        }
        return down ? .serviceDown : .results(results)
    }
}
