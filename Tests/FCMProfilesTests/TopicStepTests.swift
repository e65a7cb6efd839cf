import FCMEngine
import FCMProfiles
import Testing

@Suite("Profile topic steps")
struct TopicStepTests {
    static let header = """
        version: 1
        device: { seed: 5 }
        senders:
          - { id: "111", key: k }
          - { id: "222", key: k2 }
        timeline:

        """

    func parse(_ steps: String) throws -> Profile {
        try ProfileParser.parse(Self.header + steps, file: "t.yaml")
    }

    func problem(_ steps: String) -> String? {
        do {
            _ = try parse(steps)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func subscribeTopicAndConditionStepsPlay() throws {
        let profile = try parse(
            """
              - at: 0s
                subscribe: /topics/news
              - at: 0s
                subscribe: { topic: sport, sender: "222" }
              - at: 1s
                push: { sender: "111", topic: news, id: n-1, data: { k: v } }
              - at: 1s
                expect: { event: onMessageReceived, id: n-1, from: /topics/news }
              - at: 2s
                push: { sender: "222", condition: "'sport' in topics && !('news' in topics)", id: c-1 }
              - at: 2s
                expect: { event: onMessageReceived, id: c-1 }
              - at: 3s
                unsubscribe: news
              - at: 4s
                push: { sender: "111", topic: news, id: n-2 }
              - at: 4s
                expect: { event: downstreamAccepted, id: n-2, subscribers: "0" }
            """)
        let result = Replayer.run(profile)
        let failed = result.checks.filter { !$0.passed }.map { $0.detail ?? "" }
        #expect(result.checks.count == 3)
        #expect(failed.isEmpty, "\(failed)")
    }

    @Test(arguments: [
        ("  - at: 0s\n    subscribe: bad name\n", "t.yaml:8:16", "names use only"),
        ("  - at: 0s\n    subscribe: { topic: x, sender: \"999\" }\n", "t.yaml:8:", "unknown sender"),
        ("  - at: 0s\n    push: { sender: \"111\", topic: a, to: latest }\n", "t.yaml:8:", "give one target"),
        ("  - at: 0s\n    push: { sender: \"111\", condition: \"'a' in topics ||\" }\n", "t.yaml:8:", "column 17"),
        ("  - at: 0s\n    push: { sender: \"111\", topic: a, token_of: \"222\" }\n", "t.yaml:8:", "token_of"),
    ])
    func badTopicStepsAreNamedWithTheirPlace(steps: String, place: String, words: String) {
        let text = problem(steps) ?? ""
        #expect(text.hasPrefix(place), "\(text)")
        #expect(text.contains(words), "\(text)")
    }

    @Test func topicStepsSurviveAWriteAndARead() throws {
        let source = try parse(
            """
              - at: 0s
                subscribe: news
              - at: 0s
                subscribe: { topic: sport, sender: "222" }
              - at: 1s
                push: { sender: "111", condition: "'news' in topics", id: c-1 }
              - at: 2s
                push: { sender: "111", topic: news, id: t-1 }
            """)
        let yaml = ProfileWriter.yaml(
            profile: source, played: source.steps,
            inputs: [.input(.on(.unsubscribe(topic: "news", sender: nil)), at: 3_000)]
        )
        let back = try ProfileParser.parse(yaml, file: "saved.yaml")
        #expect(back.steps.count == 5)
        let before = Replayer.run(source).events
        let after = Replayer.run(back).events
        #expect(Array(after.prefix(before.count)) == before)
        #expect(after.last?.name == "topicUnsubscribed")
        guard case .command(.on(_, .unsubscribe(let topic, nil))) = back.steps[4].action else {
            Issue.record("the last step is not the unsubscribe")
            return
        }
        #expect(topic == "news")
    }
}
