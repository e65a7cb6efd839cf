import FCMConnectionServer
import FCMDoor
import FCMEngine
import FCMSession
import Foundation
import Testing

/// A blocking TCP client for tests: write text, read until a string shows up.
final class RawClient: @unchecked Sendable {
    let socket: Int32

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(socket) }

    func write(bytes: [UInt8]) {
        _ = bytes.withUnsafeBufferPointer { send(socket, $0.baseAddress, $0.count, 0) }
    }

    func write(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { send(socket, $0.baseAddress, $0.count - 1, 0) }
    }

    /// `read(until:)` on a dispatch thread: a server that answers from Swift
    /// concurrency (the HTTP APIs) needs the cooperative threads a blocking read
    /// would hold.
    func reply(until marker: String) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.read(until: marker)) }
        }
    }

    /// Ends the connection from this side, as a client that gives up does.
    func hangUp() {
        shutdown(socket, Int32(SHUT_RDWR))
    }

    /// Whether the server has closed the connection (a read finds its end, not data).
    func closedByServer() -> Bool {
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, 0) == 0
    }

    /// What arrives within `milliseconds` (nothing, if the server holds it back).
    func available(within milliseconds: Int32) -> String {
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        while poll(&descriptor, 1, milliseconds) > 0 {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            text += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return text
    }

    /// Reads until `marker` arrived (or the timeout); returns all read.
    func read(until marker: String) -> String {
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while !text.contains(marker) {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            text += String(decoding: buffer[0..<count], as: UTF8.self)
        }
        return text
    }
}

extension RawClient {
    /// Opens a CCS session as an app server does: stream, SASL PLAIN, a new
    /// stream, resource binding and a session.
    func login(sender: String = "555", key: String = "k5") {
        write(LiveServerTests.header)
        _ = read(until: "</stream:features>")
        write(
            "<auth mechanism='PLAIN' xmlns='urn:ietf:params:xml:ns:xmpp-sasl'>\(Data("\u{0}\(sender)\u{0}\(key)".utf8).base64EncodedString())</auth>"
        )
        _ = read(until: "<success")
        write(LiveServerTests.header)
        _ = read(until: "</stream:features>")
        write(
            "<iq type='set' id='1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'/></iq><iq type='set' id='2'><session xmlns='urn:ietf:params:xml:ns:xmpp-session'/></iq>"
        )
        _ = read(until: "id=\"2\"")
    }
}

@Suite("Live server on loopback", .serialized)
struct LiveServerTests {
    func start(appServer: AppServerMode = .none) async throws -> ConnectionServer {
        var configuration = EngineConfiguration(
            device: DeviceSettings(seed: 2), senders: [SenderConfig(id: "555", key: "k5")])
        configuration.appServer = appServer
        var options = ServerOptions()
        options.ccsPort = nil
        options.ccsPlainPort = 0
        let server = try await ConnectionServer.start(engine: DeviceEngine(configuration), options: options) { _, _ in }
        try await server.startDevice()
        return server
    }

    static let header =
        "<stream:stream to='gcm.googleapis.com' xmlns:stream='http://etherx.jabber.org/streams' xmlns='jabber:client' version='1.0'>"

    @Test func downstreamOverTCPIsAcked() async throws {
        let server = try await start()
        let port = try #require(server.ccsPlainPort)
        #expect(port > 0)
        let token = try await server.loop.submit { [host = server.host] in host.engine.devices[0].tokens["555"]! }
            .get()
        let client = try RawClient(port: port)
        client.login()
        client.write(#"<message><gcm xmlns="google:mobile:data">{"to":"\#(token)","message_id":"m1"}</gcm></message>"#)
        #expect(client.read(until: "message_type").contains(#""message_id":"m1","message_type":"ack""#))
        try await server.stop()
    }

    @Test func manyConnectionsOfOneSenderAtOnce() async throws {
        let server = try await start()
        let port = try #require(server.ccsPlainPort)
        let clients = try (0..<50).map { _ in try RawClient(port: port) }
        for client in clients { client.login() }
        let token = try await server.loop.submit { [host = server.host] in host.engine.devices[0].tokens["555"]! }
            .get()
        for (index, client) in clients.enumerated() {
            client.write(
                #"<message><gcm xmlns="google:mobile:data">{"to":"\#(token)","message_id":"c\#(index)"}</gcm></message>"#
            )
        }
        for (index, client) in clients.enumerated() {
            #expect(client.read(until: "message_type").contains(#""message_id":"c\#(index)""#))
        }
        try await server.stop()
    }

    @Test func unackedUpstreamIsSentAgainOnTheNextConnection() async throws {
        let server = try await start()
        let port = try #require(server.ccsPlainPort)
        let first = try RawClient(port: port)
        first.login()
        try await server.apply(
            .on(.send(UpstreamRequest(to: "555@fcm.googleapis.com", messageID: "u9", timeToLive: 600))))
        #expect(first.read(until: "u9").contains(#""message_id":"u9""#))
        first.write("</stream:stream>")
        _ = first.read(until: "</stream:stream>")
        let second = try RawClient(port: port)
        second.login()
        #expect(second.read(until: "u9").contains(#""message_id":"u9""#))
        try await server.stop()
    }
}
