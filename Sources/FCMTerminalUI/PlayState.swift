import FCMEngine
import FCMProfiles

/// How fast play mode runs the profile's clock: so many virtual seconds a real
/// second, or straight from step to step (one a second).
public enum PlaySpeed: Int, Sendable, CaseIterable {
    case x1 = 1
    case x10 = 10
    case x60 = 60
    case jump = 0

    public var label: String { self == .jump ? "jump" : "\(rawValue)×" }

    func faster() -> PlaySpeed { Self.allCases[min(Self.allCases.count - 1, index + 1)] }
    func slower() -> PlaySpeed { Self.allCases[max(0, index - 1)] }
    var index: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    /// Real milliseconds between steps at jump speed.
    static let jumpInterval: Millis = 1_000
}

/// The TUI's play mode: a profile's timeline on a virtual clock, played, paused,
/// stepped forward and back.
public struct PlayState: Sendable {
    public internal(set) var playback: Playback
    public internal(set) var playing = false
    public internal(set) var speed = PlaySpeed.x10
    /// Real time waited towards the next step at jump speed.
    var waited: Millis = 0

    init(profile: Profile) {
        playback = Playback(profile: profile)
    }

    /// `step 7/31  +00:02:05  ▶ 10×`, or `‖ paused`.
    public var position: String {
        let clock = String(DurationText.stamp(playback.time).dropLast(4))
        // As wide playing as paused, so the header does not shift as it changes.
        let state = (playing ? "▶ \(speed.label)" : "‖ paused \(speed.label)").padding(
            toLength: 13, withPad: " ", startingAt: 0)
        return "step \(playback.position)/\(playback.steps.count)  \(clock)  \(state)"
    }

    /// `N of M expectations held` once every step has played.
    public var summary: String? {
        guard playback.finished else { return nil }
        let held = playback.checks.count(where: \.passed)
        let total = playback.expectationCount
        if total == 0 { return "End of the profile (it has no expectations). Home plays it again." }
        return "End of the profile: \(held) of \(total) expectations held. Home plays it again."
    }
}

/// Where a played profile became the user's own session: the steps played before
/// the user acted, which a saved session starts with.
public struct ForkPoint: Sendable {
    public var steps: [Step]
    public var total: Int
    public var at: Millis
    /// The speed play mode ran at: going back to the profile keeps it.
    public var speed = PlaySpeed.x10
}
