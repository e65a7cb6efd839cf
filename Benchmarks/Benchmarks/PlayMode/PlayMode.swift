import Benchmark
import FCMEngine
import FCMProfiles
import FCMTerminalUI
import GeneratedProfile

/// Play mode: stepping back in a long profile (a rebuild from the nearest
/// checkpoint) and drawing a frame while a profile plays.
nonisolated(unsafe) let benchmarks = {
    // 24 steps a round: about 10,000 steps in all.
    let profile = GeneratedProfile.make(rounds: 420)
    var played = Playback(profile: profile)
    while !played.finished { played.stepForward() }
    let steps = profile.steps.count
    let events = played.events.count

    Benchmark(
        "Step back one step in a \(steps)-step profile (\(events) events)",
        configuration: .init(metrics: [.wallClock], maxDuration: .seconds(10), maxIterations: 2_000)
    ) { benchmark in
        // Each iteration steps back once more, from the end towards the start.
        for _ in benchmark.scaledIterations {
            played.stepBack()
            blackHole(played.position)
        }
    }

    var model = TUIModel(playing: profile)
    for _ in 0..<(steps / 2) { _ = model.handle(.character("."), at: 0) }
    _ = model.handle(.character(" "), at: 0)
    for (width, height) in [(80, 24), (200, 50)] {
        Benchmark(
            "Frame in play mode at \(width)x\(height), mid-way through \(steps) steps",
            configuration: .init(metrics: [.wallClock, .cpuTotal], maxDuration: .seconds(5), maxIterations: 2_000)
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(View.render(model, width: width, height: height))
            }
        }
    }
}
