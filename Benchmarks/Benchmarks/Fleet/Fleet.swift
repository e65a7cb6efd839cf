import Benchmark
import FCMEngine
import FCMProfiles
import FCMTerminalUI

/// Many phones: a topic fan-out in the engine (deliveries per second, against the
/// same number of one-token messages in the same run), a message to one phone of a
/// fleet, and a TUI frame with 10,000 phones. The memory of idle phones is measured
/// on a running `serve` instead (`fleet-memory.sh`): in one process, the fleets this
/// file builds for the other benchmarks are counted too.
func fleet(_ count: Int, subscribed: Bool) -> DeviceEngine {
    var config = EngineConfiguration(senders: [SenderConfig(id: "123456789012", key: "k")])
    config.devices = [DeviceSpec(DeviceSettings(name: "phone", seed: 1), count: count)]
    config.device = config.startingDevices[0].settings
    var engine = DeviceEngine(config)
    var events: [Event] = []
    engine.handle(.start(at: 0), into: &events)
    if subscribed {
        for phone in engine.devices.map(\.name) {
            events.removeAll(keepingCapacity: true)
            engine.handle(.input(.on(device: phone, .subscribe(topic: "news", sender: nil)), at: 1), into: &events)
        }
    }
    return engine
}

/// `count` messages pushed one at a time, timed; one untimed push first, so that a
/// copy of a shared engine is not counted.
func timedPushes(_ engine: inout DeviceEngine, _ request: DownstreamRequest, count: Int) -> Duration {
    var events: [Event] = []
    events.reserveCapacity(2 * count + 100)
    engine.handle(.input(.push(request), at: 2), into: &events)
    events.removeAll(keepingCapacity: true)
    let clock = ContinuousClock()
    let started = clock.now
    for _ in 0..<count { engine.handle(.input(.push(request), at: 2), into: &events) }
    return clock.now - started
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

nonisolated(unsafe) let benchmarks = {
    let deliveries = BenchmarkMetric.custom("deliveries/s", polarity: .prefersLarger, useScalingFactor: false)
    let subscribed = fleet(100_000, subscribed: true)
    let topicPush = DownstreamRequest(sender: "123456789012", to: "/topics/news", data: [KeyValue("k", "v")])
    let firstPhonePush = DownstreamRequest(
        sender: "123456789012", to: subscribed.devices[0].tokens["123456789012"]!, data: [KeyValue("k", "v")])

    Benchmark(
        "Topic fan-out to 100,000 subscribed phones",
        configuration: .init(metrics: [.wallClock, deliveries], maxDuration: .seconds(20), maxIterations: 20)
    ) { benchmark in
        var engine = subscribed
        var events: [Event] = []
        events.reserveCapacity(200_100)
        // One message to one phone first, untimed: the engine shares its phones with
        // `subscribed` until it changes one, and that copy is this loop's, not the rule's.
        engine.handle(.input(.push(firstPhonePush), at: 2), into: &events)
        events.removeAll(keepingCapacity: true)
        let clock = ContinuousClock()
        let started = clock.now
        engine.handle(.input(.push(topicPush), at: 2), into: &events)
        let elapsed = clock.now - started
        precondition(events.count > 100_000, "every subscriber gets a copy")
        benchmark.measurement(deliveries, Int(100_000 / seconds(elapsed)))
        blackHole(engine.now)
    }

    // The baseline: as many messages, each to one token of one phone.
    let one = fleet(1, subscribed: false)
    let token = one.tokens["123456789012"]!
    let tokenPush = DownstreamRequest(sender: "123456789012", to: token, data: [KeyValue("k", "v")])
    Benchmark(
        "Baseline: 100,000 messages to one phone's token",
        configuration: .init(metrics: [.wallClock, deliveries], maxDuration: .seconds(20), maxIterations: 20)
    ) { benchmark in
        var engine = one
        benchmark.measurement(deliveries, Int(100_000 / seconds(timedPushes(&engine, tokenPush, count: 100_000))))
        blackHole(engine.now)
    }

    // One phone among 100,000: a message to it costs what it costs with one phone.
    Benchmark(
        "100,000 messages to one phone's token in a fleet of 100,000",
        configuration: .init(metrics: [.wallClock, deliveries], maxDuration: .seconds(20), maxIterations: 20)
    ) { benchmark in
        var engine = subscribed
        benchmark.measurement(
            deliveries, Int(100_000 / seconds(timedPushes(&engine, firstPhonePush, count: 100_000))))
        blackHole(engine.now)
    }

    let yaml = """
        version: 1
        devices: { count: 10000, like: { name: phone, seed: 1 } }
        senders: [ { id: "123456789012", key: k } ]
        """
    guard let profile = try? ProfileParser.parse(yaml, file: "fleet") else { fatalError("fleet profile") }
    var model = TUIModel(profile: profile)
    let main = model
    _ = model.handle(.character("v"), at: 1_000)
    _ = model.handle(.pageDown, at: 1_100)
    let list = model
    for (name, shown) in [("main screen", main), ("devices list", list)] {
        for (width, height) in [(80, 24), (200, 50)] {
            Benchmark(
                "Frame with 10,000 phones, \(name), at \(width)x\(height)",
                configuration: .init(metrics: [.wallClock], maxDuration: .seconds(5), maxIterations: 2_000)
            ) { benchmark in
                for _ in benchmark.scaledIterations {
                    blackHole(View.render(shown, width: width, height: height))
                }
            }
        }
    }
}
