import FCMEngine
import FCMProfiles
import Synchronization
import Testing

@testable import FCMDoor

/// A profile's timeline goes through the session's front door as every door's inputs
/// do: its steps due by a submission's time play in it, before the submission's own
/// inputs, as they would have on time.
@Suite("A timeline through the front door")
struct TimelineThroughSubmitTests {
    static let profile = """
        version: 1
        device: { name: pixel, seed: 4 }
        senders:
          - { id: "111", key: k }
        timeline:
          - at: 5s
            network: offline
          - at: 6s
            expect: { event: networkChanged }

        """

    final class Log: Sendable {
        let events = Mutex<[Event]>([])
        func add(_ event: Event) -> Int64 {
            events.withLock {
                $0.append(event)
                return Int64($0.count)
            }
        }
        var all: [Event] { events.withLock { $0 } }
    }

    @Test func aDoorsSubmissionPlaysTheStepsDueBeforeItsInputsAndAnswersOnlyItsOwnEvents() throws {
        let profile = try ProfileParser.parse(Self.profile, file: "t.yaml")
        let log = Log()
        let host = DeviceHost(engine: DeviceEngine(profile.configuration), loop: ManualLoop()) { log.add($0) }
        host.start()
        host.play(profile.steps)
        #expect(!log.all.contains { $0.kind == .networkChanged }, "nothing is due at +0 but the start")
        // The clock passes both steps without the loop running their timer: a door's
        // submission at +7 s finds them due.
        host.clock.moveOn(by: 7_000)
        let submission = host.submit { _, time in [.input(.on(device: "pixel", .setDoze(true)), at: time)] }
        let kinds = log.all.map(\.kind)
        let offline = try #require(kinds.firstIndex(of: .networkChanged))
        let held = try #require(kinds.firstIndex(of: .expectationHeld))
        let doze = try #require(kinds.firstIndex(of: .dozeChanged))
        #expect(offline < held && held < doze, "the steps first, in order, then the door's input")
        #expect(submission.events.map(\.kind) == [.dozeChanged], "the submission answers its own events")
        #expect(submission.firstSeq == Int64(doze + 1))
        #expect(host.unreachedExpectations.steps.isEmpty)
    }

    @Test func theTimerPlaysAStepThroughTheSameDoor() throws {
        let profile = try ProfileParser.parse(Self.profile, file: "t.yaml")
        let log = Log()
        let loop = ManualLoop()
        let host = DeviceHost(engine: DeviceEngine(profile.configuration), loop: loop) { log.add($0) }
        host.start()
        host.box.startRecording()
        host.play(profile.steps)
        #expect(loop.nextDue == 5_000, "the timer is armed for the first step")
        loop.run(until: 5_000)
        #expect(log.all.last?.kind == .networkChanged)
        loop.run(until: 6_000)
        #expect(log.all.last?.kind == .expectationHeld)
        // The step's input is recorded as every door's is (`w` saves it).
        let recorded = host.box.recorded.contains {
            if case .input(.on(_, .setNetwork(.offline)), _) = $0 { true } else { false }
        }
        #expect(recorded)
    }
}
