import FCMProfiles
import GeneratedProfile

// Replays the generated profile a few times and prints engine events per second:
// a plain program to run under a profiler (valgrind --tool=callgrind).
let rounds = Int(CommandLine.arguments.dropFirst().first ?? "2000") ?? 2_000
let repeats = Int(CommandLine.arguments.dropFirst(2).first ?? "5") ?? 5
let profile = GeneratedProfile.make(rounds: rounds)
let clock = ContinuousClock()
var best = 0.0
for _ in 0..<repeats {
    let started = clock.now
    let result = Replayer.run(profile)
    let elapsed = clock.now - started
    let count = result.events.count
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    best = max(best, Double(count) / seconds)
    print("\(count) events in \(Int(seconds * 1_000)) ms")
}
print("best: \(Int(best)) engine events/s")
