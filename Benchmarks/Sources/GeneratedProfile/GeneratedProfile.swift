import FCMEngine
import FCMProfiles

/// A large profile made in code: rounds of online sends, pushes of every kind,
/// offline spells that fill the queue and the store, doze, background and taps.
public enum GeneratedProfile {
    static let sender = "123456789012"

    public static func make(rounds: Int) -> Profile {
        let device = DeviceSettings(name: "Benchmark device", seed: 99)
        // A load profile: production's per-device limits off, as a load test turns them.
        let configuration = EngineConfiguration(
            device: device, senders: [SenderConfig(id: sender, key: "k")], batch: BatchPolicy(window: 500, max: 10),
            store: StorePolicy(deviceLimits: false))
        var steps: [Step] = []
        let here = SourceLocation(file: "generated", line: 1, column: 1)
        func add(_ at: Millis, _ action: StepAction) { steps.append(Step(at: at, action: action, location: here)) }
        func push(_ id: String, collapse: String? = nil, notification: Bool = false) -> StepAction {
            let request = DownstreamRequest(
                sender: sender, to: nil, messageID: id, data: [KeyValue("n", id)],
                notification: notification ? [KeyValue("title", "t"), KeyValue("body", id)] : nil,
                collapseKey: collapse)
            return .push(PushStep(request: request, tokenOwner: sender))
        }
        let to = UpstreamRequest.address(sender: sender, sdk: .fcm)
        for round in 0..<rounds {
            let base = Millis(round) * 10_000
            for n in 0..<5 {
                let id = "u-\(round)-\(n)"
                add(
                    base + Millis(n),
                    .command(.on(.send(UpstreamRequest(to: to, messageID: id, data: [DataItem("k", .string(id))])))))
                add(base + Millis(n), push("d-\(round)-\(n)"))
            }
            add(base + 100, .command(.on(.setNetwork(.offline))))
            for n in 0..<5 {
                add(
                    base + 200,
                    .command(.on(.send(UpstreamRequest(to: to, messageID: "q-\(round)-\(n)", timeToLive: 60)))))
                add(base + 200, push("s-\(round)-\(n)", collapse: n < 2 ? "c\(n)" : nil))
            }
            add(base + 5_000, .command(.on(.setNetwork(.online))))
            add(base + 6_000, .command(.on(.setAppState(.background))))
            add(base + 6_001, push("n-\(round)", notification: true))
            add(base + 6_002, .command(.on(.tap(.last))))
        }
        return Profile(file: "generated", configuration: configuration, steps: steps)
    }
}
