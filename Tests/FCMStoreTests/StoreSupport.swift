import FCMEngine
import Foundation
import Testing

@testable import FCMStore

/// A temporary folder for one test's state file, removed with `clean()`.
struct TemporaryState {
    let folder: String
    var path: String { folder + "/device.sqlite" }

    init() {
        folder = NSTemporaryDirectory() + "fcm-store-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func clean() { try? FileManager.default.removeItem(atPath: folder) }
}

enum StoreFixture {
    static let sender = "123456789012"
    static let other = "998877665544"

    static func configuration(seed: UInt64 = 11, appServer: AppServerMode = .none) -> EngineConfiguration {
        EngineConfiguration(
            device: DeviceSettings(name: "Store test", seed: seed),
            senders: [SenderConfig(id: sender, key: "key-a", project: "proj-a")],
            batch: BatchPolicy(window: 2_000, max: 10), appServer: appServer)
    }

    static func open(
        _ state: TemporaryState, configuration: EngineConfiguration = configuration(), fresh: Bool = false,
        checkpointEvery: Int = 20_000, finalCheckpointPhones: Int = DeviceStore.finalCheckpointPhones,
        replayablePhoneChanges: Int = DeviceStore.replayablePhoneChanges
    )
        throws -> (DeviceStore, DeviceStore.Opening)
    {
        try DeviceStore.open(
            path: state.path, configuration: configuration, seedNamed: false, fresh: fresh,
            checkpointEvery: checkpointEvery, finalCheckpointPhones: finalCheckpointPhones,
            replayablePhoneChanges: replayablePhoneChanges,
            onFailure: { Issue.record("write failed: \($0)") })
    }

    /// Every part of the engine's state a restart must bring back.
    static func expectSame(_ a: DeviceEngine, _ b: DeviceEngine, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.now == b.now, sourceLocation: sourceLocation)
        #expect(a.configuration == b.configuration, sourceLocation: sourceLocation)
        #expect(a.server.serviceUp == b.server.serviceUp, sourceLocation: sourceLocation)
        #expect(a.devices.count == b.devices.count, sourceLocation: sourceLocation)
        for (x, y) in zip(a.devices, b.devices) {
            #expect(
                x.appState == y.appState && x.network == y.network && x.doze == y.doze, sourceLocation: sourceLocation)
            #expect(x.installed == y.installed && x.senders == y.senders, sourceLocation: sourceLocation)
            #expect(x.tokens == y.tokens && x.retiredTokens == y.retiredTokens, sourceLocation: sourceLocation)
            #expect(x.pending == y.pending && x.batch == y.batch, sourceLocation: sourceLocation)
            #expect(x.stored == y.stored && x.tray == y.tray && x.inbox == y.inbox, sourceLocation: sourceLocation)
            #expect(x.deletedCount == y.deletedCount, sourceLocation: sourceLocation)
        }
        #expect(a.server.awaitingAck == b.server.awaitingAck, sourceLocation: sourceLocation)
        #expect(a.server.realAppServers == b.server.realAppServers, sourceLocation: sourceLocation)
        #expect(a.server.owedReceipts == b.server.owedReceipts, sourceLocation: sourceLocation)
        #expect(a.pendingFanOuts == b.pendingFanOuts, sourceLocation: sourceLocation)
        #expect(a.nextDeadline == b.nextDeadline, sourceLocation: sourceLocation)
    }
}

/// Drives an engine the way the shells do: each call recorded, then handed to the
/// store with the phones it changed.
protocol EngineDriver {
    var engine: DeviceEngine { get set }
}

extension EngineDriver {
    mutating func start(into store: DeviceStore?) {
        var events: [Event] = []
        engine.handle(.start(at: 0), into: &events)
        hand(to: store)
    }

    @discardableResult
    mutating func hand(to store: DeviceStore?) -> Int64 {
        let (inputs, _, changed) = engine.takeRecorded()
        return store?.append(inputs, changedPhones: changed, engine: engine) ?? 0
    }
}

/// Drives one phone through a random mix of every kind of call.
struct SessionDriver: EngineDriver {
    var engine: DeviceEngine
    var random: SeededGenerator
    var time: Millis = 0
    var step = 0

    init(configuration: EngineConfiguration, seed: UInt64) {
        engine = DeviceEngine(configuration)
        engine = engine.recording(true)
        random = SeededGenerator(seed: seed)
    }

    /// One random call; returns its events.
    mutating func next(into store: DeviceStore?) -> [Event] {
        step += 1
        time += Millis(random.next() % 700)
        var events: [Event] = []
        let sender = StoreFixture.sender
        switch random.next() % 12 {
        case 0, 1:
            let to = UpstreamRequest.address(sender: sender, sdk: .fcm)
            let request = UpstreamRequest(
                to: to, messageID: "up-\(step)", timeToLive: Int64(random.next() % 20),
                data: [DataItem("n", .string(String(step)))])
            engine.handle(.input(.on(.send(request)), at: time), into: &events)
        case 2, 3:
            let request = DownstreamRequest(
                sender: sender, to: engine.devices[0].tokens[sender], messageID: "down-\(step)",
                data: [KeyValue("n", String(step))],
                notification: random.next() % 3 == 0 ? [KeyValue("title", "t\(step)")] : nil,
                collapseKey: random.next() % 4 == 0 ? "score" : nil, timeToLive: Int64(random.next() % 30),
                deliveryReceiptRequested: random.next() % 2 == 0)
            if random.next() % 2 == 0 {
                engine.handle(.input(.push(request), at: time), into: &events)
            } else {
                // On an app server's connection, opened (or reopened) as needed.
                let connection = ConnectionID(step / 50 + 1)
                if engine.server.links.byID[connection] == nil {
                    engine.handle(.input(.appServer(.closed(connection - 1)), at: time), into: &events)
                    engine.handle(.input(.appServer(.connected(connection, sender: sender)), at: time), into: &events)
                }
                let message = CCSMessage.downstream(request, messageID: request.messageID ?? "")
                engine.handle(.input(.appServer(.received(connection, message)), at: time), into: &events)
                if let held = engine.server.links.byID[connection]?.unacked.first {
                    engine.handle(
                        .input(.appServer(.received(connection, .ack(messageID: held))), at: time), into: &events)
                }
                _ = engine.takeEffects()
            }
        case 4:
            let orders = [
                SendOrder(
                    DownstreamRequest(sender: sender, to: engine.devices[0].tokens[sender], data: [KeyValue("h", "1")])),
                SendOrder(DownstreamRequest(sender: sender, to: "not-a-token", data: [KeyValue("h", "2")])),
            ]
            engine.handle(.advance(to: time), into: &events)
            _ = engine.handle(.input(.send(orders), at: engine.now), into: &events).sendOutcome!
        case 5:
            if let held = engine.server.awaitingAck.first {
                engine.handle(
                    .input(.ackUpstream(sender: held.message.sender, id: held.message.id), at: time), into: &events)
            }
        case 6:
            engine.handle(
                .input(.on(.setNetwork(random.next() % 2 == 0 ? .offline : .online)), at: time), into: &events)
        case 7:
            engine.handle(
                .input(.on(.setAppState(random.next() % 2 == 0 ? .background : .foreground)), at: time), into: &events)
        case 8: engine.handle(.input(.on(.refreshToken(sender: nil)), at: time), into: &events)
        case 9:
            engine.handle(.input(.on(.tap(.last)), at: time), into: &events)
            if random.next() % 4 == 0, let owed = engine.server.owedReceipts.first {
                engine.handle(.input(.ackReceipt(sender: owed.sender, id: owed.id), at: time), into: &events)
            }
        case 10: engine.handle(.input(.setService(up: random.next() % 3 != 0), at: time), into: &events)
        default: engine.handle(.advance(to: time + 3_000), into: &events)
        }
        hand(to: store)
        return events
    }
}

extension DeviceStore.Opening {
    /// The engine when the store opened empty (or `fresh`); nil when it resumed a device.
    var newEngine: DeviceEngine? {
        if case .new(let engine) = self { return engine }
        return nil
    }
}
