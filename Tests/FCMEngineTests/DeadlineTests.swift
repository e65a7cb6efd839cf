import FCMEngine
import Testing

@Suite("The engine's next deadline")
struct DeadlineTests {
    /// What `nextDeadline` must be: the earliest of every timer, found the slow way.
    func scanned(_ engine: DeviceEngine) -> Millis? {
        var times: [Millis] = []
        if let flush = engine.devices[0].batch?.flushAt { times.append(flush) }
        times += engine.devices[0].pending.map(\.expiresAt)
        times += engine.server.awaitingAck.map { min($0.nextRetryAt, $0.message.expiresAt) }
        times += engine.devices[0].stored.map(\.expiresAt)
        return times.min()
    }

    @Test("stays the earliest timer through sends, acks out of order, retries and expiries")
    func matchesAFullScan() {
        var h = Harness(appServer: .none)
        var random = SeededGenerator(seed: 42)
        var sent: [String] = []
        for step in 0..<600 {
            switch random.next() % 4 {
            case 0, 1:
                let id = "u-\(step)"
                h.send(id, ttl: Int64(random.next() % 3_000) + 1)
                sent.append(id)
            case 2 where !sent.isEmpty:
                let id = sent.remove(at: Int(random.next() % UInt64(sent.count)))
                h.run(.ackUpstream(sender: Harness.sender, id: id))
            default:
                h.wait(Millis(random.next() % 5_000))
            }
            #expect(h.engine.nextDeadline == scanned(h.engine), "after step \(step)")
        }
        #expect(h.events.contains { $0.name == "upstreamRetry" })
        #expect(h.events.contains { $0.name == "expired" })
    }
}
