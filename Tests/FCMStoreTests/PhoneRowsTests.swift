import FCMEngine
import Foundation
import GRDB
import Testing

@testable import FCMStore

/// A fleet driven the way the shells drive one: each call on a random phone (by name),
/// a topic to all of them now and then, phones joining, a reset once in a while.
struct FleetDriver: EngineDriver {
    var engine: DeviceEngine
    var random: SeededGenerator
    var time: Millis = 0
    var step = 0

    static func configuration(phones: Int, network: Network = .online) -> EngineConfiguration {
        var configuration = StoreFixture.configuration()
        configuration.devices = [DeviceSpec(DeviceSettings(name: "phone", network: network, seed: 5), count: phones)]
        configuration.device = configuration.startingDevices[0].settings
        return configuration
    }

    init(engine: DeviceEngine, seed: UInt64) {
        self.engine = engine
        self.engine = self.engine.recording(true)
        random = SeededGenerator(seed: seed)
    }

    mutating func next(into store: DeviceStore?) -> [Event] {
        step += 1
        time += Millis(random.next() % 900)
        var events: [Event] = []
        let sender = StoreFixture.sender
        let index = Int(random.next() % UInt64(engine.devices.count))
        let name = engine.devices[index].name
        func on(_ command: PhoneCommand) { engine.handle(.input(.on(device: name, command), at: time), into: &events) }
        func apply(_ command: Input) { engine.handle(.input(command, at: time), into: &events) }
        switch random.next() % 18 {
        case 0, 1, 2:
            apply(
                .push(
                    DownstreamRequest(
                        sender: sender, to: engine.devices[index].tokens[sender], messageID: "d-\(step)",
                        data: [KeyValue("n", String(step))],
                        notification: random.next() % 2 == 0 ? [KeyValue("title", "t\(step)")] : nil,
                        collapseKey: random.next() % 3 == 0 ? "score" : nil, timeToLive: Int64(random.next() % 40))))
        case 3: on(.subscribe(topic: "news", sender: sender))
        case 4:
            engine.handle(
                .input(
                    .push(DownstreamRequest(sender: sender, to: "/topics/news", data: [KeyValue("all", String(step))])),
                    at: time), into: &events)
        case 5: on(.setNetwork(random.next() % 2 == 0 ? .offline : .online))
        case 6: on(.setAppState(random.next() % 2 == 0 ? .background : .foreground))
        case 7: on(.refreshToken(sender: nil))
        case 8: on(.tap(.last))
        case 9:
            let request = UpstreamRequest(
                to: UpstreamRequest.address(sender: sender, sdk: .fcm), messageID: "u-\(step)", timeToLive: 30,
                data: [DataItem("n", .string(String(step)))])
            on(.send(request))
        case 10 where random.next() % 4 == 0:
            engine.handle(
                .input(.addDevice(DeviceSpec(DeviceSettings(name: "joined-\(step)", seed: 9))), at: time), into: &events
            )
        case 11 where random.next() % 25 == 0:
            engine.handle(.input(.reset, at: time), into: &events)
        case 12: on(.uninstall)
        case 13: on(.reinstall)
        case 15:
            // A topic's next batch of copies (when the fleet sends fewer a batch than it has phones).
            engine.handle(.fanOut(at: time), into: &events)
        case 14:
            // The phone's first token, stale once refreshed or uninstalled: the token
            // map must still know whose it was.
            let first = engine.devices[index].issuedTokens[sender]?.first ?? "unknown"
            engine.handle(
                .input(
                    .push(
                        DownstreamRequest(
                            sender: sender, to: first, messageID: "old-\(step)", data: [KeyValue("n", "1")])), at: time),
                into: &events)
        default: engine.handle(.advance(to: time + 5_000), into: &events)
        }
        hand(to: store)
        return events
    }
}

@Suite("Each phone saved in a row of its own")
struct PhoneRowsTests {
    static func rows(_ store: DeviceStore) throws -> [Int] {
        try store.database.read { db in try Int.fetchAll(db, sql: "SELECT idx FROM phones ORDER BY idx") }
    }

    /// A fleet of `phones` started on a new state file: the store and its driver.
    static func started(
        _ state: TemporaryState, _ configuration: EngineConfiguration, checkpointEvery: Int = 20_000,
        finalCheckpointPhones: Int = DeviceStore.finalCheckpointPhones,
        replayablePhoneChanges: Int = DeviceStore.replayablePhoneChanges
    ) throws -> (DeviceStore, FleetDriver) {
        let (store, opening) = try StoreFixture.open(
            state, configuration: configuration, checkpointEvery: checkpointEvery,
            finalCheckpointPhones: finalCheckpointPhones, replayablePhoneChanges: replayablePhoneChanges)
        var driver = FleetDriver(engine: try #require(opening.newEngine), seed: 2)
        driver.start(into: store)
        return (store, driver)
    }

    /// Every phone subscribes to "news", a call each.
    static func subscribeAll(_ driver: inout FleetDriver, into store: DeviceStore) {
        var events: [Event] = []
        for phone in driver.engine.devices.map(\.name) {
            driver.engine.handle(
                .input(.on(device: phone, .subscribe(topic: "news", sender: nil)), at: 10), into: &events)
            driver.hand(to: store)
        }
    }

    /// A fleet started, `command` run on it, and closed: the driver as it stopped.
    @discardableResult
    static func saved(_ state: TemporaryState, _ configuration: EngineConfiguration, after command: Input) throws
        -> FleetDriver
    {
        let (store, opening) = try StoreFixture.open(state, configuration: configuration)
        var driver = FleetDriver(engine: try #require(opening.newEngine), seed: 6)
        driver.start(into: store)
        var events: [Event] = []
        driver.engine.handle(.input(command, at: 50), into: &events)
        driver.hand(to: store)
        store.close(final: driver.engine)
        return driver
    }

    @Test("a started fleet saves no phone (it is made again from its profile); a call to one phone saves that phone")
    func aCallToOnePhoneWritesThatPhone() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let configuration = FleetDriver.configuration(phones: 200)
        let (store, opening) = try StoreFixture.open(state, configuration: configuration)
        var driver = FleetDriver(engine: try #require(opening.newEngine), seed: 1)
        driver.start(into: store)
        store.close(final: driver.engine)

        let (second, resumed) = try StoreFixture.open(state, configuration: configuration)
        #expect(try Self.rows(second).isEmpty)
        guard case .resumed(let engine, _) = resumed else {
            Issue.record("the started fleet did not resume")
            return
        }
        StoreFixture.expectSame(driver.engine, engine)
        driver.engine = engine
        driver.engine = driver.engine.recording(true)
        var events: [Event] = []
        driver.engine.handle(.input(.on(device: "phone-7", .setNetwork(.offline)), at: 10), into: &events)
        driver.hand(to: second)
        second.close(final: driver.engine)
        #expect(try Self.rows(second) == [6], "phone-7 is the seventh phone; it alone was written")

        let (third, again) = try StoreFixture.open(state, configuration: configuration)
        defer { third.close(final: driver.engine) }
        guard case .resumed(let restored, _) = again else {
            Issue.record("the fleet did not resume")
            return
        }
        #expect(restored.devices[6].network == .offline && restored.devices[5].network == .online)
        StoreFixture.expectSame(driver.engine, restored)
    }

    @Test(
        "a fleet killed at random points comes back exactly, through checkpoints, joins and resets",
        arguments: [
            (seed: UInt64(3), checkpointEvery: 7), (seed: 4, checkpointEvery: 40), (seed: 5, checkpointEvery: 20_000),
        ])
    func aFleetResumesExactly(seed: UInt64, checkpointEvery: Int) throws {
        let state = TemporaryState()
        defer { state.clean() }
        var configuration = FleetDriver.configuration(phones: 12)
        // A topic to the whole fleet goes out in several inputs: a kill can fall between them.
        configuration.store.fanOutBatch = 2
        let (first, opening) = try StoreFixture.open(
            state, configuration: configuration, checkpointEvery: checkpointEvery)
        var driver = FleetDriver(engine: try #require(opening.newEngine), seed: seed)
        driver.start(into: first)
        var store = first
        for round in 0..<4 {
            for _ in 0..<(60 + round * 13) { _ = driver.next(into: store) }
            // Time passing that fires no timer is not journaled; the last call carries its time.
            var events: [Event] = []
            driver.engine.handle(.input(.on(.setDoze(false)), at: driver.time), into: &events)
            driver.hand(to: store)
            store.waitUntilDurable(store.appendedSeq)
            store.abandon()
            let (reopened, again) = try StoreFixture.open(
                state, configuration: configuration, checkpointEvery: checkpointEvery)
            store = reopened
            guard case .resumed(let restored, _) = again else {
                Issue.record("round \(round): the fleet did not resume")
                return
            }
            StoreFixture.expectSame(driver.engine, restored)
            // Both go on alike: the restored one takes the store from here.
            var twin = FleetDriver(engine: restored, seed: 0)
            twin.random = driver.random
            twin.time = driver.time
            twin.step = driver.step
            var copy = driver
            for _ in 0..<30 { #expect(copy.next(into: nil) == twin.next(into: nil)) }
            driver.engine = restored
            driver.engine = driver.engine.recording(true)
        }
        store.close(final: driver.engine)
        let (last, final) = try StoreFixture.open(state, configuration: configuration)
        defer { last.close(final: driver.engine) }
        guard case .resumed(let restored, let inputs) = final else {
            Issue.record("the fleet did not resume after a clean close")
            return
        }
        #expect(inputs == 0)
        StoreFixture.expectSame(driver.engine, restored)
    }

    @Test("a clean stop after a call that changed more phones than a last checkpoint saves leaves them to the journal")
    func aBigChangeIsLeftToTheJournal() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let configuration = FleetDriver.configuration(phones: 12)
        var (store, driver) = try Self.started(state, configuration, finalCheckpointPhones: 3)
        Self.subscribeAll(&driver, into: store)
        var events: [Event] = []
        let news = DownstreamRequest(sender: StoreFixture.sender, to: "/topics/news", data: [KeyValue("n", "1")])
        driver.engine.handle(.input(.push(news), at: 20), into: &events)
        driver.hand(to: store)
        // Time passes with no timer due, then the session stops: the clock must come back.
        driver.engine.handle(.stop(at: 90_000), into: &events)
        driver.hand(to: store)
        store.close(final: driver.engine)
        #expect(try Self.rows(store).isEmpty, "twelve phones changed, more than three: no row was written")

        let (second, resumed) = try StoreFixture.open(state, configuration: configuration, finalCheckpointPhones: 3)
        guard case .resumed(let engine, let replayed) = resumed else {
            Issue.record("the fleet did not resume")
            return
        }
        #expect(replayed == 15, "the start, the subscriptions, the message and the clock are replayed")
        #expect(engine.now == 90_000)
        StoreFixture.expectSame(driver.engine, engine)
        #expect(engine.devices.allSatisfy { $0.inbox.count == 1 })
        driver.engine = engine
        driver.engine = driver.engine.recording(true)
        driver.engine.handle(.input(.on(device: "phone-4", .setNetwork(.offline)), at: 90_030), into: &events)
        driver.engine.handle(.stop(at: 90_030), into: &events)
        driver.hand(to: second)
        second.close(final: driver.engine)
        // The journal replayed at opening counts: its twelve phones and phone-4 are saved
        // unless they are more than three; they are, so still no row, and all of it replays.
        #expect(try Self.rows(second).isEmpty)

        let (third, again) = try StoreFixture.open(state, configuration: configuration)
        guard case .resumed(let restored, let inputs) = again else {
            Issue.record("the fleet did not resume a second time")
            return
        }
        #expect(inputs == 17)
        StoreFixture.expectSame(driver.engine, restored)
        // With the default limit, a clean stop writes the twelve phones.
        third.close(final: restored)
        #expect(try Self.rows(third).count == 12)
        let (fourth, last) = try StoreFixture.open(state, configuration: configuration)
        defer { fourth.close(final: restored) }
        guard case .resumed(let final, let none) = last else {
            Issue.record("the fleet did not resume a third time")
            return
        }
        #expect(none == 0)
        StoreFixture.expectSame(restored, final)
    }

    @Test("calls that changed many phones in all make a checkpoint before they are long to replay")
    func manyPhoneChangesMakeACheckpoint() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let configuration = FleetDriver.configuration(phones: 12)
        var (store, driver) = try Self.started(
            state, configuration, finalCheckpointPhones: 3, replayablePhoneChanges: 30)
        Self.subscribeAll(&driver, into: store)
        var events: [Event] = []
        let first = DownstreamRequest(sender: StoreFixture.sender, to: "/topics/news", data: [KeyValue("n", "1")])
        driver.engine.handle(.input(.push(first), at: 20), into: &events)
        store.waitUntilDurable(driver.hand(to: store))
        // 12 subscriptions and 12 deliveries: 24 phone changes, under 30.
        #expect(try Self.rows(store).isEmpty)
        let second = DownstreamRequest(sender: StoreFixture.sender, to: "/topics/news", data: [KeyValue("n", "2")])
        driver.engine.handle(.input(.push(second), at: 30), into: &events)
        store.waitUntilDurable(driver.hand(to: store))
        #expect(try Self.rows(store).count == 12, "36 phone changes: a checkpoint wrote every phone")
        store.close(final: driver.engine)
        let (again, reopened) = try StoreFixture.open(state, configuration: configuration)
        defer { again.close(final: driver.engine) }
        guard case .resumed(let restored, let inputs) = reopened else {
            Issue.record("the fleet did not resume")
            return
        }
        #expect(inputs == 0)
        StoreFixture.expectSame(driver.engine, restored)
    }

    @Test("a checkpoint made while the one before waits to be written merges it, even after a reset made fewer phones")
    func pendingCheckpointsMergeAcrossAReset() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let configuration = FleetDriver.configuration(phones: 4)
        var (store, driver) = try Self.started(state, configuration, checkpointEvery: 1)
        store.waitUntilDurable(store.appendedSeq)
        store.writer.pause()
        var events: [Event] = []
        driver.engine.handle(
            .input(.addDevice(DeviceSpec(DeviceSettings(name: "tablet", seed: 1))), at: 10), into: &events)
        driver.hand(to: store)
        driver.engine.handle(.input(.on(device: "phone-2", .setNetwork(.offline)), at: 20), into: &events)
        driver.hand(to: store)
        driver.engine.handle(.input(.reset, at: 30), into: &events)
        driver.hand(to: store)
        driver.engine.handle(.input(.on(device: "phone-3", .setAppState(.background)), at: 40), into: &events)
        let last = driver.hand(to: store)
        store.writer.resume()
        store.waitUntilDurable(last)
        #expect(try Self.rows(store) == [0, 1, 2, 3], "the tablet's row is gone with it")
        store.abandon()
        let (again, reopened) = try StoreFixture.open(state, configuration: configuration)
        defer { again.close(final: driver.engine) }
        guard case .resumed(let restored, let inputs) = reopened else {
            Issue.record("the fleet did not resume")
            return
        }
        #expect(inputs == 0)
        StoreFixture.expectSame(driver.engine, restored)
        #expect(restored.devices.map(\.name) == ["phone-1", "phone-2", "phone-3", "phone-4"])
    }

    @Test("a field that was set as the fleet started and is nil now comes back nil (an offline phone back online)")
    func aFieldThatBecameNilStaysNil() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let configuration = FleetDriver.configuration(phones: 3, network: .offline)
        let driver = try Self.saved(state, configuration, after: .on(device: "phone-2", .setNetwork(.online)))
        let (again, reopened) = try StoreFixture.open(state, configuration: configuration)
        defer { again.close(final: driver.engine) }
        guard case .resumed(let restored, _) = reopened else {
            Issue.record("the fleet did not resume")
            return
        }
        // Every field of every phone, as a whole phone encodes it.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(restored.devices) == encoder.encode(driver.engine.devices))
        #expect(restored.devices[1].network == .online && restored.devices[0].network == .offline)
    }

    @Test("a saved phone that does not decode is named, with what to do")
    func aBrokenRowIsNamed() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let configuration = FleetDriver.configuration(phones: 5)
        try Self.saved(state, configuration, after: .on(device: "phone-3", .setAppState(.background)))
        let database = try DatabaseQueue(path: state.path)
        try database.write { db in try db.execute(sql: "UPDATE phones SET phone = x'7b22' WHERE idx = 2") }
        try database.close()
        #expect {
            _ = try StoreFixture.open(state, configuration: configuration)
        } throws: { error in
            "\(error)".contains("saved phone 2 does not decode") && "\(error)".contains("--fresh")
        }
    }
}

/// A state file a release wrote (`Fixtures/NAME.sqlite`, from the profile beside it),
/// copied to `state` and opened as `serve` opens it.
enum ReleaseFixture {
    static func open(_ name: String, into state: TemporaryState) throws
        -> (peeked: DeviceEngine, store: DeviceStore, opening: DeviceStore.Opening)
    {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name).sqlite")
        try FileManager.default.copyItem(atPath: fixture.path, toPath: state.path)
        let peeked = try #require(try DeviceStore.peek(path: state.path))
        let (store, opening) = try reopen(state, peeked.configuration)
        return (peeked, store, opening)
    }

    /// `engine` changed by `entry` and saved, then opened again after a clean close:
    /// the events, the store opened again, and the engine changed.
    static func change(
        _ engine: DeviceEngine, _ entry: JournalEntry, store: DeviceStore, state: TemporaryState,
        configuration: EngineConfiguration
    ) throws -> (events: [Event], store: DeviceStore, changed: DeviceEngine) {
        var changed = engine.recording(true)
        var events: [Event] = []
        changed.handle(entry, into: &events)
        let taken = changed.takeRecorded()
        store.waitUntilDurable(store.append(taken.inputs, changedPhones: taken.changedPhones, engine: changed))
        store.close(final: changed)
        return (events, try expectResumedAsClosed(state, configuration, changed), changed)
    }

    /// Opened again after a clean close: the fleet `engine` was, with nothing to replay.
    static func expectResumedAsClosed(
        _ state: TemporaryState, _ configuration: EngineConfiguration, _ engine: DeviceEngine
    ) throws -> DeviceStore {
        let (store, reopened) = try reopen(state, configuration)
        guard case .resumed(let restored, let replayed) = reopened else {
            Issue.record("the file did not resume after a clean close")
            return store
        }
        #expect(replayed == 0)
        StoreFixture.expectSame(engine, restored)
        return store
    }

    static func reopen(_ state: TemporaryState, _ configuration: EngineConfiguration) throws
        -> (DeviceStore, DeviceStore.Opening)
    {
        try DeviceStore.open(
            path: state.path, configuration: configuration, seedNamed: true,
            onFailure: { Issue.record("write failed: \($0)") })
    }
}

@Suite("A fleet saved by the release of state format 6")
struct FormatSixTests {
    @Test("a fleet saved in state format 6 (snapshot and journal) opens, resumes exactly, and is migrated to rows")
    func formatSixIsMigrated() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (peeked, store, opening) = try ReleaseFixture.open("format-6", into: state)
        #expect(peeked.devices.map(\.name) == ["pixel", "iphone", "browser"])
        guard case .resumed(let engine, let inputs) = opening else {
            Issue.record("the format 6 file did not resume its fleet")
            store.close(final: peeked)
            return
        }
        // Written by the release of format 6 (`serve --profile Fixtures/format-6-profile.yaml`,
        // stopped, served again, two legacy sends, killed with SIGKILL): a snapshot and four
        // journal entries after it.
        #expect(inputs == 4)
        StoreFixture.expectSame(peeked, engine)
        let (pixel, iphone, browser) = (engine.devices[0], engine.devices[1], engine.devices[2])
        #expect(pixel.tokens["123456789012"]?.hasPrefix("B4OMHJ62XfM:APA91b") == true)
        #expect(pixel.topics["123456789012"] == ["news"])
        #expect(engine.server.awaitingAck.map(\.message.id) == ["m-1"])
        #expect(iphone.network == .offline && iphone.stored.count == 1)
        #expect(browser.platform == .web && browser.tray.map(\.title) == ["Web hello"])
        let rows = try store.database.read { db in try Int.fetchAll(db, sql: "SELECT idx FROM phones ORDER BY idx") }
        #expect(rows == [0, 1, 2], "every phone of a migrated file has its row")
        store.close(final: engine)

        let again = try ReleaseFixture.expectResumedAsClosed(state, peeked.configuration, engine)
        defer { again.close(final: engine) }
        let format = try again.database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'")
        }
        #expect(format == String(DeviceStore.format))
    }
}

@Suite("A fleet saved by the release of state format 7")
struct FormatSevenTests {
    @Test("a fleet saved in state format 7 (rows in JSON) opens, resumes exactly, and mixes JSON and compact rows")
    func formatSevenOpens() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (peeked, store, opening) = try ReleaseFixture.open("format-7", into: state)
        #expect(peeked.devices.map(\.name) == ["pixel", "iphone", "browser"])
        guard case .resumed(let engine, let inputs) = opening else {
            Issue.record("the format 7 file did not resume its fleet")
            store.close(final: peeked)
            return
        }
        // Written by the release of format 7 (`serve --profile Fixtures/format-7-profile.yaml`,
        // stopped: rows in JSON for the pixel and the iPhone; served again, a legacy data
        // message to the pixel and a notification to the browser, killed with SIGKILL).
        #expect(inputs == 4)
        StoreFixture.expectSame(peeked, engine)
        let (pixel, iphone, browser) = (engine.devices[0], engine.devices[1], engine.devices[2])
        #expect(pixel.tokens["123456789012"]?.hasPrefix("B4OMHJ62XfM:APA91b") == true)
        #expect(pixel.topics["123456789012"] == ["news"])
        #expect(pixel.inbox.contains { $0.data.contains(KeyValue("n", "1")) })
        #expect(engine.server.awaitingAck.map(\.message.id) == ["m-1"])
        #expect(iphone.network == .offline && iphone.deletedCount == 0)
        #expect(browser.platform == .web && browser.tray.map(\.title) == ["Web hello"])
        func rowStarts() throws -> [UInt8] {
            try store.database.read { db in
                try Data.fetchAll(db, sql: "SELECT phone FROM phones ORDER BY idx").map { $0.first ?? 0 }
            }
        }
        #expect(try rowStarts() == [UInt8(ascii: "{"), UInt8(ascii: "{")], "rows stay as saved until they change")
        store.close(final: engine)
        // The pixel and the browser changed since: saved compactly; the iPhone's row is JSON still.
        #expect(try rowStarts() == [PhoneCoder.compactMark, UInt8(ascii: "{"), PhoneCoder.compactMark])

        try ReleaseFixture.expectResumedAsClosed(state, peeked.configuration, engine).close(final: engine)
    }
}

@Suite("A fleet saved by the release of state format 8")
struct FormatEightTests {
    @Test(
        "a fleet saved in state format 8 (every token issued kept) opens with its old tokens retired, keeps them when its phones change, and is saved in the current format"
    )
    func formatEightRetiresOldTokens() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (peeked, store, opening) = try ReleaseFixture.open("format-8", into: state)
        guard case .resumed(let engine, _) = opening else {
            Issue.record("the format 8 file did not resume its fleet")
            store.close(final: peeked)
            return
        }
        // Written by the release of format 8 (`serve --profile Fixtures/format-8-profile.yaml`,
        // stopped after its timeline): the pixel refreshed one sender's token twice, the
        // browser deleted its token for the other sender (both rows hold the fields that
        // changed), and a tablet joined and refreshed both (its row holds every field).
        StoreFixture.expectSame(peeked, engine)
        let (a, b) = ("123456789012", "998877665544")
        let (pixel, browser, tablet) = (engine.devices[0], engine.devices[1], engine.devices[2])
        let retired = try #require(pixel.retiredTokens[a])
        #expect(retired.map { String($0.prefix(23)) } == ["kE9GKEkyLH3:APA91bU2LKC", "kE9GKEkyLH3:APA91brSmpf"])
        #expect(pixel.tokens[a]?.hasPrefix("kE9GKEkyLH3:APA91bSwf3x") == true && pixel.retiredTokens[b] == nil)
        #expect(engine.issuedToken(of: a, onPhoneAt: 0, back: 1) == retired[1])
        #expect(engine.everOwner(of: retired[0]) == a && engine.activeOwner(of: retired[0]) == nil)
        let deleted = try #require(browser.retiredTokens[b]?.first)
        #expect(deleted.hasPrefix("tv6A3NVz60y:APA91b_NVLn") && browser.tokens[b] == nil)
        #expect(engine.everOwner(of: deleted) == b && engine.device(holding: deleted) == 1)
        #expect(browser.tokens[a] != nil && browser.retiredTokens[a] == nil)
        #expect(tablet.name == "tablet" && tablet.tokens[a]?.hasPrefix("MBdou-ddwN6:APA91b817hn") == true)
        #expect(
            tablet.retiredTokens.mapValues { $0.map { String($0.prefix(23)) } } == [
                a: ["MBdou-ddwN6:APA91bG5eOM"], b: ["MBdou-ddwN6:APA91bBBl8y"],
            ])

        // The pixel changes otherwise: its row is saved again, its retired tokens with it.
        var changed = engine
        changed = changed.recording(true)
        var events: [Event] = []
        changed.handle(.input(.on(device: "pixel", .setAppState(.foreground)), at: engine.now + 10), into: &events)
        let taken = changed.takeRecorded()
        store.waitUntilDurable(store.append(taken.inputs, changedPhones: taken.changedPhones, engine: changed))
        store.close(final: changed)
        #expect(changed.devices[0].retiredTokens[a] == retired)

        let again = try ReleaseFixture.expectResumedAsClosed(state, peeked.configuration, changed)
        defer { again.close(final: changed) }
        let format = try again.database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'")
        }
        #expect(format == "10")
    }
}

@Suite("A device saved by the release of state format 9")
struct FormatNineTests {
    @Test(
        "a device the release of format 9 journaled and was killed before a checkpoint (phone commands written bare) replays its journal, changes and is saved again"
    )
    func formatNineJournalReplays() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (peeked, store, opening) = try ReleaseFixture.open("format-9", into: state)
        guard case .resumed(let engine, let replayed) = opening else {
            Issue.record("the format 9 file did not resume")
            store.close(final: peeked)
            return
        }
        // Written by the release of format 9 (`serve --profile Fixtures/format-9-profile.yaml`,
        // killed with SIGKILL a moment after its timeline): nothing was checkpointed, so
        // the whole session is its journal, each command for the only phone written bare.
        #expect(replayed == 12)
        let sender = "123456789012"
        let pixel = engine.devices[0]
        #expect(pixel.network == .online && pixel.appState == .foreground)
        #expect(pixel.retiredTokens[sender]?.count == 1 && pixel.tokens[sender] != nil)
        #expect(pixel.topics[sender] == ["news"])
        #expect(pixel.inbox.map(\.id) == ["held-1", "now-1"])
        #expect(pixel.stored.isEmpty && pixel.pending.isEmpty)

        let (events, again, changed) = try ReleaseFixture.change(
            engine, .input(.on(.setNetwork(.offline)), at: engine.now + 10), store: store, state: state,
            configuration: peeked.configuration)
        again.close(final: changed)
        #expect(events.map(\.name) == ["networkChanged"])
    }

    @Test(
        "an app server's topic, group and fault calls, each an entry of its own in format 9, replay as inputs; the file changes and is saved in the current format"
    )
    func formatNineCallsReplay() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (peeked, store, opening) = try ReleaseFixture.open("format-9-calls", into: state)
        guard case .resumed(let engine, let replayed) = opening else {
            Issue.record("the format 9 file did not resume")
            store.close(final: peeked)
            return
        }
        // Written by the release of format 9 (`serve --profile Fixtures/format-9-calls-profile.yaml`,
        // then over HTTP: an IID topic add, a group create, a 503 fault and the send it
        // answered, a send, a topic send and a group send; killed with SIGKILL).
        #expect(replayed == 9)
        let sender = "123456789012"
        let pixel = engine.devices[0]
        #expect(pixel.topics[sender] == ["news"])
        #expect(engine.server.groups.map(\.name) == ["family"])
        #expect(engine.server.groups.first?.members.count == 1)
        // The faulted send never reached the phone; the fault was used up.
        #expect(pixel.inbox.compactMap { $0.data.first?.value } == ["2", "3", "4"])
        #expect(engine.server.faults.isEmpty)

        let order = TopicOrder(
            sender: sender, topic: "sport", tokens: [pixel.tokens[sender] ?? ""], change: .add, api: .iid)
        let (events, again, changed) = try ReleaseFixture.change(
            engine, .input(.topics(order), at: engine.now + 10), store: store, state: state,
            configuration: peeked.configuration)
        defer { again.close(final: changed) }
        #expect(events.map(\.name) == ["topicSubscribed"])
        let format = try again.database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'")
        }
        #expect(format == "10")
    }
}
