import FCMEngine
import Testing

/// The engine keeps each phone's earliest timer instead of reading every phone for
/// its next deadline; whatever happens to the phones, the kept deadline must be the
/// one a full reading gives.
@Suite("Several devices: the next deadline")
struct FleetDeadlineTests {
    /// The earliest timer of any phone, read from every phone's queue, store and batch window.
    static func earliestByReadingEveryPhone(_ engine: DeviceEngine) -> Millis? {
        var times: [Millis] = []
        for phone in engine.devices {
            times += phone.pending.map(\.expiresAt) + phone.stored.map(\.expiresAt)
            if let batch = phone.batch { times.append(batch.flushAt) }
        }
        return times.min()
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func theKeptDeadlineIsTheEarliestOfEveryPhoneAfterEachStep(seed: UInt64) {
        var fleet = Fleet([DeviceSpec(DeviceSettings(name: "phone", seed: 7), count: 4)])
        var random = SeededGenerator(seed: seed)
        let names = fleet.engine.devices.map(\.name)
        let upstream = UpstreamRequest.address(sender: Harness.sender, sdk: .fcm)
        var checked = 0
        for step in 0..<400 {
            let phone = names.randomElement(using: &random)!
            let command: Input
            switch Int.random(in: 0..<8, using: &random) {
            case 0: command = .on(device: phone, .setNetwork(Bool.random(using: &random) ? .offline : .online))
            case 1: command = .on(device: phone, .setDoze(Bool.random(using: &random)))
            case 2:
                command = .on(
                    device: phone,
                    .send(
                        UpstreamRequest(
                            to: upstream, messageID: "up-\(step)",
                            timeToLive: Int64.random(in: 0...30, using: &random))))
            default:
                command = .push(
                    DownstreamRequest(
                        sender: Harness.sender, to: fleet.token(of: phone), data: [KeyValue("k", "\(step)")],
                        collapseKey: Bool.random(using: &random) ? "score" : nil,
                        priority: Bool.random(using: &random) ? "normal" : "high",
                        timeToLive: Int64.random(in: 0...40, using: &random)))
            }
            fleet.run(command, after: Millis.random(in: 0...3_000, using: &random))
            // Let time pass now and then, so that timers fire in between.
            if step % 7 == 0 {
                fleet.time += Millis.random(in: 0...20_000, using: &random)
                fleet.engine.handle(.advance(to: fleet.time), into: &fleet.events)
            }
            #expect(
                fleet.engine.nextDeadline == Self.earliestByReadingEveryPhone(fleet.engine),
                "after step \(step) (\(command) on \(phone))")
            if fleet.engine.nextDeadline != nil { checked += 1 }
        }
        // The walk must have had timers to keep, or it proves nothing.
        #expect(checked > 100)
        #expect(!fleet.events.named("expired").isEmpty)
    }
}
