import FCMEngine
import FCMProfiles
import Testing

/// Play mode's playback: every way of reaching a moment gives the same device and
/// the same events as playing straight there, and as `replay`.
@Suite("Playback")
struct PlaybackTests {
    /// A profile of `pushes` pushes a second apart, with an expectation after every
    /// tenth, on an offline phone that comes online at the end (so the store,
    /// collapse and onDeletedMessages all play a part).
    static func longProfile(pushes: Int) -> Profile {
        var lines = [
            "version: 1",
            "description: many pushes",
            "device: { name: Long, platform: android, network: offline, seed: 9 }",
            "senders:",
            "  - { id: \"123456789012\", key: k1 }",
            "timeline:",
        ]
        for n in 1...pushes {
            let collapse = n % 3 == 0 ? ", collapse_key: c\(n % 5)" : ""
            lines.append("  - at: \(n)s")
            lines.append("    push: { sender: \"123456789012\", id: m-\(n), data: { n: \"\(n)\" }\(collapse) }")
            lines.append("    note: push number \(n)")
            if n % 10 == 0 {
                lines.append("  - at: \(n)s")
                lines.append("    expect: { event: downstreamAccepted, id: m-\(n) }")
            }
        }
        lines.append("  - at: \(pushes + 5)s")
        lines.append("    network: online")
        return try! ProfileParser.parse(lines.joined(separator: "\n"), file: "long.yaml")
    }

    static func shipped(_ name: String) throws -> Profile {
        let path = try #require(ShippedProfiles.paths.first { $0.hasSuffix(name) })
        return try ProfileParser.load(path: path)
    }

    @Test(arguments: ["store-and-collapse.yaml", "upstream-basics.yaml", "doze-priority.yaml", "offline-queue.yaml"])
    func steppingThroughEveryStepGivesTheReplayTranscript(name: String) throws {
        let profile = try Self.shipped(name)
        var playback = Playback(profile: profile)
        while !playback.finished { playback.stepForward() }
        playback.go(to: (profile.steps.last?.at ?? 0) + Replayer.settleLimit)
        let replay = Replayer.run(profile)
        #expect(playback.events.filter { $0.side != .check } == replay.events)
        #expect(playback.checks.map(\.passed) == replay.checks.map(\.passed))
        #expect(playback.checks.count == profile.expectationCount)
    }

    @Test func steppingBackRebuildsTheSameMoment() {
        let profile = Self.longProfile(pushes: 150)
        var playback = Playback(profile: profile)
        var seen: [Int: (events: [Event], stored: [String], time: Millis)] = [:]
        while !playback.finished {
            playback.stepForward()
            seen[playback.position] = (playback.events, playback.engine.devices[0].stored.map(\.id), playback.time)
        }
        // Back one step at a time across several checkpoints.
        for _ in 0..<140 {
            playback.stepBack()
            let want = seen[playback.position]
            #expect(playback.events == want?.events, "events differ at step \(playback.position)")
            #expect(
                playback.engine.devices[0].stored.map(\.id) == want?.stored,
                "store differs at step \(playback.position)")
            #expect(playback.time == want?.time)
        }
        // And forward again from there to the end, as first played.
        let last = seen[profile.steps.count]
        while !playback.finished { playback.stepForward() }
        #expect(playback.events == last?.events)
    }

    @Test func stepBackFromTheFirstStepReturnsToTheStart() {
        var playback = Playback(profile: Self.longProfile(pushes: 3))
        let start = playback.events
        playback.stepForward()
        #expect(playback.position == 1)
        #expect(playback.caption == "push number 1")
        playback.stepBack()
        #expect(playback.position == 0)
        #expect(playback.events == start)
        #expect(playback.time == 0)
        #expect(playback.caption == "many pushes")
        playback.stepBack()
        #expect(playback.position == 0)
    }

    @Test func goingToATimePlaysEveryStepDueByThen() {
        let profile = Self.longProfile(pushes: 100)
        var playback = Playback(profile: profile)
        playback.go(to: 42_500)
        #expect(playback.time == 42_500)
        #expect(playback.position == profile.steps.count { $0.at <= 42_500 })
        let at42 = playback.events
        playback.go(to: 90_000)
        playback.go(to: 42_500)
        #expect(playback.events == at42)
        playback.restart()
        #expect(playback.position == 0)
        #expect(playback.time == 0)
    }

    @Test func runningInSmallSlicesMatchesOneJump() {
        let profile = Self.longProfile(pushes: 40)
        var sliced = Playback(profile: profile)
        for _ in 0..<(50_000 / 700 + 1) { sliced.run(for: 700) }
        var jumped = Playback(profile: profile)
        jumped.go(to: sliced.time)
        #expect(sliced.events == jumped.events)
        #expect(sliced.position == jumped.position)
    }

    @Test func expectationsAreJudgedWhereTheyAreReached() {
        var playback = Playback(profile: Self.longProfile(pushes: 20))
        playback.go(to: 10_000)
        #expect(playback.checks.count == 1)
        #expect(playback.checks.first?.passed == true)
        #expect(playback.events.last?.kind == .expectationHeld)
        playback.stepBack()
        #expect(playback.checks.isEmpty)
    }
}
