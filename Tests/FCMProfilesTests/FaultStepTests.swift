import FCMEngine
import FCMProfiles
import Testing

@Suite("Profile fault steps")
struct FaultStepTests {
    static let header = """
        version: 1
        device: { seed: 5 }
        senders:
          - { id: "111", key: k }
        timeline:

        """

    func fault(_ value: String) throws -> Fault {
        let profile = try ProfileParser.parse(Self.header + "  - at: 0s\n    fault: \(value)\n", file: "f.yaml")
        guard case .command(.addFault(let fault)) = profile.steps.first?.action else {
            throw ProfileError(SourceLocation(file: "f.yaml", line: 0, column: 0), "not a fault step")
        }
        return fault
    }

    func problem(_ value: String) -> String? {
        do {
            _ = try fault(value)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: [
        ("{ path: /fcm/send, reset: true }", Fault(path: "/fcm/send", kind: .reset)),
        ("{ sender: \"111\", drain: true }", Fault(sender: "111", kind: .drain)),
        ("{ path: /v1, goaway: true, count: 2 }", Fault(path: "/v1", kind: .goaway, count: 2)),
        ("{ token: abc, rate: 240/1m }", Fault(token: "abc", kind: .rate(limit: 240, per: 60_000))),
        (
            "{ topic: news, rate: 5000 / 1h, duration: 2h }",
            Fault(topic: "news", kind: .rate(limit: 5_000, per: 3_600_000), duration: 7_200_000)
        ),
    ])
    func everyKindIsReadAndWrittenBack(text: String, expected: Fault) throws {
        let read = try fault(text)
        #expect(read == expected)
        let written = try #require(ProfileWriter.step(.command(.addFault(read))))
        #expect(try fault(String(written.dropFirst("fault: ".count))) == expected)
    }

    @Test(arguments: [
        ("{ token: abc, rate: fast }", "MESSAGES/DURATION"),
        ("{ token: abc, rate: 0/1m }", "MESSAGES/DURATION"),
        ("{ path: /v1, rate: 5/1m }", "not path"),
        ("{ token: abc, rate: 5/1m, count: 2 }", "not a count"),
        ("{ path: /v1, drain: true }", "sender alone"),
        ("{ path: /v1, reset: false }", "write reset: true"),
        ("{ path: /v1, reset: true, status: 503 }", "does one thing"),
        ("{ path: /v1 }", "reset, goaway, drain or rate"),
        ("{ sender: \"111\", goaway: true }", "give it a path"),
    ])
    func badFaultStepsAreNamed(text: String, words: String) {
        let problem = problem(text)
        #expect(problem?.contains(words) == true, "\(problem ?? "accepted")")
        #expect(problem?.hasPrefix("f.yaml:") == true)
    }
}
