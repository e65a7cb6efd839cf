import FCMEngine
import Testing

@testable import FCMDoor

enum EngineBoxTests {
    static let configuration = EngineConfiguration(
        device: DeviceSettings(seed: 2), senders: [SenderConfig(id: "555", key: "k5", project: "p5")],
        appServer: .none)
}

/// The HTTP send path asks whether faults are in scope without taking the engine's lock.
@Suite("Faults in scope, read without the lock")
struct FaultFlagTests {
    @Test("the flag follows faults added and cleared through the engine, and a started engine's own")
    func followsTheEngine() {
        var started = DeviceEngine(EngineBoxTests.configuration)
        let box = EngineBox(started, store: nil)
        #expect(!box.hasFaults)
        box.withEngine { _ = $0.handle(.input(.addFault(Fault(path: "/fcm/send", kind: .reset, count: 1)), at: 0)) }
        #expect(box.hasFaults)
        box.withEngine { _ = $0.handle(.input(.clearFaults, at: 1)) }
        #expect(!box.hasFaults)
        _ = started.handle(.input(.addFault(Fault(path: "/fcm/send", kind: .reset, count: 1)), at: 0))
        #expect(EngineBox(started, store: nil).hasFaults, "an engine that comes with faults starts with the flag up")
    }
}

@Suite("Who may act as an app server, published by the engine's box")
struct PublishedSendersTests {
    @Test("a sender added or removed through the engine is answered by the next request, without the engine's lock")
    func followsTheEngine() {
        let box = EngineBox(DeviceEngine(EngineBoxTests.configuration), store: nil)
        box.withEngine { engine in
            var events: [Event] = []
            engine.handle(.start(at: 0), into: &events)
        }
        let first = box.appServerSenders.all.map(\.id)
        #expect(!first.isEmpty)
        #expect(box.appServerSenders.sender(key: "late-key") == nil)
        box.withEngine { _ = $0.handle(.input(.on(.addSender(SenderConfig(id: "777", key: "late-key"))), at: 1)) }
        #expect(box.appServerSenders.sender(key: "late-key")?.id == "777")
        box.withEngine { _ = $0.handle(.input(.on(.removeSender("777")), at: 2)) }
        #expect(box.appServerSenders.sender(key: "late-key") == nil)
        #expect(box.appServerSenders.all.map(\.id) == first)
    }
}
