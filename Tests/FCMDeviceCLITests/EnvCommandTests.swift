import Foundation
import Testing

@Suite("fcm-device env")
struct EnvCommandTests {
    @Test func withNoEmulatorRunningItSaysHowToStartOne() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID().uuidString)").path
        let outcome = try CLI.run(["env", "--state", state])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("no emulator runs") && outcome.stderr.contains("fcm-device serve"))
        #expect(outcome.stdout.isEmpty)
    }

    @Test func forARunningServeItPrintsTheProxyAndTheCAForEachShell() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let (process, out) = try CLI.serve(state: state)
        defer {
            process.interrupt()
            process.waitUntilExit()
        }
        let listening = String(decoding: out.availableData, as: UTF8.self)
        let port = try #require(
            listening.split(separator: "\"http\":").last?.prefix { $0.isNumber }.description)
        let sh = try CLI.run(["env", "--state", state])
        #expect(sh.status == 0, "\(sh.stderr)")
        #expect(sh.stdout.contains("export HTTPS_PROXY='http://127.0.0.1:\(port)'"))
        #expect(sh.stdout.contains("export REQUESTS_CA_BUNDLE='\(state)/ccs-ca.pem'"))
        #expect(sh.stdout.contains("-Djavax.net.ssl.trustStore=\(state)/ca-truststore.p12"))
        let fish = try CLI.run(["env", "--state", state, "--shell", "fish"])
        #expect(fish.stdout.contains("set -gx NODE_USE_ENV_PROXY '1';"))
        let json = try CLI.run(["env", "--state", state, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: String]
        #expect(object?["SSL_CERT_FILE"] == "\(state)/ccs-ca.pem")
        #expect(object?["HTTPLIB2_CA_CERTS"] == "\(state)/ccs-ca.pem", "httplib2 trusts only this")
        #expect(object?["NO_PROXY"]?.contains("127.0.0.1") == true)
    }
}
