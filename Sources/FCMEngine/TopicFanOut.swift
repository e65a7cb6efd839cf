/// A topic or condition message on its way to its subscribers: the first 10,000 copies
/// go with the message, the rest in batches of 10,000, so that a topic with a million subscribers is answered when it is taken,
/// and other requests are handled between its batches (`EngineInput.fanOut`).
/// Deterministic: the batches are inputs of their own, journaled and replayed where
/// they ran.
public struct TopicFanOut: Sendable, Equatable, Codable {
    /// The message as each copy starts (its `to` set per subscriber).
    var message: StoredMessage
    /// A v1 message's platform blocks, applied phone by phone.
    var overrides: PlatformOverrides?
    /// The subscribers as they were when the message was taken, and their tokens.
    var phones: [Int]
    var tokens: [String]
    /// How many copies have gone out.
    var sent = 0

    /// The copies one batch sends at most.
    public static let batch = 10_000
    /// The copies that go out with the message itself, before its answer. As many as a
    /// batch: the crash test once found an acknowledged copy lost with a first batch of
    /// 1,000 on a fleet of 10,000 (a deferred batch across a SIGKILL), not yet explained;
    /// a topic of up to 10,000 subscribers is sent whole, as before deferral.
    public static let firstBatch = batch

    var isDone: Bool { sent >= phones.count }
}

extension DeviceEngine {
    /// Whether a topic message still has copies to send (a shell hands the engine
    /// `EngineInput.fanOut` until it has none).
    public var hasPendingFanOut: Bool { !fanOuts.isEmpty }

    /// Sends the next batch of the oldest topic message still going out.
    mutating func continueFanOut(into out: inout [Event]) {
        guard var fanOut = fanOuts.first else { return }
        sendBatch(of: &fanOut, into: &out)
        if fanOut.isDone { fanOuts.removeFirst() } else { fanOuts[0] = fanOut }
    }

    /// Sends up to one batch of a topic message's copies. A phone whose token changed
    /// since the message was taken (an uninstall, a refresh) gets no copy: that token
    /// is gone.
    mutating func sendBatch(of fanOut: inout TopicFanOut, into out: inout [Event]) {
        let size = fanOut.sent == 0 ? TopicFanOut.firstBatch : TopicFanOut.batch
        let end = min(fanOut.phones.count, fanOut.sent + size)
        let sender = fanOut.message.request.sender
        let isServiceKey = { (item: KeyValue) in ServiceLimits.isServiceDataKey(item.key) }
        var message = fanOut.message
        for position in fanOut.sent..<end {
            let index = fanOut.phones[position]
            let token = fanOut.tokens[position]
            guard index < devices.count, phone(index, { $0.tokens })[sender] == token else { continue }
            message.request.to = token
            guard let overrides = fanOut.overrides else {
                onDevice(index) { $0.route(message, into: &out) }
                continue
            }
            var copy = message
            copy.request = shaped(message.request, by: overrides, forPhoneAt: index)
            if copy.request.data.contains(where: isServiceKey) { copy.request.data.removeAll(where: isServiceKey) }
            copy.timeToLive = copy.request.timeToLive ?? ServiceLimits.defaultDownstreamTimeToLive
            onDevice(index) { $0.route(copy, into: &out) }
        }
        fanOut.sent = end
    }

    /// Every pending copy sent, one batch an input (for shells that need not let other
    /// requests in between: a replay, the TUI's own session, a profile's step).
    public mutating func finishFanOuts(into out: inout [Event]) {
        while hasPendingFanOut { handle(.fanOut(at: now), into: &out) }
    }
}
