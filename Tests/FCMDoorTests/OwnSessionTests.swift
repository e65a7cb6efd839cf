import FCMEngine
import Synchronization
import Testing

@testable import FCMDoor

/// The session the TUI runs itself (`tui --no-listen`, a fork of a played profile) is
/// the served session's type on a loop the TUI's ticks run: the same timer, recording
/// and batches of a topic's copies.
@Suite("The TUI's own session")
struct OwnSessionTests {
    static let sender = "123456789012"

    /// `phones` phones, a topic's copies `batch` at a time.
    static func fleet(phones: Int, batch: Int) -> EngineConfiguration {
        var configuration = EngineConfiguration(senders: [SenderConfig(id: sender, key: "k")])
        configuration.store.fanOutBatch = batch
        configuration.devices = [DeviceSpec(DeviceSettings(name: "phone", seed: 3), count: phones)]
        configuration.device = configuration.firstStartingDevice
        return configuration
    }

    static let topicMessage = SendOrder(
        DownstreamRequest(sender: sender, to: "/topics/news", data: [KeyValue("k", "v")]))

    static func received(_ events: [Event]) -> Int { events.filter { $0.kind == .onMessageReceived }.count }

    /// Every phone of the door's fleet subscribed to `news`.
    static func subscribeAll(_ door: SessionDoor) {
        let tokens = door.host.engine.devices.compactMap { $0.tokens[sender] }
        door.submit(.topics(TopicOrder(sender: sender, topic: "news", tokens: tokens, change: .add, api: .iid)))
        _ = door.takeEvents()
    }

    @Test func aTopicsCopiesGoOutInBatchesOnTheLoopAsServeSendsThem() {
        let door = SessionDoor.own(starting: Self.fleet(phones: 5, batch: 2))
        Self.subscribeAll(door)
        door.submit(.send([Self.topicMessage]))
        #expect(Self.received(door.takeEvents()) == 2, "the first batch goes with the message")
        let start = door.now
        #expect(door.nextWake == start + 1, "the next batch is the loop's next task, a moment later")
        #expect(door.tick(now: start + 1))
        #expect(Self.received(door.takeEvents()) == 2)
        #expect(door.tick(now: start + 5))
        #expect(Self.received(door.takeEvents()) == 1)
        #expect(!door.host.engine.hasPendingFanOut)
        // Each batch is an input of its own, recorded as the served session journals it.
        let batches = door.recording().filter {
            if case .fanOut = $0 { true } else { false }
        }
        #expect(batches.count == 2)
    }

    @Test func aForkBetweenATopicsBatchesSendsTheRestOnItsLoop() {
        var engine = DeviceEngine(Self.fleet(phones: 4, batch: 1))
        var events: [Event] = []
        engine.handle(.start(at: 0), into: &events)
        let tokens = engine.devices.compactMap { $0.tokens[Self.sender] }
        engine.handle(
            .input(
                .topics(TopicOrder(sender: Self.sender, topic: "news", tokens: tokens, change: .add, api: .iid)), at: 5),
            into: &events)
        engine.handle(.input(.send([Self.topicMessage]), at: 10), into: &events)
        #expect(engine.hasPendingFanOut)
        let door = SessionDoor.own(engine: engine)
        #expect(door.resumed)
        #expect(door.nextWake == 11, "the fork's loop has the next batch due")
        _ = door.tick(now: 20)
        #expect(Self.received(door.takeEvents()) == 3)
        #expect(!door.host.engine.hasPendingFanOut)
    }

    @Test func aMovedClockStandsStillUntilTheTUIMovesItAndItsKeysMoveItOn() {
        let door = SessionDoor.own(starting: Self.fleet(phones: 1, batch: 10))
        #expect(!door.keepsItsOwnClock)
        #expect(door.now == 0)
        _ = door.tick(now: 1_500)
        #expect(door.now == 1_500)
        door.moveClock(by: 60_000)
        #expect(door.now == 61_500)
        #expect(door.host.engine.now == 61_500, "the clock key's time reached the engine")
        _ = door.tick(now: 1_000)
        #expect(door.now == 61_500, "a clock never goes back")
    }

    @Test func aRealTimeSessionKeepsItsOwnClock() {
        let door = SessionDoor.own(starting: Self.fleet(phones: 1, batch: 10), time: .real)
        #expect(door.keepsItsOwnClock)
        #expect(door.clock?.isReal == true)
    }
}

@Suite("A loop its owner runs")
struct ManualLoopTests {
    final class Ran: Sendable {
        let names = Mutex<[String]>([])
        func add(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    @Test func tasksRunInTheOrderTheyFallDueAtTheirOwnTimeAndACancelledOneNever() {
        let loop = ManualLoop(startingAt: 100)
        let ran = Ran()
        _ = loop.schedule(in: 30) { ran.add("c@\(loop.clock.now)") }
        _ = loop.schedule(in: 10) { ran.add("a@\(loop.clock.now)") }
        let cancelled = loop.schedule(in: 20) { ran.add("cancelled") }
        _ = loop.schedule(in: 10) {
            ran.add("b@\(loop.clock.now)")
            // A task scheduled by a task runs in the same pass when it falls due.
            _ = loop.schedule(in: 5) { ran.add("d@\(loop.clock.now)") }
        }
        cancelled.cancel()
        #expect(loop.nextDue == 110)
        #expect(!loop.run(until: 109))
        #expect(ran.all.isEmpty)
        #expect(loop.clock.now == 109)
        #expect(loop.run(until: 130))
        #expect(ran.all == ["a@110", "b@110", "d@115", "c@130"])
        #expect(loop.nextDue == nil)
    }

    @Test func runningUntilAnEarlierTimeLeavesTheClockWhereItIs() {
        let loop = ManualLoop(startingAt: 50)
        _ = loop.run(until: 10)
        #expect(loop.clock.now == 50)
    }
}
