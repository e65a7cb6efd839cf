import FCMDoor
import FCMEngine
import FCMXMPP
import Foundation
import NIOCore
import NIOEmbedded
import Testing

@testable import FCMConnectionServer

/// A CCS connection in an EmbeddedChannel: bytes in one at a time, writes read back.
final class EmbeddedCCS {
    let channel: EmbeddedChannel
    let host: DeviceHost
    let connection: CCSConnection
    nonisolated(unsafe) static var logged: [Event] = []

    convenience init(appServer: AppServerMode = .none) throws {
        var configuration = EngineConfiguration(
            device: DeviceSettings(app: "com.example.app", seed: 1),
            senders: [SenderConfig(id: "123456789", key: "secret-key")])
        configuration.appServer = appServer
        try self.init(configuration)
    }

    /// A device started from `configuration`, and a first connection to it.
    convenience init(_ configuration: EngineConfiguration) throws {
        let host = DeviceHost(engine: DeviceEngine(configuration), loop: NIOSessionLoop(EmbeddedEventLoop())) { _ in 0 }
        host.start()
        try self.init(host: host, number: 1)
    }

    /// Another connection to a running device.
    init(host: DeviceHost, number: ConnectionID) throws {
        self.host = host
        connection = CCSConnection(host: host, number: number, maxStanzaBytes: 65_536)
        channel = EmbeddedChannel(
            handler: connection, loop: (host.loop as! NIOSessionLoop).eventLoop as! EmbeddedEventLoop)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    }

    /// Feeds text one byte at a time.
    func send(_ text: String) throws {
        for byte in text.utf8 {
            var buffer = channel.allocator.buffer(capacity: 1)
            buffer.writeInteger(byte)
            try channel.writeInbound(buffer)
        }
    }

    func received() throws -> String {
        var out = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            out += buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) ?? ""
        }
        return out
    }

    static let header =
        "<stream:stream to='fcm.googleapis.com' xmlns:stream='http://etherx.jabber.org/streams' xmlns='jabber:client' version='1.0'>"

    func login(sender: String = "123456789", key: String = "secret-key") throws {
        try send(Self.header)
        let plain = Data("\0\(sender)\0\(key)".utf8).base64EncodedString()
        try send("<auth mechanism='PLAIN' xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\(plain)</auth>")
        try send("<?xml version='1.0'?>" + Self.header)
        try send("<iq type='set' id='b'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq>")
        try send("<iq type='set' id='s'><session xmlns='urn:ietf:params:xml:ns:xmpp-session'/></iq>")
    }

    var token: String { host.engine.devices[0].tokens["123456789"]! }
}

@Suite("CCS connection (EmbeddedChannel)")
struct EmbeddedConnectionTests {
    @Test func negotiationByteByByte() throws {
        let ccs = try EmbeddedCCS()
        try ccs.login()
        let text = try ccs.received()
        #expect(text.contains("<mechanism>PLAIN</mechanism>"))
        #expect(text.contains("<success xmlns=\"urn:ietf:params:xml:ns:xmpp-sasl\"/>"))
        #expect(text.contains("<jid>123456789@fcm.googleapis.com/fcm-device-1</jid>"))
        #expect(text.contains("<iq type=\"result\" id=\"s\""))
    }

    @Test func downstreamIsAckedWithTheTargetToken() throws {
        let ccs = try EmbeddedCCS()
        try ccs.login()
        _ = try ccs.received()
        try ccs.send(
            #"<message id="1"><gcm xmlns="google:mobile:data">{"to":"\#(ccs.token)","message_id":"m1","data":{"a":"1"}}</gcm></message>"#
        )
        let reply = try ccs.received()
        #expect(reply.contains(#"{"from":"\#(ccs.token)","message_id":"m1","message_type":"ack"}"#))
        #expect(ccs.host.engine.devices[0].inbox.last?.id == "m1")
    }

    @Test func badTokenIsNackedBadRegistration() throws {
        let ccs = try EmbeddedCCS()
        try ccs.login()
        _ = try ccs.received()
        try ccs.send(#"<message><gcm xmlns="google:mobile:data">{"to":"nope","message_id":"m2"}</gcm></message>"#)
        let reply = try ccs.received()
        #expect(reply.contains(#""error":"BAD_REGISTRATION""#))
        #expect(reply.contains("data:gcm"))
    }

    @Test func missingMessageIDIsAStanzaError() throws {
        let ccs = try EmbeddedCCS()
        try ccs.login()
        _ = try ccs.received()
        try ccs.send(#"<message id="x9"><gcm xmlns="google:mobile:data">{"to":"t"}</gcm></message>"#)
        let reply = try ccs.received()
        #expect(reply.contains(#"<message id="x9" type="error">"#))
        #expect(reply.contains("Missing Required Field: message_id"))
    }

    @Test func upstreamGoesOutAfterTheSessionSettlesAndItsAckIsTaken() throws {
        let ccs = try EmbeddedCCS()
        try ccs.login()
        _ = try ccs.received()
        let to = UpstreamRequest.address(sender: "123456789", sdk: .fcm)
        ccs.host.apply(.on(.send(UpstreamRequest(to: to, messageID: "u1", data: [DataItem("k", .string("v"))]))))
        #expect(try ccs.received().isEmpty)
        (ccs.channel.eventLoop as! EmbeddedEventLoop).advanceTime(by: .milliseconds(200))
        let upstream = try ccs.received()
        #expect(upstream.contains(#"type="normal""#))
        #expect(upstream.contains(#""message_id":"u1""#))
        #expect(upstream.contains(#""category":"com.example.app""#))
        try ccs.send(
            #"<message><gcm xmlns="google:mobile:data">{"to":"\#(ccs.token)","message_id":"u1","message_type":"ack"}</gcm></message>"#
        )
        #expect(ccs.host.engine.server.awaitingAck.isEmpty)
    }

    @Test func malformedXMLEndsTheStreamWithAnError() throws {
        let ccs = try EmbeddedCCS()
        try ccs.send(EmbeddedCCS.header + "<a></b>")
        let reply = try ccs.received()
        #expect(reply.contains("<not-well-formed xmlns=\"urn:ietf:params:xml:ns:xmpp-streams\"/>"))
        #expect(!ccs.channel.isActive)
    }

    @Test func drainingNacksNewMessagesWithConnectionDraining() throws {
        let ccs = try EmbeddedCCS()
        try ccs.login()
        _ = try ccs.received()
        ccs.host.apply(.drain)
        #expect(try ccs.received().contains("CONNECTION_DRAINING"))
        try ccs.send(
            #"<message><gcm xmlns="google:mobile:data">{"to":"\#(ccs.token)","message_id":"late"}</gcm></message>"#)
        #expect(try ccs.received().contains(#""error":"CONNECTION_DRAINING""#))
        (ccs.channel.eventLoop as! EmbeddedEventLoop).advanceTime(by: .seconds(2))
        #expect(try ccs.received().contains("</stream:stream>"))
    }
}

@Suite("CCS flow control")
struct FlowControlTests {
    @Test func atMostOneHundredUnackedUpstreamPerConnectionTheRestWait() throws {
        let ccs = try EmbeddedCCS()
        try ccs.login()
        (ccs.channel.eventLoop as! EmbeddedEventLoop).advanceTime(by: .milliseconds(200))
        _ = try ccs.received()
        let to = UpstreamRequest.address(sender: "123456789", sdk: .fcm)
        for n in 0..<120 { ccs.host.apply(.on(.send(UpstreamRequest(to: to, messageID: "u\(n)", timeToLive: 600)))) }
        let sent = try ccs.received().components(separatedBy: #"type="normal""#).count - 1
        #expect(sent == 100)
        #expect(ccs.host.engine.server.links.byID[ccs.connection.number]?.unacked.count == 100)
        try ccs.send(
            #"<message><gcm xmlns="google:mobile:data">{"to":"t","message_id":"u0","message_type":"ack"}</gcm></message>"#
        )
        #expect(ccs.host.engine.server.links.byID[ccs.connection.number]?.unacked.count == 100)
        #expect(try ccs.received().contains(#""message_id":"u100""#))
    }
}

@Suite("CCS nack paths")
struct NackPathTests {
    func reply(_ ccs: EmbeddedCCS, _ json: String) throws -> String {
        try ccs.send(#"<message><gcm xmlns="google:mobile:data">\#(json)</gcm></message>"#)
        return try ccs.received()
    }

    @Test func uninstalledAppIsDeviceUnregistered() throws {
        let ccs = try EmbeddedCCS()
        try ccs.login()
        _ = try ccs.received()
        let token = ccs.token
        ccs.host.apply(.on(.uninstall))
        #expect(try reply(ccs, #"{"to":"\#(token)","message_id":"a"}"#).contains(#""error":"DEVICE_UNREGISTERED""#))
    }

    @Test func outageIsServiceUnavailable() throws {
        let ccs = try EmbeddedCCS()
        try ccs.login()
        _ = try ccs.received()
        ccs.host.apply(.setService(up: false))
        #expect(try reply(ccs, #"{"to":"\#(ccs.token)","message_id":"b"}"#).contains(#""error":"SERVICE_UNAVAILABLE""#))
    }

    @Test func aMessageTypeAnAppServerNeverSendsIsBadAck() throws {
        let ccs = try EmbeddedCCS()
        try ccs.login()
        _ = try ccs.received()
        #expect(try reply(ccs, #"{"message_id":"c","message_type":"control"}"#).contains(#""error":"BAD_ACK""#))
    }

    @Test func reservedDataKeyIsInvalidJson() throws {
        let ccs = try EmbeddedCCS()
        try ccs.login()
        _ = try ccs.received()
        #expect(
            try reply(ccs, #"{"to":"\#(ccs.token)","message_id":"d","data":{"from":"x"}}"#).contains(
                #""error":"INVALID_JSON""#))
    }
}
