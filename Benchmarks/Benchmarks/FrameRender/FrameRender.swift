import Benchmark
import FCMEngine
import FCMProfiles
import FCMTerminalUI

/// A TUI model with 100 senders and at least 10,000 events in its log, made by
/// pressing keys as a person would.
func busyModel() -> TUIModel {
    let senders = (1...100).map { "  - { id: \"\(100_000_000_000 + $0)\", key: k\($0) }" }.joined(separator: "\n")
    let yaml = "version: 1\ndevice: { name: Benchmark, seed: 5 }\nsenders:\n" + senders + "\n"
    guard let profile = try? ProfileParser.parse(yaml, file: "benchmark") else { fatalError("benchmark profile") }
    var model = TUIModel(profile: profile)
    var time: Millis = 1_000
    while model.log.count < 10_000 {
        _ = model.press(.character("s"), at: time)
        _ = model.press(.enter, at: time)
        time += 50
    }
    return model
}

nonisolated(unsafe) let benchmarks = {
    let model = busyModel()
    let events = model.log.count

    for (width, height) in [(80, 24), (200, 50)] {
        Benchmark(
            "Frame at \(width)x\(height) with \(events) events and 100 senders",
            configuration: .init(metrics: [.wallClock, .cpuTotal], maxDuration: .seconds(5), maxIterations: 2_000)
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(View.render(model, width: width, height: height))
            }
        }
    }

    Benchmark(
        "Memory of a TUI with 100 senders and 10,000 events",
        configuration: .init(
            metrics: [.peakMemoryResident, .mallocCountTotal], maxDuration: .seconds(10), maxIterations: 3)
    ) { _ in
        blackHole(busyModel().log.count)
    }
}
