import FCMEngine
import FCMProfiles
import Foundation
import Testing

/// The profiles shipped in profiles/, found from this file's place in the package.
enum ShippedProfiles {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("profiles")

    static var paths: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map { directory.appendingPathComponent($0).path }
    }
}

@Suite("Replay")
struct ReplayTests {
    @Test func atLeastTenScenariosShip() {
        #expect(ShippedProfiles.paths.count >= 10)
    }

    @Test("every step of a shipped tour is narrated: play mode shows a note, never a raw step")
    func everyTourStepHasANote() throws {
        let tours = ShippedProfiles.paths.filter { $0.hasSuffix(".yaml") && $0.contains("/tour-") }
        #expect(tours.count == 4)
        for path in tours {
            let profile = try ProfileParser.load(path: path)
            let bare = profile.steps.filter { $0.note == nil }.map { "\($0.location)" }
            #expect(bare.isEmpty, "steps without a note: \(bare)")
        }
    }

    @Test(arguments: ShippedProfiles.paths)
    func shippedProfileReplaysGreen(path: String) throws {
        let profile = try ProfileParser.load(path: path)
        let result = Replayer.run(profile)
        #expect(profile.expectationCount > 0, "\(path) has no expect steps")
        for failure in result.failures {
            Issue.record("\(failure.step.location): \(failure.expectation.summary): \(failure.detail ?? "")")
        }
        #expect(result.passed)
    }

    @Test func everyEventNameLeavesItsFieldsInOneColumn() {
        let columns = Set(
            EventName.allCases.map { name in
                let line = TranscriptFormatter.line(
                    Event(at: 0, side: .device, kind: name, fields: [Field("id", .string("x"))]))
                return line.range(of: " id=x").map { line.distance(from: line.startIndex, to: $0.lowerBound) }
            })
        #expect(columns.count == 1, "fields start at columns \(columns)")
    }

    @Test func replayIsDeterministic() throws {
        let path = try #require(ShippedProfiles.paths.first { $0.hasSuffix("store-and-collapse.yaml") })
        let profile = try ProfileParser.load(path: path)
        #expect(Replayer.run(profile).events == Replayer.run(profile).events)
    }

    @Test func theBuiltInDefaultReplaysGreen() {
        let result = Replayer.run(DefaultProfile.load())
        #expect(result.passed)
        #expect(result.checks.count == 2)
    }

    static let base = """
        version: 1
        device: { seed: 1 }
        senders:
          - { id: "1", key: k }
        upstream:
          batch: { window: 1s, max: 10 }
        timeline:

        """

    func replay(_ steps: String) throws -> ReplayResult {
        Replayer.run(try ProfileParser.parse(Self.base + steps, file: "t.yaml"))
    }

    @Test func failedExpectSaysWhatHappenedInstead() throws {
        let result = try replay(
            """
              - at: 0s
                send: { sender: "1", id: a, ttl: 0 }
              - at: 2s
                expect: { event: onMessageSent, ids: [b] }
            """)
        let failure = try #require(result.failures.first)
        #expect(failure.step.location.line == 10)
        #expect(failure.detail?.contains("ids=a") == true)
    }

    @Test func anEventIsClaimedByOneExpectOnly() throws {
        let result = try replay(
            """
              - at: 0s
                send: { sender: "1", id: a }
              - at: 0s
                expect: { event: upstreamForwarded }
              - at: 0s
                expect: { event: upstreamForwarded }
            """)
        #expect(result.checks.map(\.passed) == [true, false])
    }

    @Test func expectSeesOnlyWhatHappenedByItsTime() throws {
        let result = try replay(
            """
              - at: 0s
                send: { sender: "1", id: a }
              - at: 500ms
                expect: { event: onMessageSent }
              - at: 1s
                expect: { event: onMessageSent }
            """)
        #expect(result.checks.map(\.passed) == [false, true])
    }

    @Test func theRunnerKeepsEventsOnlyWhileAnExpectationIsLeftToPlay() throws {
        let profile = try ProfileParser.parse(
            Self.base + """
                  - at: 0s
                    send: { sender: "1", id: a }
                  - at: 1s
                    expect: { event: upstreamForwarded, id: a }
                  - at: 2s
                    send: { sender: "1", id: b }
                """, file: "t.yaml")
        var engine = DeviceEngine(profile.configuration)
        var runner = ScenarioRunner(steps: profile.steps)
        var events: [Event] = []
        engine.handle(.start(at: 0), into: &events)
        runner.observe(events)
        runner.playNext(on: &engine, into: &events)
        let check = runner.playNext(on: &engine, into: &events)
        #expect(check?.passed == true)
        let keptAtTheLastExpectation = runner.seen.count
        // Everything that happened by then, the check's own event aside.
        #expect(keptAtTheLastExpectation == events.count { $0.side != .check })
        runner.playNext(on: &engine, into: &events)
        #expect(events.contains { $0.string("id") == "b" })
        #expect(runner.seen.count == keptAtTheLastExpectation)
    }

    @Test func expectNoneFailsWhenTheEventHappened() throws {
        let result = try replay(
            """
              - at: 0s
                send: { sender: "1", id: a }
              - at: 0s
                expect_none: { event: upstreamForwarded, id: a }
            """)
        #expect(result.failures.first?.detail?.contains("upstreamForwarded") == true)
    }

    @Test func replayRunsTimersToTheEndAfterTheLastStep() throws {
        let result = try replay(
            """
              - at: 0s
                network: offline
              - at: 0s
                send: { sender: "1", id: a, ttl: 28d }
            """)
        #expect(result.events.last?.name == "onSendError")
        #expect(result.events.last?.at == 28 * Span.day)
    }

    @Test func endStopsTheReplayEarly() throws {
        let text =
            Self.base.replacingOccurrences(of: "timeline:", with: "end: 1m\ntimeline:")
            + "  - at: 0s\n    network: offline\n  - at: 0s\n    send: { sender: \"1\", id: a, ttl: 1h }\n"
        let result = Replayer.run(try ProfileParser.parse(text, file: "t.yaml"))
        #expect(!result.events.contains { $0.name == "onSendError" })
    }
}

@Suite("Transcript")
struct TranscriptTests {
    static let event = Event(
        at: 1_000, side: .device, kind: .onMessageSent,
        fields: [Field("ids", .list(["m-1", "m-2"])), Field("count", .int(2))])

    @Test func humanLineIsAligned() {
        #expect(
            TranscriptFormatter.line(Self.event)
                == "+00:00:01.000  device   onMessageSent                ids=m-1,m-2  count=2")
    }

    @Test func jsonLineHasAtSideEventThenFields() {
        #expect(
            TranscriptFormatter.json(Self.event)
                == #"{"at":1000,"side":"device","event":"onMessageSent","ids":["m-1","m-2"],"count":2}"#)
    }

    @Test func jsonEscapesQuotesControlsAndKeepsUnicode() {
        let event = Event(
            at: 0, side: .server, kind: .warning, fields: [Field("data", .map([KeyValue("k\"", "é\n\u{1}")]))])
        #expect(
            TranscriptFormatter.json(event) == #"{"at":0,"side":"server","event":"warning","data":{"k\"":"é\n\u0001"}}"#
        )
    }

    @Test func jsonLinesParseAsJSON() throws {
        let path = try #require(ShippedProfiles.paths.first { $0.hasSuffix("android-background-tray.yaml") })
        for event in Replayer.run(try ProfileParser.load(path: path)).events {
            let object = try JSONSerialization.jsonObject(with: Data(TranscriptFormatter.json(event).utf8))
            #expect((object as? [String: Any])?["event"] as? String == event.name)
        }
    }
}
