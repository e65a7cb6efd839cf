import FCMConnectionServer
import FCMEngine
import FCMHTTPAPI
import FCMSession
import Foundation
import Testing

@Suite("The HTTPS proxy on the HTTP port, live on loopback", .serialized)
struct LiveProxyTests {
    /// A server whose HTTP port also takes CONNECT, with a TLS identity in a fresh folder.
    func start(log: LiveHTTPTests.Log) async throws -> (ConnectionServer, port: Int, folder: String) {
        let folder = NSTemporaryDirectory() + "fcm-proxy-" + UUID().uuidString
        let (server, port, _) = try await LiveHTTPTests().start(log: log, tls: try TLSIdentity.inFolder(folder))
        return (server, port, folder)
    }

    @Test("a CONNECT elsewhere is 403, a malformed one 400, each an event; plain requests are served beside them")
    func refusedTunnels() async throws {
        let log = LiveHTTPTests.Log()
        let (server, port, folder) = try await start(log: log)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let elsewhere = try RawClient(port: port)
        elsewhere.write("CONNECT www.example.com:443 HTTP/1.1\r\nHost: www.example.com:443\r\n\r\n")
        let refused = await elsewhere.reply(until: "network\n")
        #expect(refused.hasPrefix("HTTP/1.1 403 Forbidden"), "\(refused)")
        let malformed = try RawClient(port: port)
        malformed.write("CONNECT fcm.googleapis.com HTTP/1.1\r\n\r\n")
        #expect(await malformed.reply(until: "port\n").hasPrefix("HTTP/1.1 400 Bad Request"))
        let plain = try RawClient(port: port)
        plain.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await plain.reply(until: "ok\n").hasPrefix("HTTP/1.1 200 OK"))
        let rejected = log.named("requestRejected").filter { $0.string("method") == "CONNECT" }
        #expect(rejected.map { $0.string("path") } == ["www.example.com:443", "fcm.googleapis.com"])
        try await server.stop()
    }

    @Test("a tunnel whose client speaks no TLS fails on its own connection, with an event")
    func tunnelWithoutTLS() async throws {
        let log = LiveHTTPTests.Log()
        let (server, port, folder) = try await start(log: log)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let client = try RawClient(port: port)
        client.write("CONNECT fcm.googleapis.com:443 HTTP/1.1\r\n\r\n")
        #expect(await client.reply(until: "\r\n\r\n") == "HTTP/1.1 200 Connection established\r\n\r\n")
        client.write("POST /fcm/send HTTP/1.1\r\nHost: fcm.googleapis.com\r\n\r\n")
        _ = client.available(within: 500)
        let failure = try #require(log.named("requestRejected").first { $0.string("method") == "TLS" })
        #expect(failure.string("reason")?.contains("the tunnel to fcm.googleapis.com") == true)
        let plain = try RawClient(port: port)
        plain.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await plain.reply(until: "ok\n").hasPrefix("HTTP/1.1 200 OK"))
        try await server.stop()
    }

    @Test(
        "connections that sent nothing, or closed their side first, neither hold the server up nor stop it stopping",
        .timeLimit(.minutes(1)))
    func silentConnectionsEnd() async throws {
        let log = LiveHTTPTests.Log()
        let (server, port, folder) = try await start(log: log)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let silent = try RawClient(port: port)
        let silentTunnel = try RawClient(port: port)
        silentTunnel.write("CONNECT fcm.googleapis.com:443 HTTP/1.1\r\n\r\n")
        #expect(await silentTunnel.reply(until: "\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        let halfClosed = try RawClient(port: port)
        halfClosed.write("CONN")
        shutdown(halfClosed.socket, Int32(SHUT_WR))
        #expect(halfClosed.available(within: 2_000).isEmpty, "closed without a reply")
        let plain = try RawClient(port: port)
        plain.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(await plain.reply(until: "ok\n").hasPrefix("HTTP/1.1 200 OK"))
        try await server.stop()
        #expect(silent.available(within: 1_000).isEmpty)
        #expect(
            log.named("requestRejected").contains {
                $0.string("reason")?.contains("stopped before the client finished its TLS handshake") == true
            })
    }

    @Test("the certificate names every host the proxy tunnels to; one made before the proxy is made anew")
    func certificateCoversTheHosts() throws {
        let folder = NSTemporaryDirectory() + "fcm-cert-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let identity = try TLSIdentity.inFolder(folder)
        let pem = try String(contentsOfFile: identity.certificatePath, encoding: .utf8)
        #expect(TLSIdentity.coversEveryHost(identity.certificatePath))
        // An older release's certificate, without the proxy's hosts.
        try String(pem.prefix(pem.count / 2)).write(toFile: identity.certificatePath, atomically: true, encoding: .utf8)
        let renewed = try TLSIdentity.inFolder(folder)
        #expect(TLSIdentity.coversEveryHost(renewed.certificatePath))
        #expect(try String(contentsOfFile: renewed.certificatePath, encoding: .utf8) != pem)
        let mode = try FileManager.default.attributesOfItem(atPath: renewed.keyPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("the trust store for a JVM is one DER PKCS12 holding the CA certificate")
    func trustStore() throws {
        let folder = NSTemporaryDirectory() + "fcm-p12-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let identity = try TLSIdentity.inFolder(folder)
        try TrustStore.write(certificateFrom: identity.trustPath, to: folder + "/trust.p12")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/trust.p12")))
        #expect(bytes.first == 0x30)
        // Java's trusted-certificate attribute (OID 2.16.840.1.113894.746875.1.1) is there.
        let javaTrust: [UInt8] = [0x06, 0x0C, 0x60, 0x86, 0x48, 0x01, 0x86, 0xF9, 0x66, 0xAD, 0xCA, 0x7B, 0x01, 0x01]
        #expect(bytes.windows(ofCount: javaTrust.count).contains { $0.elementsEqual(javaTrust) })
    }
}

extension [UInt8] {
    fileprivate func windows(ofCount count: Int) -> [ArraySlice<UInt8>] {
        guard self.count >= count else { return [] }
        return (0...(self.count - count)).map { self[$0..<$0 + count] }
    }
}

@Suite("The environment that points SDKs at the emulator")
struct ProxyEnvironmentTests {
    @Test func valuesAreQuotedForEachShellAndTheJVM() {
        let environment = ProxyEnvironment(
            proxy: "127.0.0.1:8085", caFile: "/home/Jane's \\files/ca.pem", trustStore: "/home/Jane Doe/ca.p12")
        let sh = environment.script(fish: false)
        #expect(sh.contains(#"export SSL_CERT_FILE='/home/Jane'\''s \files/ca.pem'"#))
        let fish = environment.script(fish: true)
        #expect(fish.contains(#"set -gx SSL_CERT_FILE '/home/Jane\'s \\files/ca.pem';"#))
        let java = environment.variables.first { $0.name == "JAVA_TOOL_OPTIONS" }?.value ?? ""
        #expect(java.contains(#""-Djavax.net.ssl.trustStore=/home/Jane Doe/ca.p12""#))
        #expect(java.hasPrefix("-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=8085 "))
    }

    @Test func anIPv6BindIsBracketedInTheProxyURL() {
        let running = RunningEmulator(pid: 1, bind: "::1", http: 8085, caFile: "/ca.pem", trustStore: "/ca.p12")
        #expect(running.proxyEnvironment.variables.first?.value == "http://[::1]:8085")
        let java = running.proxyEnvironment.variables.first { $0.name == "JAVA_TOOL_OPTIONS" }?.value ?? ""
        #expect(java.hasPrefix("-Dhttps.proxyHost=::1 -Dhttps.proxyPort=8085"))
    }
}
