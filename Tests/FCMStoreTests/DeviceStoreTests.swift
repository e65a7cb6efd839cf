import FCMEngine
import Foundation
import GRDB
import Testing

@testable import FCMStore

@Suite("The device's state file")
struct DeviceStoreTests {
    @Test("a device killed after its last write comes back exactly, and goes on as the original would")
    func resumesExactly() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (store, opening) = try StoreFixture.open(state)
        guard case .new(let engine) = opening else {
            Issue.record("an empty folder opened as a saved device")
            return
        }
        var driver = SessionDriver(configuration: engine.configuration, seed: 5)
        driver.start(into: store)
        var seq: Int64 = 0
        for _ in 0..<400 { _ = driver.next(into: store) }
        // Time passing that fires no timer is not journaled; the last call carries its time.
        var events: [Event] = []
        driver.engine.handle(.input(.on(.setDoze(false)), at: driver.time), into: &events)
        seq = driver.hand(to: store)
        store.waitUntilDurable(max(seq, store.appendedSeq))
        store.abandon()

        let (reopened, again) = try StoreFixture.open(state)
        defer { reopened.close(final: driver.engine) }
        guard case .resumed(var restored, let inputs) = again else {
            Issue.record("the saved device was not found")
            return
        }
        #expect(inputs > 300)
        StoreFixture.expectSame(driver.engine, restored)
        #expect(!driver.engine.devices[0].inbox.isEmpty && !driver.engine.devices[0].tokens.isEmpty)
        #expect(!driver.engine.server.owedReceipts.isEmpty)

        // Both go on with the same calls: the same events, ids and tokens come out.
        var twin = driver
        twin.engine = restored
        for _ in 0..<200 {
            #expect(driver.next(into: nil) == twin.next(into: nil))
        }
        restored = twin.engine
        StoreFixture.expectSame(driver.engine, restored)
    }

    @Test("checkpoints replace the journal as it grows, and a restart reads the checkpoint plus the journal")
    func checkpointsKeepTheJournalShort() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (store, _) = try StoreFixture.open(state, checkpointEvery: 50)
        var driver = SessionDriver(configuration: StoreFixture.configuration(), seed: 9)
        driver.start(into: store)
        for _ in 0..<333 { _ = driver.next(into: store) }
        store.waitUntilDurable(store.appendedSeq)
        let (journalRows, checkpointSeq) = try store.database.read { db in
            (
                // The first entry (the fleet's start) stays: it makes the phones no row holds.
                try Int.fetchOne(db, sql: "SELECT count(*) FROM journal WHERE seq > 1") ?? -1,
                try Int64.fetchOne(db, sql: "SELECT seq FROM server") ?? -1
            )
        }
        #expect(checkpointSeq > 250)
        #expect(journalRows < 50 + 10)
        store.abandon()

        let (reopened, opening) = try StoreFixture.open(state)
        defer { reopened.close(final: driver.engine) }
        guard case .resumed(let restored, let inputs) = opening else {
            Issue.record("the saved device was not found")
            return
        }
        #expect(inputs == journalRows)
        StoreFixture.expectSame(driver.engine, restored)
    }

    @Test(
        "after a simulated kill nothing more is counted as appended, so nothing waits for the disk forever",
        .timeLimit(.minutes(1)))
    func nothingWaitsOnAnAbandonedJournal() async throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (store, _) = try StoreFixture.open(state)
        var driver = SessionDriver(configuration: StoreFixture.configuration(), seed: 9)
        driver.start(into: store)
        for _ in 0..<20 { _ = driver.next(into: store) }
        store.abandon()
        let last = store.appendedSeq
        #expect(store.isDurable(last), "what was queued at the kill was written")
        for _ in 0..<5 { _ = driver.next(into: store) }
        #expect(store.appendedSeq == last, "inputs after the kill are not journaled")
        await store.durable(store.appendedSeq)
    }

    @Test("a clean close leaves a checkpoint and nothing of the journal to replay")
    func closeWritesACheckpoint() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (store, _) = try StoreFixture.open(state)
        var driver = SessionDriver(configuration: StoreFixture.configuration(), seed: 3)
        driver.start(into: store)
        for _ in 0..<60 { _ = driver.next(into: store) }
        store.close(final: driver.engine)
        let (reopened, opening) = try StoreFixture.open(state)
        defer { reopened.close(final: driver.engine) }
        guard case .resumed(let restored, let inputs) = opening else {
            Issue.record("the saved device was not found")
            return
        }
        #expect(inputs == 0)
        StoreFixture.expectSame(driver.engine, restored)
    }

    @Test("a fleet with web apps (one without notification permission) saves and resumes exactly")
    func webAppsResume() throws {
        let state = TemporaryState()
        defer { state.clean() }
        var configuration = StoreFixture.configuration()
        var browser = DeviceSettings(name: "browser", platform: .web, app: "https://app.example.com", seed: 11)
        browser.state = .background
        var blocked = DeviceSettings(name: "blocked", platform: .web, app: "https://app.example.com", seed: 12)
        blocked.permission = .denied
        configuration.devices = [DeviceSpec(browser), DeviceSpec(blocked)]
        configuration.device = browser
        let (store, _) = try StoreFixture.open(state, configuration: configuration)
        var driver = SessionDriver(configuration: configuration, seed: 5)
        driver.start(into: store)
        for _ in 0..<40 { _ = driver.next(into: store) }
        store.close(final: driver.engine)
        let (reopened, opening) = try StoreFixture.open(state, configuration: configuration)
        defer { reopened.close(final: driver.engine) }
        guard case .resumed(let restored, _) = opening else {
            Issue.record("the saved fleet was not found")
            return
        }
        StoreFixture.expectSame(driver.engine, restored)
        #expect(restored.devices.map(\.platform) == [.web, .web])
        #expect(restored.devices[1].settings.permission == .denied)
        #expect(restored.devices[1].tokens.isEmpty, "no permission, no token")
    }

    @Test("--fresh starts over: a new engine and nothing of the old journal")
    func freshStartsOver() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (store, _) = try StoreFixture.open(state)
        var driver = SessionDriver(configuration: StoreFixture.configuration(), seed: 3)
        driver.start(into: store)
        for _ in 0..<20 { _ = driver.next(into: store) }
        store.close(final: driver.engine)
        let (reopened, opening) = try StoreFixture.open(state, fresh: true)
        defer { reopened.close(final: driver.engine) }
        guard case .new(let engine) = opening else {
            Issue.record("--fresh resumed the old device")
            return
        }
        #expect(engine.devices[0].tokens.isEmpty && engine.devices[0].inbox.isEmpty && engine.now == 0)
    }

    @Test("a second emulator on the same state is refused, naming the holder")
    func oneWriterAtATime() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (store, opening) = try StoreFixture.open(state)
        let engine = try #require(opening.newEngine, "an empty folder opened as a saved device")
        defer { store.close(final: engine) }
        #expect {
            _ = try StoreFixture.open(state)
        } throws: { error in
            guard case StoreError.inUse(_, let holder) = error else { return false }
            return holder.contains("\(getpid())")
        }
    }

    @Test("other device settings are refused with the difference; a new random seed or --no-echo is not")
    func settingsMustMatch() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (store, _) = try StoreFixture.open(state)
        var driver = SessionDriver(configuration: StoreFixture.configuration(), seed: 3)
        driver.start(into: store)
        store.close(final: driver.engine)

        var otherSenders = StoreFixture.configuration()
        otherSenders.senders.append(SenderConfig(id: StoreFixture.other, key: "key-b"))
        #expect {
            _ = try StoreFixture.open(state, configuration: otherSenders)
        } throws: { error in
            "\(error)".contains("senders 123456789012 were saved, the profile has 123456789012,998877665544")
                && "\(error)".contains("--fresh")
        }

        let (reopened, opening) = try StoreFixture.open(
            state, configuration: StoreFixture.configuration(seed: 999, appServer: .echo))
        guard case .resumed(let restored, _) = opening else {
            Issue.record("a new random seed made the saved device unusable")
            return
        }
        #expect(restored.configuration.device.seed == 11)
        // The run's echo mode differs without refusing the device; the session sets it
        // through the front door (RunSwitchTests), not the store.
        #expect(
            restored.configuration.switchCommands(to: StoreFixture.configuration(seed: 999, appServer: .echo))
                == [.setAppServerMode(.echo)])
        #expect(restored.devices[0].tokens == driver.engine.devices[0].tokens)
        reopened.close(final: restored)
    }

    @Test("a fleet without a named seed resumes with new random seeds; other phones are refused, naming them")
    func aFleetsRandomSeedsAreNotAChange() throws {
        let state = TemporaryState()
        defer { state.clean() }
        func fleet(base: UInt64, names: [String] = ["pixel", "iphone"]) -> EngineConfiguration {
            var configuration = StoreFixture.configuration(seed: base)
            configuration.devices = names.enumerated().map { index, name in
                DeviceSpec(DeviceSettings(name: name, seed: base &+ UInt64(index)))
            }
            configuration.device = configuration.devices[0].settings
            return configuration
        }
        let (store, opening) = try StoreFixture.open(state, configuration: fleet(base: 40))
        var engine = try #require(opening.newEngine)
        engine = engine.recording(true)
        var events: [Event] = []
        engine.handle(.start(at: 0), into: &events)
        let taken = engine.takeRecorded()
        store.append(taken.inputs, changedPhones: taken.changedPhones, engine: engine)
        store.close(final: engine)

        let (reopened, again) = try StoreFixture.open(state, configuration: fleet(base: 7_000))
        guard case .resumed(let restored, _) = again else {
            Issue.record("a fleet's new random seeds made the saved device unusable")
            return
        }
        #expect(restored.devices.map(\.tokens) == engine.devices.map(\.tokens))
        reopened.close(final: restored)

        #expect {
            _ = try StoreFixture.open(state, configuration: fleet(base: 7_000, names: ["pixel", "tablet"]))
        } throws: { error in
            "\(error)".contains("the phones differ") && "\(error)".contains("pixel, iphone were saved")
        }
    }

    @Test("a file that is not a state file is named, with what to do")
    func garbageIsNamed() throws {
        let state = TemporaryState()
        defer { state.clean() }
        try Data("this is not sqlite at all, just some text that goes on".utf8).write(
            to: URL(fileURLWithPath: state.path))
        #expect {
            _ = try StoreFixture.open(state)
        } throws: { error in
            "\(error)".contains(state.path) && "\(error)".contains("--fresh")
        }
        // The lock was let go: --fresh works at once.
        let (store, opening) = try StoreFixture.open(state, fresh: true)
        let engine = try #require(opening.newEngine, "an empty folder opened as a saved device")
        store.close(final: engine)
    }

    @Test("nothing is reported durable before its transaction committed")
    func durableMeansCommitted() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (store, _) = try StoreFixture.open(state)
        var driver = SessionDriver(configuration: StoreFixture.configuration(), seed: 4)
        driver.start(into: store)
        let observed = Observed()
        for _ in 0..<200 {
            _ = driver.next(into: store)
            let seq = store.appendedSeq
            store.whenDurable(seq) {
                let rows =
                    (try? store.database.read { db in
                        try Int64.fetchOne(db, sql: "SELECT max(seq) FROM journal")
                    }) ?? nil
                observed.add(seq: seq, committed: rows ?? 0)
            }
        }
        store.waitUntilDurable(store.appendedSeq)
        let pairs = observed.all
        #expect(pairs.count == 200)
        #expect(pairs.allSatisfy { $0.committed >= $0.seq })
        store.close(final: driver.engine)
    }
}

final class Observed: @unchecked Sendable {
    private let lock = NSLock()
    private var pairs: [(seq: Int64, committed: Int64)] = []
    func add(seq: Int64, committed: Int64) { lock.withLock { pairs.append((seq, committed)) } }
    var all: [(seq: Int64, committed: Int64)] { lock.withLock { pairs } }
}

@Suite("State files of other versions")
struct StateFormatTests {
    @Test("a file saved in another state format is refused, naming both formats and --fresh")
    func otherFormatIsNamed() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let (store, opening) = try StoreFixture.open(state)
        let engine = try #require(opening.newEngine, "an empty folder opened as a saved device")
        store.close(final: engine)
        let database = try DatabaseQueue(path: state.path)
        try database.write { db in try db.execute(sql: "UPDATE meta SET value = '1' WHERE key = 'format'") }
        try database.close()
        #expect {
            _ = try StoreFixture.open(state)
        } throws: { error in
            "\(error)".contains("saved in state format 1, which this version cannot migrate")
                && "\(error)".contains("--fresh")
        }
    }

    @Test("a file saved in state format 2 opens, resumes its device, and is migrated to the current format")
    func formatTwoIsMigrated() throws {
        let state = TemporaryState()
        defer { state.clean() }
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/format-2.sqlite")
        try FileManager.default.copyItem(atPath: fixture.path, toPath: state.path)
        let peeked = try #require(try DeviceStore.peek(path: state.path))
        #expect(peeked.devices[0].tokens["123456789012"]?.isEmpty == false)
        #expect(peeked.server.links.byID.isEmpty)
        let (store, opening) = try DeviceStore.open(
            path: state.path, configuration: peeked.configuration, seedNamed: true, fresh: false,
            checkpointEvery: 20_000, onFailure: { Issue.record("write failed: \($0)") })
        guard case .resumed(let engine, let inputs) = opening else {
            Issue.record("the format 2 file did not resume its device")
            store.close(final: peeked)
            return
        }
        // The file was written by the release before format 3 (`serve --profile
        // Fixtures/format-2-profile.yaml`, killed with SIGKILL 2.5 s in): a snapshot and
        // eight journal entries.
        #expect(inputs == 8)
        #expect(engine.devices[0].tokens == peeked.devices[0].tokens)
        #expect(engine.devices[0].tokens["123456789012"]?.hasPrefix("9NPw3EzNVGy:APA91b") == true)
        #expect(engine.server.awaitingAck.map(\.message.id).sorted() == ["m-1", "m-2"])
        #expect(engine.devices[0].pending.map(\.id) == ["m-3"])
        #expect(engine.devices[0].stored.map(\.id) == ["d-1"])
        #expect(engine.devices[0].network == .offline)
        store.close(final: engine)
        let database = try DatabaseQueue(path: state.path)
        let format = try database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'")
        }
        #expect(format == String(DeviceStore.format))
        try database.close()
    }
}
