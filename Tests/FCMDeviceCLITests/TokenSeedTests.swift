import Foundation
import Testing

@Suite("Where tokens come from")
struct TokenSeedTests {
    func firstToken(_ arguments: [String]) throws -> String {
        let outcome = try CLI.run(["replay"] + arguments + ["--json"])
        let line = try #require(outcome.stdout.split(separator: "\n").first { $0.contains("onNewToken") })
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return try #require(object["token"] as? String)
    }

    @Test("without a seed, each run draws new tokens (the system CSPRNG)")
    func unseededTokensDiffer() throws {
        #expect(try firstToken([]) != (try firstToken([])))
    }

    @Test("a profile's seed makes tokens reproducible")
    func seededTokensRepeat() throws {
        let profile = CLI.profiles.appendingPathComponent("upstream-basics.yaml").path
        #expect(try firstToken([profile]) == (try firstToken([profile])))
    }
}
