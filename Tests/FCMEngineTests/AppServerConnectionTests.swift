import FCMEngine
import Foundation
import Testing

/// Drives an engine's app-server connections in tests.
extension Harness {
    @discardableResult
    mutating func link(_ input: AppServerInput, after: Millis = 0) -> [Event] {
        run(.appServer(input), after: after)
    }

    /// Opens, authenticates and establishes a connection, and lets it settle.
    mutating func connect(_ id: ConnectionID, sender: String = Harness.sender) {
        link(.opened(id))
        link(.authenticated(id, sender: sender))
        link(.sessionEstablished(id))
        wait(ConnectionRules.settleTime)
    }

    /// Upstream ids written to each connection, in order, since effects were last taken.
    mutating func upstreamWritten() -> [ConnectionID: [String]] {
        var written: [ConnectionID: [String]] = [:]
        for case .write(let id, .upstream(let message, _, _)) in engine.takeEffects() {
            written[id, default: []].append(message.id)
        }
        return written
    }
}

@Suite("App-server connections")
struct AppServerConnectionTests {
    @Test func upstreamTakesTurnsAmongTheSendersConnections() {
        var h = Harness(appServer: .none)
        h.connect(1)
        h.connect(2)
        _ = h.engine.takeEffects()
        for n in 1...4 { h.send("m-\(n)") }
        #expect(h.upstreamWritten() == [1: ["m-1", "m-3"], 2: ["m-2", "m-4"]])
    }

    @Test func atMostOneHundredUnacknowledgedUpstreamOnAConnection() {
        var h = Harness(appServer: .none, batch: BatchPolicy(window: 1, max: 1))
        h.connect(1)
        for n in 1...101 { h.send("m-\(n)") }
        #expect(h.upstreamWritten()[1]?.count == 100)
        #expect(h.engine.server.links.waitingUpstream(of: Harness.sender) == ["m-101"])
        h.link(.received(1, .ack(messageID: "m-1")))
        #expect(h.upstreamWritten() == [1: ["m-101"]])
    }

    @Test func upstreamWaitsForASettledSessionThenGoesOut() {
        var h = Harness(appServer: .none)
        h.send("m-1")
        h.link(.opened(1))
        h.link(.authenticated(1, sender: Harness.sender))
        h.link(.sessionEstablished(1))
        #expect(h.upstreamWritten().isEmpty)
        h.wait(ConnectionRules.settleTime)
        #expect(h.upstreamWritten() == [1: ["m-1"]])
    }

    @Test func whatAClosedConnectionCarriedIsResentOnAnother() {
        var h = Harness(appServer: .none)
        h.connect(1)
        h.connect(2)
        h.send("m-1")
        h.send("m-2")
        #expect(h.upstreamWritten() == [1: ["m-1"], 2: ["m-2"]])
        let events = h.link(.closed(1))
        #expect(events.named("appServerDisconnected").first?["connection"] == .int(1))
        #expect(h.upstreamWritten() == [2: ["m-1"]])
    }

    @Test func theAckRemovesTheMessageFromTheWindowAndTheServer() {
        var h = Harness(appServer: .none)
        h.connect(1)
        h.send("m-1")
        let events = h.link(.received(1, .ack(messageID: "m-1")))
        #expect(events.named("appServerAck").first?.string("by") == "app server")
        #expect(h.engine.server.awaitingAck.isEmpty)
        #expect(h.engine.server.links.byID[1]?.unacked.isEmpty == true)
    }

    @Test func anAppServersNackOfAnUpstreamMessageSettlesItAsAnAckWithAWarning() {
        var h = Harness(appServer: .none)
        h.connect(1)
        h.send("m-1")
        let events = h.link(.received(1, .nack(messageID: "m-1")))
        #expect(events.named("warning").first?.string("detail")?.contains("nacked m-1") == true)
        #expect(events.named("appServerAck").count == 1)
        #expect(h.engine.server.awaitingAck.isEmpty)
        #expect(h.engine.server.links.byID[1]?.unacked.isEmpty == true)
    }

    @Test func atMostOneThousandConnectionsPerSender() {
        var h = Harness(appServer: .none)
        for id in 1...ConnectionRules.connectionsPerSender {
            h.link(.opened(id))
            h.link(.authenticated(id, sender: Harness.sender))
        }
        _ = h.engine.takeEffects()
        let extra = ConnectionRules.connectionsPerSender + 1
        h.link(.opened(extra))
        let events = h.link(.authenticated(extra, sender: Harness.sender))
        #expect(events.named("connectionRefused").first?["connection"] == .int(Int64(extra)))
        #expect(
            h.engine.takeEffects() == [.refuseLogin(extra, detail: "too many connections for sender \(Harness.sender)")]
        )
        #expect(h.engine.server.links.count(of: Harness.sender) == ConnectionRules.connectionsPerSender)
    }

    @Test func aConnectionWithoutASessionInTimeIsClosed() {
        var h = Harness(appServer: .none)
        h.link(.opened(1))
        h.wait(ConnectionRules.loginTimeout - 1)
        #expect(h.engine.takeEffects().isEmpty)
        h.wait(1)
        #expect(
            h.engine.takeEffects() == [
                .streamError(1, condition: "connection-timeout", text: "no session within 30 s of connecting")
            ])
        #expect(h.engine.server.links.byID[1] == nil)
    }

    @Test func downstreamIsAckedBeforeTheReceiptItCauses() {
        var h = Harness(appServer: .none)
        h.connect(1)
        _ = h.engine.takeEffects()
        let request = DownstreamRequest(
            sender: Harness.sender, to: h.token, messageID: "d-1", deliveryReceiptRequested: true)
        h.link(.received(1, .downstream(request, messageID: "d-1")))
        let effects = h.engine.takeEffects()
        #expect(effects.count == 2)
        #expect(effects.first == .write(1, .ack(messageID: "d-1", token: h.token)))
        guard case .write(1, .receipt(let receipt, _))? = effects.last else {
            Issue.record("no receipt: \(effects)")
            return
        }
        #expect(receipt.id == "dr2:d-1")
    }

    @Test func aRefusedDownstreamIsNackedWithTheEngineCode() {
        var h = Harness(appServer: .none)
        h.connect(1)
        _ = h.engine.takeEffects()
        let request = DownstreamRequest(sender: Harness.sender, to: "garbage")
        let events = h.link(.received(1, .downstream(request, messageID: "d-1")))
        #expect(events.named("nack").first?.string("error") == "BAD_REGISTRATION")
        guard case .write(1, .nack(let id, _, let error, _))? = h.engine.takeEffects().first else {
            Issue.record("no nack")
            return
        }
        #expect(id == "d-1" && error == "BAD_REGISTRATION")
    }

    @Test func aDrainingConnectionNacksDownstreamWithConnectionDraining() {
        var h = Harness(appServer: .none)
        h.connect(1)
        let drained = h.run(.drain)
        #expect(drained.named("connectionDraining").first?["connection"] == .int(1))
        #expect(h.engine.takeEffects() == [.write(1, .draining)])
        let request = DownstreamRequest(sender: Harness.sender, to: h.token)
        let events = h.link(.received(1, .downstream(request, messageID: "d-1")))
        #expect(events.named("nack").first?.string("error") == "CONNECTION_DRAINING")
        #expect(events.named("downstreamAccepted").isEmpty)
        _ = h.engine.takeEffects()
        h.wait(ConnectionRules.drainGrace)
        #expect(h.engine.takeEffects() == [.endStream(1)])
    }

    @Test func aDrainFaultDrainsTheConnectionTheNextMessageCameOn() {
        var h = Harness(appServer: .none)
        h.connect(1)
        h.connect(2)
        h.run(.addFault(Fault(sender: Harness.sender, kind: .drain)))
        _ = h.engine.takeEffects()
        let request = DownstreamRequest(sender: Harness.sender, to: h.token)
        let events = h.link(.received(2, .downstream(request, messageID: "d-1")))
        #expect(events.names == ["faultInjected", "connectionDraining", "nack"])
        #expect(events.named("nack").first?.string("error") == "CONNECTION_DRAINING")
        #expect(h.engine.server.links.byID[1]?.draining == false)
        let effects = h.engine.takeEffects()
        #expect(effects.first == .write(2, .draining))
        let next = h.link(.received(1, .downstream(request, messageID: "d-2")))
        #expect(next.names.first == "downstreamAccepted")
    }

    @Test func aResetFaultEndsTheCCSConnectionWithoutAnAck() {
        var h = Harness(appServer: .none)
        h.connect(1)
        h.run(.addFault(Fault(sender: Harness.sender, kind: .reset)))
        _ = h.engine.takeEffects()
        let request = DownstreamRequest(sender: Harness.sender, to: h.token)
        let events = h.link(.received(1, .downstream(request, messageID: "d-1")))
        #expect(events.names == ["faultInjected", "appServerDisconnected"])
        #expect(h.engine.takeEffects() == [.endStream(1)])
        #expect(h.engine.server.links.byID[1] == nil)
    }

    @Test func aDrainingConnectionTakesNoNewUpstream() {
        var h = Harness(appServer: .none)
        h.connect(1)
        h.run(.drain)
        h.connect(2)
        _ = h.engine.takeEffects()
        h.send("m-1")
        #expect(h.upstreamWritten() == [2: ["m-1"]])
    }

    @Test func aReceiptIsWrittenOncePerConnection() {
        var h = Harness(appServer: .none)
        h.link(.opened(1))
        h.link(.authenticated(1, sender: Harness.sender))
        h.link(.sessionEstablished(1))
        // Requested while the session settles: it goes once, when the connection is ready.
        h.push(receipt: true)
        h.wait(ConnectionRules.settleTime)
        h.wait(10 * ConnectionRules.settleTime)
        let receipts = h.engine.takeEffects().filter {
            if case .write(_, .receipt) = $0 { true } else { false }
        }
        #expect(receipts.count == 1)
    }

    @Test func anOwedReceiptGoesToEachNewConnectionUntilAcked() {
        var h = Harness(appServer: .none)
        h.push(id: "d-1", receipt: true)
        h.connect(1)
        h.connect(2)
        let receipts = h.engine.takeEffects().compactMap { effect -> ConnectionID? in
            if case .write(let id, .receipt) = effect { id } else { nil }
        }
        #expect(receipts == [1, 2])
        h.link(.received(2, .ack(messageID: "dr2:d-1")))
        #expect(h.engine.server.owedReceipts.isEmpty)
        h.connect(3)
        #expect(h.engine.takeEffects().isEmpty)
    }

    @Test func theEchoStaysSilentWhileARealAppServerIsConnected() {
        var h = Harness()
        h.connect(1)
        #expect(h.send("m-1").named("appServerAck").isEmpty)
        h.link(.closed(1))
        #expect(h.send("m-2").named("appServerAck").first?.string("by") == "echo")
    }

    @Test func anUnreadableStanzaGetsAStanzaError() {
        var h = Harness(appServer: .none)
        h.connect(1)
        _ = h.engine.takeEffects()
        let events = h.link(.received(1, .unreadable(stanzaID: "s1", original: "{", description: "bad")))
        #expect(events.named("stanzaError").count == 1)
        #expect(h.engine.takeEffects() == [.write(1, .stanzaError(stanzaID: "s1", original: "{", text: "bad"))])
    }

    @Test func retriedUpstreamGoesOutAgainWhenOthersWait() {
        var h = Harness(appServer: .none, batch: BatchPolicy(window: 1, max: 1))
        h.connect(1)
        for n in 1...150 { h.send("m-\(n)", ttl: 600) }
        #expect(h.upstreamWritten()[1]?.count == 100)
        // Nobody acks: at the first retry the window is given to what waited, and the
        // retried messages follow as room comes.
        h.wait(1_000)
        let resent = h.upstreamWritten()[1] ?? []
        #expect(resent.count == 100)
        #expect(resent.prefix(50) == ArraySlice((101...150).map { "m-\($0)" }))
    }

    @Test func aConnectionNumberAlreadyOpenIsNotOpenedTwice() {
        var h = Harness(appServer: .none)
        h.connect(1)
        h.send("m-1")
        h.link(.opened(1))
        #expect(h.engine.server.links.byID[1]?.unacked == ["m-1"])
        #expect(h.engine.server.links.count(of: Harness.sender) == 1)
    }

    @Test func aDeviceSavedBeforeConnectionsSendsWhatItHeldOnTheFirstConnection() throws {
        var h = Harness(appServer: .none)
        h.send("m-1", ttl: 600)
        // As a file of state format 2 has it: the device without its connections.
        let encoded = try JSONEncoder().encode(h.engine)
        var object = try #require(try JSONSerialization.jsonObject(with: encoded) as? [String: Any])
        object["links"] = nil
        var old = try JSONDecoder().decode(DeviceEngine.self, from: JSONSerialization.data(withJSONObject: object))
        #expect(old.server.links.waitingUpstream(of: Harness.sender) == ["m-1"])
        var events: [Event] = []
        old.handle(.input(.appServer(.connected(1, sender: Harness.sender)), at: 1_000), into: &events)
        old.handle(.advance(to: 1_000 + ConnectionRules.settleTime), into: &events)
        #expect(events.named("upstreamToAppServer").first?.string("id") == "m-1")
    }
}
