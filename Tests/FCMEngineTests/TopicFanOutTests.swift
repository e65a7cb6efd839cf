import FCMEngine
import Foundation
import Testing

/// A topic with more subscribers than one batch: answered when taken, the rest of its
/// copies in batches of their own, other requests between them, replayed the same.
@Suite("Topic fan-out in batches")
struct TopicFanOutTests {
    static let sender = "123456789012"
    /// The copies a batch carries here (`server: fan_out_batch` in a profile).
    static let batch = 500
    /// More than the first batch and one more batch can carry.
    static let phones = 2 * batch + 2

    /// A fleet of `phones`, every phone subscribed to `news`.
    static func subscribedFleet() -> (DeviceEngine, [Event]) {
        var configuration = EngineConfiguration(senders: [SenderConfig(id: sender, key: "k")])
        configuration.store.fanOutBatch = batch
        configuration.devices = [DeviceSpec(DeviceSettings(name: "phone", seed: 3), count: phones)]
        configuration.device = configuration.firstStartingDevice
        var engine = DeviceEngine(configuration)
        engine = engine.recording(true)
        var events: [Event] = []
        engine.handle(.start(at: 0), into: &events)
        let tokens = engine.devices.compactMap { $0.tokens[sender] }
        for start in stride(from: 0, to: tokens.count, by: 1_000) {
            let order = TopicOrder(
                sender: sender, topic: "news", tokens: Array(tokens[start..<min(start + 1_000, tokens.count)]),
                change: .add, api: .iid)
            engine.handle(.input(.topics(order), at: 10), into: &events)
        }
        return (engine, events)
    }

    static func topicMessage() -> SendOrder {
        SendOrder(DownstreamRequest(sender: sender, to: "/topics/news", data: [KeyValue("k", "v")]))
    }

    @Test func aBigTopicIsAnsweredWithItsFirstBatchAndTheRestGoesOutInInputsOfTheirOwn() {
        var (engine, _) = Self.subscribedFleet()
        var events: [Event] = []
        let reply = engine.handle(.input(.send([Self.topicMessage()]), at: 100), into: &events)
        #expect(reply.sendOutcome != nil)
        #expect(events.filter { $0.kind == .onMessageReceived }.count == Self.batch)
        #expect(engine.hasPendingFanOut)
        // Another request between the batches is handled at once.
        let last = engine.devices[Self.phones - 1].tokens[Self.sender]!
        var between: [Event] = []
        let direct = DownstreamRequest(sender: Self.sender, to: last, data: [KeyValue("direct", "1")])
        engine.handle(.input(.send([SendOrder(direct)]), at: 101), into: &between)
        #expect(between.filter { $0.kind == .onMessageReceived }.count == 1)
        var rest: [Event] = []
        engine.handle(.fanOut(at: 102), into: &rest)
        #expect(rest.filter { $0.kind == .onMessageReceived }.count == Self.batch)
        #expect(engine.hasPendingFanOut)
        engine.handle(.fanOut(at: 103), into: &rest)
        #expect(rest.filter { $0.kind == .onMessageReceived }.count == Self.phones - Self.batch)
        #expect(!engine.hasPendingFanOut)
    }

    @Test func theBatchesReplayAsTheyRanAndAPhoneThatChangedTokenMeanwhileGetsNoCopy() {
        var (engine, _) = Self.subscribedFleet()
        let start = engine
        var live: [Event] = []
        engine.handle(.input(.send([Self.topicMessage()]), at: 100), into: &live)
        let name = engine.devices[Self.phones - 1].name
        engine.handle(.input(.on(device: name, .refreshToken(sender: nil)), at: 101), into: &live)
        engine.sendEveryCopy(into: &live)
        #expect(live.filter { $0.kind == .onMessageReceived }.count == Self.phones - 1)
        // The journal of those inputs, replayed on the fleet as it was, gives the same.
        var replay = start
        var replayed: [Event] = []
        for input in engine.takeRecorded().inputs where input.time.map({ $0 >= 100 }) == true {
            replay.handle(input, into: &replayed)
        }
        #expect(replayed == live)
    }

    @Test func aShellThatNeedNotLetOthersInFinishesItAtOnce() {
        var (engine, _) = Self.subscribedFleet()
        var events: [Event] = []
        engine.handle(.input(.send([Self.topicMessage()]), at: 100), into: &events)
        engine.sendEveryCopy(into: &events)
        #expect(events.filter { $0.kind == .onMessageReceived }.count == Self.phones)
        #expect(!engine.hasPendingFanOut)
    }

    @Test func aSavedDeviceBetweenBatchesShowsWhatIsStillGoingOutAndSendsItWhenItRunsAgain() throws {
        var (engine, _) = Self.subscribedFleet()
        var events: [Event] = []
        engine.handle(.input(.send([Self.topicMessage()]), at: 100), into: &events)
        let id = try #require(engine.pendingFanOuts.first?.id)
        #expect(engine.pendingFanOuts.first?.sent == Self.batch)
        #expect(engine.pendingFanOuts.first?.copies == Self.phones)
        #expect(engine.pendingFanOuts.first?.waiting == Array(Self.batch..<Self.phones))
        // Saved and read back (as a checkpoint or a stop keeps it), it goes on.
        var resumed = try JSONDecoder().decode(DeviceEngine.self, from: JSONEncoder().encode(engine))
        #expect(resumed.pendingFanOuts == engine.pendingFanOuts)
        var rest: [Event] = []
        resumed.sendEveryCopy(into: &rest)
        let received = rest.filter { $0.kind == .onMessageReceived }
        #expect(received.count == Self.phones - Self.batch)
        #expect(received.allSatisfy { $0.string("id") == id })
        #expect(resumed.pendingFanOuts.isEmpty)
    }

    @Test func aTokenChangedForAnotherSenderKeepsThePhonesCopyOfThisSendersTopic() {
        let other = "999999999999"
        var configuration = EngineConfiguration(
            senders: [SenderConfig(id: Self.sender, key: "k"), SenderConfig(id: other, key: "o")])
        configuration.store.fanOutBatch = 1
        configuration.devices = [DeviceSpec(DeviceSettings(name: "phone", seed: 8), count: 3)]
        configuration.device = configuration.firstStartingDevice
        var engine = DeviceEngine(configuration)
        var events: [Event] = []
        engine.handle(.start(at: 0), into: &events)
        let tokens = engine.devices.compactMap { $0.tokens[Self.sender] }
        engine.handle(
            .input(
                .topics(TopicOrder(sender: Self.sender, topic: "news", tokens: tokens, change: .add, api: .iid)), at: 10
            ),
            into: &events)
        var sent: [Event] = []
        engine.handle(.input(.send([Self.topicMessage()]), at: 100), into: &sent)
        // Between batches: phone-2 gets a new token for the other sender only, phone-3
        // for this one.
        engine.handle(.input(.on(device: "phone-2", .refreshToken(sender: other)), at: 101), into: &events)
        engine.handle(.input(.on(device: "phone-3", .refreshToken(sender: Self.sender)), at: 102), into: &events)
        engine.sendEveryCopy(into: &sent)
        let received = sent.filter { $0.kind == .onMessageReceived }.compactMap { $0.string("device") }
        #expect(received == ["phone-1", "phone-2"])
    }

    @Test func aBatchOfNoCopiesFromASavedFileStillMovesOn() throws {
        var (engine, _) = Self.subscribedFleet()
        var events: [Event] = []
        engine.handle(.input(.send([Self.topicMessage()]), at: 100), into: &events)
        let saved = String(decoding: try JSONEncoder().encode(engine), as: UTF8.self)
        #expect(saved.contains("\"fanOutBatch\":\(Self.batch)"))
        let edited = saved.replacingOccurrences(of: "\"fanOutBatch\":\(Self.batch)", with: "\"fanOutBatch\":0")
        var read = try JSONDecoder().decode(DeviceEngine.self, from: Data(edited.utf8))
        read.sendEveryCopy(into: &events)
        #expect(!read.hasPendingFanOut)
    }
}

extension DeviceEngine {
    /// Every copy of the topic messages still going out sent, a batch an input.
    mutating func sendEveryCopy(into out: inout [Event]) {
        while hasPendingFanOut { handle(.fanOut(at: now), into: &out) }
    }
}
