import Benchmark
import FCMControlAPI
import FCMDoor
import FCMEngine
import FCMHTTPPort
import FCMProfiles
import Foundation

/// The control API: how soon a long poll wakes after its event, and a reset of a busy
/// device (in process: the engine and the route, without sockets or the disk).
nonisolated(unsafe) let benchmarks = {
    let log = EventLog()
    let event = Event(at: 0, side: .device, kind: .onMessageReceived, fields: [Field("id", .string("m"))])
    Benchmark(
        "Event wait: from the event to the woken long poll",
        configuration: .init(metrics: [.wallClock], maxDuration: .seconds(10), maxIterations: 1_000)
    ) { benchmark in
        let after = log.lastSeq
        let waiter = Task { await log.wait(after: after, timeout: .seconds(5)) { $0.kind == .onMessageReceived } }
        while log.waiting == 0 { await Task.yield() }
        benchmark.startMeasurement()
        log.append(event)
        blackHole(await waiter.value)
        benchmark.stopMeasurement()
    }

    Benchmark(
        "Reset through the control route, a device holding 100 messages and 50 topics",
        configuration: .init(metrics: [.wallClock], maxDuration: .seconds(10), maxIterations: 1_000)
    ) { benchmark in
        let device = BusyDevice()
        benchmark.startMeasurement()
        let reply = await device.service.respond(
            HTTPRequestParts(method: "POST", path: "/emulator/v1/projects/bench/reset"))
        benchmark.stopMeasurement()
        precondition(reply.status == 200)
    }
}

/// A device with a full store and many topics behind a control service.
final class BusyDevice: @unchecked Sendable {
    let lock = NSLock()
    var engine: DeviceEngine
    let log = EventLog()
    var service: ControlService!

    init() {
        let sender = SenderConfig(id: "123456789012", key: "k", project: "bench")
        engine = DeviceEngine(
            EngineConfiguration(device: DeviceSettings(network: .offline, seed: 1), senders: [sender]))
        var events: [Event] = []
        engine.handle(.start(at: 0), into: &events)
        for n in 0..<50 { engine.handle(.input(.on(.subscribe(topic: "t\(n)", sender: nil)), at: 0), into: &events) }
        for n in 0..<100 {
            let request = DownstreamRequest(
                sender: sender.id, to: engine.devices[0].tokens[sender.id], data: [KeyValue("n", "\(n)")])
            engine.handle(.input(.push(request), at: 0), into: &events)
        }
        service = ControlService(
            log: log, token: nil,
            device: ControlGateway(
                engine: { [unowned self] in lock.withLock { engine } },
                perform: { [unowned self] action in
                    var produced: [Event] = []
                    lock.withLock {
                        if case .command(let command) = action {
                            engine.handle(.input(command, at: 1), into: &produced)
                        }
                    }
                    for event in produced { log.append(event) }
                    return produced
                },
                appServers: { [unowned self] in lock.withLock { engine.appServerSenders } }))
    }
}
