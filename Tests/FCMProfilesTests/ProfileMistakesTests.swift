import FCMProfiles
import Testing

/// Every independent mistake of a profile in one run, in file order, and YAML's own
/// words explained beside the position.
@Suite("A profile's mistakes, all at once")
struct ProfileMistakesTests {
    func error(_ text: String) -> ProfileError? { ProfileErrorTests().error(text) }

    @Test func everyIndependentMistakeIsNamedInOneRunInFileOrder() throws {
        let problem = try #require(
            error(
                """
                version: 1
                colour: red
                device: { name: P, platfrom: android, state: backgrund }
                senders:
                  - { id: "123", key: k }
                timeline:
                  - at: 1s
                    push: { sender: "999", data: { a: "1" } }
                  - at: 2s
                    netwrok: offline
                  - at: 3s
                    expect: { event: notificationPostd }
                """))
        let lines = problem.description.split(separator: "\n").map(String.init)
        #expect(lines.count == 7, "\(problem.description)")
        #expect(lines[0].hasPrefix("p.yaml:2:1: unknown key \"colour\""))
        #expect(lines[1].hasPrefix("p.yaml:3:20: device: unknown key \"platfrom\"; did you mean platform?"))
        #expect(lines[2].contains("found \"backgrund\"; did you mean background?"))
        #expect(lines[3].hasPrefix("p.yaml:8:21:") && lines[3].contains("unknown sender \"999\""))
        #expect(lines[4].hasPrefix("p.yaml:10:5:") && lines[4].contains("did you mean network?"))
        #expect(lines[5].hasPrefix("p.yaml:12:22:") && lines[5].contains("did you mean notificationPosted?"))
        #expect(lines[6] == "6 mistakes in p.yaml")
        #expect(problem.all.count == 6)
    }

    @Test func oneMistakeReadsAsBefore() {
        let problem = error("version: 1\ncolour: red\nsenders: [{ id: \"1\", key: k }]\n")
        #expect(problem?.more.isEmpty == true)
        #expect(problem?.description.hasPrefix("p.yaml:2:1: unknown key \"colour\"") == true)
    }

    @Test func yamlIndentationMistakesAreExplainedInPlainWords() {
        let misplaced = error(
            "version: 1\nsenders:\n  - { id: \"1\", key: k }\ntimeline:\n  - at: 1s\n  network: offline\n")
        #expect(
            misplaced?.description.hasPrefix("p.yaml:6:3: invalid YAML: did not find expected '-' indicator") == true)
        #expect(misplaced?.message.contains("does not start with \"- \"") == true)
        let tab = error("version: 1\nsenders:\n\t- { id: \"1\", key: k }\n")
        #expect(tab?.message.contains("a tab: YAML indents with spaces only") == true, "\(String(describing: tab))")
        let unclosed = error("version: 1\nsenders:\n  - { id: \"1\", key: k\n")
        #expect(unclosed?.message.contains("a { … } mapping not closed on its line") == true)
        let nested = error("version: 1\ndevice:\n  name: a\n    platform: ios\nsenders: []\n")
        #expect(nested?.message.contains("mapping values are not allowed") == true)
        #expect(nested?.message.contains("indented too far") == true)
    }
}
