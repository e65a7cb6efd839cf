import Foundation
import Testing

/// `state --json` and the control API's `GET devices` describe each phone with the
/// same document, on a live fleet.
@Suite("One view of a phone")
struct OneViewOfAPhoneTests {
    static let fleet = """
        version: 1
        devices:
          - { name: pixel, platform: android, seed: 3 }
          - { name: iphone, platform: ios, senders: ["222"], network: offline }
        senders:
          - { id: "111", key: k1, project: first }
          - { id: "222", key: k2, project: second }
        timeline: []
        """

    static func get(_ url: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "10", url]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    @Test func stateJSONAndGetDevicesAreTheSameDocumentForEveryPhone() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        let profile = try CLI.temporaryProfile(Self.fleet)
        let (process, out) = try CLI.serve(state: state, profile: profile)
        let listening = String(decoding: out.availableData, as: UTF8.self)
        let port = try #require(listening.split(separator: "\"http\":").last?.prefix { $0.isNumber }.description)
        // The second phone's project is served: no phone is "the device". The ports open
        // before the phones get their tokens: asked until both phones have them.
        var live = Data()
        for _ in 0..<50 {
            live = try Self.get("http://127.0.0.1:\(port)/emulator/v1/projects/second/devices")
            if !String(decoding: live, as: UTF8.self).contains("null"), !live.isEmpty { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        process.interrupt()
        process.waitUntilExit()
        let served = try #require(try JSONSerialization.jsonObject(with: live) as? [String: Any], "\(live)")
        let saved = try CLI.run(["state", "--state", state, "--profile", profile, "--json"])
        #expect(saved.status == 0, "\(saved.stderr)")
        let file = try #require(try JSONSerialization.jsonObject(with: Data(saved.stdout.utf8)) as? [String: Any])
        let fromServer = try #require(served["devices"] as? [NSDictionary])
        let fromFile = try #require(file["devices"] as? [NSDictionary])
        #expect(fromServer.count == 2)
        #expect(fromServer == fromFile)
        #expect(fromFile.last?["platform"] as? String == "ios")
        #expect((fromFile.last?["tokens"] as? [String: String])?.keys.sorted() == ["222"])
    }
}
