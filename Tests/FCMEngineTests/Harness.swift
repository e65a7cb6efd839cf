import FCMEngine
import FCMEventGuide
import Testing

/// Drives an engine in tests and keeps every event it produced.
struct Harness {
    var engine: DeviceEngine
    var events: [Event] = []
    var time: Millis = 0

    static let sender = "123456789012"
    static let other = "998877665544"

    init(
        platform: Platform = .android, sdk: SDK = .fcm, state: AppState = .foreground,
        network: Network = .online, senders: [String] = [Harness.sender], appServer: AppServerMode = .echo,
        batch: BatchPolicy = BatchPolicy(window: 2_000, max: 10), store: StorePolicy = StorePolicy(), seed: UInt64 = 7,
        settings: (inout DeviceSettings) -> Void = { _ in }
    ) {
        var device = DeviceSettings(platform: platform, sdk: sdk, state: state, network: network, seed: seed)
        settings(&device)
        let config = EngineConfiguration(
            device: device, senders: senders.map { SenderConfig(id: $0, key: "key-\($0)") }, batch: batch,
            appServer: appServer, store: store)
        engine = DeviceEngine(config)
        engine.handle(.start(at: 0), into: &events)
    }

    var token: String { engine.devices[0].tokens[Harness.sender]! }

    /// Applies a command for the only phone at the current time (after moving it on
    /// by `after` ms).
    @discardableResult
    mutating func run(_ command: PhoneCommand, after: Millis = 0) -> [Event] {
        run(.on(command), after: after)
    }

    /// Applies a command at the current time (after moving it on by `after` ms).
    @discardableResult
    mutating func run(_ command: Input, after: Millis = 0) -> [Event] {
        time += after
        let new = engine.handle(.input(command, at: time))
        events += new
        Self.checkDeclared(new)
        return new
    }

    mutating func wait(_ ms: Millis) {
        time += ms
        let before = events.count
        engine.handle(.advance(to: time), into: &events)
        Self.checkDeclared(events[before...])
    }

    /// Every event carries only the fields its kind declares (what an `expect` may name).
    static func checkDeclared(_ events: some Sequence<Event>) {
        for event in events {
            let undeclared = event.fields.map(\.name).filter { !event.kind.carries($0) }
            #expect(
                undeclared.isEmpty,
                "\(event.name) carries \(undeclared), which its description (EventName.described) does not declare")
        }
    }

    @discardableResult
    mutating func send(_ id: String, ttl: Int64? = nil, data: [DataItem] = [DataItem("k", .string("v"))])
        -> [Event]
    {
        let to = UpstreamRequest.address(sender: Harness.sender, sdk: engine.devices[0].settings.sdk)
        return run(.send(UpstreamRequest(to: to, messageID: id, timeToLive: ttl, data: data)))
    }

    @discardableResult
    mutating func push(
        data: [KeyValue] = [KeyValue("score", "1-0")], notification: [KeyValue]? = nil, collapseKey: String? = nil,
        priority: String? = nil, ttl: Int64? = nil, to: String? = nil, sender: String = Harness.sender,
        id: String? = nil, receipt: Bool = false, contentAvailable: Bool = false
    ) -> [Event] {
        let request = DownstreamRequest(
            sender: sender, to: to ?? engine.devices[0].tokens[sender] ?? engine.devices[0].issuedTokens[sender]?.last,
            messageID: id,
            data: data, notification: notification, collapseKey: collapseKey, priority: priority, timeToLive: ttl,
            deliveryReceiptRequested: receipt, contentAvailable: contentAvailable)
        return run(.push(request))
    }

    func named(_ name: String) -> [Event] { events.filter { $0.name == name } }
}

extension [Event] {
    func named(_ name: String) -> [Event] { filter { $0.name == name } }
    var names: [String] { map(\.name) }
}
