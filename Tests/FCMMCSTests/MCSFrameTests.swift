import FCMEngine
import Foundation
import SwiftProtobuf
import Testing

@testable import FCMMCS

@Suite struct MCSFrameTests {
    func loginFrame(user: String = "4242", token: String = "77", received: [String] = []) -> [UInt8] {
        var login = MCSLoginRequest()
        login.id = "chrome-94.0.4606.51"
        login.domain = "mcs.android.com"
        login.user = user
        login.resource = user
        login.authToken = token
        login.receivedPersistentID = received
        return MCSFrame.encode(tag: .loginRequest, login, first: true)
    }

    @Test func theFirstFrameCarriesTheVersionAndTheRestDoNot() throws {
        let first = loginFrame()
        #expect(first[0] == 41 && first[1] == 2)
        let ping = MCSFrame.encode(tag: .heartbeatPing, MCSHeartbeatPing(), first: false)
        #expect(ping == [0, 0])
        var reader = MCSFrameReader()
        reader.append(first + ping)
        #expect(try reader.next()?.tag == 2)
        #expect(try reader.next() == MCSFrame(tag: 0, payload: []))
        #expect(try reader.next() == nil)
    }

    @Test func aFrameSplitAcrossReadsIsReadWhenWhole() throws {
        let bytes = loginFrame(received: (0..<40).map { "0:1%\($0)" })
        #expect(bytes.count > 300)
        var reader = MCSFrameReader()
        for byte in bytes.dropLast() {
            reader.append([byte])
            #expect(try reader.next() == nil)
        }
        reader.append([bytes.last!])
        let frame = try #require(try reader.next())
        let login = try MCSLoginRequest(serializedBytes: frame.payload)
        #expect(login.receivedPersistentID.count == 40)
    }

    @Test func anOldOrUnknownVersionIsRefused() {
        var reader = MCSFrameReader()
        reader.append([40, 2, 0])
        #expect(throws: MCSFramingError.self) { try reader.next() }
        var old = MCSFrameReader()
        old.append([38, 0, 0])
        #expect((try? old.next())?.tag == 0)
    }

    @Test func anOversizedOrEndlessLengthIsRefused() {
        var reader = MCSFrameReader()
        reader.append([41, 8, 0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: MCSFramingError.self) { try reader.next() }
        var endless = MCSFrameReader()
        endless.append([41, 8] + [UInt8](repeating: 0xFF, count: 8))
        #expect(throws: MCSFramingError.self) { try endless.next() }
    }
}

@Suite struct MCSServerSessionTests {
    @Test func aLoginBecomesTheEnginesInputAndItsAnswerEchoesTheClientsID() throws {
        var session = MCSServerSession(connection: 7)
        let outputs = session.receive(MCSFrameTests().loginFrame(user: "4242", token: "77", received: ["a"]))
        #expect(outputs == [.input(.login(7, MCSLogin(user: "4242", authToken: "77", received: ["a"])))])
        let answer = session.render(.loginAccepted, unixMillis: 1_700_000_000_000)
        guard case .write(let bytes) = answer.first else { Issue.record("no write"); return }
        var reader = MCSFrameReader()
        reader.append(bytes)
        let frame = try #require(try reader.next())
        #expect(frame.tag == 3)
        let response = try MCSLoginResponse(serializedBytes: frame.payload)
        #expect(response.id == "chrome-94.0.4606.51" && !response.hasError)
        #expect(response.serverTimestamp == 1_700_000_000_000)
    }

    @Test func aRefusedLoginCarriesAnErrorAndEndsTheStream() throws {
        var session = MCSServerSession(connection: 1)
        _ = session.receive(MCSFrameTests().loginFrame())
        let outputs = session.render(.loginRefused(code: 401, message: "no"), unixMillis: 0)
        #expect(outputs.count == 2)
        guard case .write(let bytes) = outputs[0], case .end = outputs[1] else {
            Issue.record("\(outputs)")
            return
        }
        var reader = MCSFrameReader()
        reader.append(bytes)
        let response = try MCSLoginResponse(serializedBytes: try #require(try reader.next()).payload)
        #expect(response.error.code == 401 && response.error.message == "no")
        #expect(session.render(.loginAccepted, unixMillis: 0).isEmpty)
    }

    @Test func aPingIsAnsweredAndASelectiveAckGoesToTheEngine() throws {
        var session = MCSServerSession(connection: 3)
        _ = session.receive(MCSFrameTests().loginFrame())
        _ = session.render(.loginAccepted, unixMillis: 0)
        let ping = MCSFrame.encode(tag: .heartbeatPing, MCSHeartbeatPing(), first: false)
        let pong = session.receive(ping)
        guard case .write(let bytes) = pong.first else { Issue.record("\(pong)"); return }
        #expect(bytes.first == MCSTag.heartbeatAck.rawValue)
        var ack = MCSSelectiveAck()
        ack.id = ["0:1%1", "0:1%2"]
        var iq = MCSIqStanza()
        iq.type = 1
        iq.id = ""
        iq.extension.id = 12
        iq.extension.data = try ack.serializedBytes()
        let outputs = session.receive(MCSFrame.encode(tag: .iqStanza, iq, first: false))
        #expect(outputs == [.input(.acked(3, ["0:1%1", "0:1%2"]))])
    }

    @Test func aStreamThatDoesNotLogInFirstOrSendsGarbageEnds() {
        var session = MCSServerSession(connection: 1)
        let outputs = session.receive([41, 0, 0])
        guard case .end(let reason) = outputs.first else { Issue.record("\(outputs)"); return }
        #expect(reason.contains("logs in first"))
        var garbage = MCSServerSession(connection: 2)
        _ = garbage.receive(MCSFrameTests().loginFrame())
        let after = garbage.receive([99, 0])
        guard case .end(let unknown) = after.first else { Issue.record("\(after)"); return }
        #expect(unknown.contains("tag 99"))
        #expect(garbage.receive([0, 0]).isEmpty)
    }

    @Test func aDataStanzaCarriesThePersistentIDAppDataAndRawBytes() throws {
        var session = MCSServerSession(connection: 1)
        _ = session.receive(MCSFrameTests().loginFrame())
        _ = session.render(.loginAccepted, unixMillis: 0)
        let message = ReceiverMessage(
            messageID: "m-1", persistentID: "0:5%00000000000000a1", from: "1234", category: "org.chromium.linux",
            appData: [KeyValue("crypto-key", "dh=AA=="), KeyValue("subtype", "wp:x#1")], rawData: [1, 2, 3],
            ttl: 60, sent: 1_700_000_000)
        guard case .write(let bytes) = session.render(.data(message), unixMillis: 0).first else {
            Issue.record("no write")
            return
        }
        #expect(bytes.first == MCSTag.dataMessageStanza.rawValue)
        var reader = MCSFrameReader()
        reader.append([41] + bytes)
        let stanza = try MCSDataMessageStanza(serializedBytes: try #require(try reader.next()).payload)
        #expect(stanza.persistentID == message.persistentID && stanza.from == "1234")
        #expect(stanza.appData.map(\.key) == ["crypto-key", "subtype"])
        #expect(Array(stanza.rawData) == [1, 2, 3] && stanza.ttl == 60 && stanza.sent == 1_700_000_000)
    }

    @Test func theServerPingsAsOftenAsTheClientAskedWithinItsBounds() throws {
        func session(asking interval: Int32?) -> MCSServerSession {
            var login = MCSLoginRequest()
            login.user = "1"
            login.authToken = "2"
            if let interval { login.heartbeatStat.intervalMs = interval }
            var session = MCSServerSession(connection: 1)
            _ = session.receive(MCSFrame.encode(tag: .loginRequest, login, first: true))
            return session
        }
        #expect(session(asking: 10_000).pingInterval == 10_000)
        #expect(session(asking: 100).pingInterval == 5_000)
        #expect(session(asking: nil).pingInterval == nil)
        var pinged = session(asking: 10_000)
        _ = pinged.render(.loginAccepted, unixMillis: 0)
        guard case .write(let bytes) = pinged.ping().first else {
            Issue.record("no ping")
            return
        }
        #expect(bytes.first == MCSTag.heartbeatPing.rawValue)
    }

    @Test func aClientThatAnswersNoPingInAnIntervalIsClosedAsDead() throws {
        var login = MCSLoginRequest()
        login.user = "1"
        login.authToken = "2"
        login.heartbeatStat.intervalMs = 10_000
        var session = MCSServerSession(connection: 1)
        _ = session.receive(MCSFrame.encode(tag: .loginRequest, login, first: true))
        _ = session.render(.loginAccepted, unixMillis: 0)
        // Answered: the next ping goes out.
        #expect(session.ping().count == 1)
        _ = session.receive(MCSFrame.encode(tag: .heartbeatAck, MCSHeartbeatAck(), first: false))
        #expect(session.ping().count == 1)
        // Anything the client says counts: a ping of its own.
        _ = session.receive(MCSFrame.encode(tag: .heartbeatPing, MCSHeartbeatPing(), first: false))
        #expect(session.ping().count == 1)
        // Nothing in the interval: the stream ends, saying why; nothing after.
        let outputs = session.ping()
        guard case .end(let reason) = outputs.first, outputs.count == 1 else {
            Issue.record("\(outputs)")
            return
        }
        #expect(reason.contains("10 s after the server's heartbeat ping") && reason.contains("closed as dead"))
        #expect(session.ping().isEmpty && session.render(.loginAccepted, unixMillis: 0).isEmpty)
    }
}
