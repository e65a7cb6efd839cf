import Benchmark
import FCMEngine
import FCMProfiles
import GeneratedProfile

/// Replay throughput: engine events per second on a large generated profile, and
/// what one replay allocates. Measured apart, so counting mallocs does not slow the
/// throughput run.
nonisolated(unsafe) let benchmarks = {
    let profile = GeneratedProfile.make(rounds: 2_000)
    let eventsPerReplay = Replayer.run(profile).events.count
    let name = "Replay of a generated profile (\(profile.steps.count) steps, \(eventsPerReplay) events)"
    let eventsPerSecond = BenchmarkMetric.custom("engine events/s", polarity: .prefersLarger, useScalingFactor: false)

    Benchmark(
        "\(name): throughput",
        configuration: .init(metrics: [.wallClock, eventsPerSecond], maxDuration: .seconds(10), maxIterations: 30)
    ) { benchmark in
        let clock = ContinuousClock()
        let started = clock.now
        let result = Replayer.run(profile)
        let elapsed = clock.now - started
        blackHole(result.events.count)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        benchmark.measurement(eventsPerSecond, Int(Double(result.events.count) / seconds))
    }

    Benchmark(
        "\(name): memory",
        configuration: .init(
            metrics: [.mallocCountTotal, .peakMemoryResident], maxDuration: .seconds(10), maxIterations: 5)
    ) { _ in
        blackHole(Replayer.run(profile).events.count)
    }
}
