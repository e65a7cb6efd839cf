import FCMEngine
import FCMProfiles
import FCMTerminalUI
import Testing

/// Topics from the keyboard: T subscribes or unsubscribes, the push form sends to a
/// topic or a condition, and the token detail lists the sender's topics.
@Suite("Topic keys")
struct TopicKeysTests {
    @Test func tSubscribesAndUnsubscribesTheSelectedSendersToken() {
        var model = Scenes.fresh()
        let sender = model.device.devices[0].senders[0].id
        Scenes.press(&model, [.character("T"), .control("u")] + Scenes.type("sport") + [.enter])
        #expect(model.device.devices[0].topics(of: sender) == ["sport"])
        #expect(model.log.last?.name == "topicSubscribed")
        Scenes.press(&model, [.character("T"), .control("u")] + Scenes.type("sport") + [.down, .right, .enter])
        #expect(model.device.devices[0].topics(of: sender).isEmpty)
    }

    @Test func aBadTopicNameIsExplainedUnderTheField() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("T"), .control("u")] + Scenes.type("no spaces") + [.enter])
        guard case .form(let form)? = model.overlay else {
            Issue.record("the form closed on a bad name")
            return
        }
        #expect(form.fields[0].error?.contains("names use only") == true)
        #expect(model.device.devices[0].topicCount == 0)
    }

    @Test func thePushFormSendsToATopicOrACondition() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("T"), .enter])
        let toTarget: [Key] = Array(repeating: .down, count: 12)
        Scenes.press(
            &model, [.character("p")] + toTarget + [.right, .down] + Scenes.type("news") + [.enter], from: 1_000)
        let received = model.log.last { $0.name == "onMessageReceived" }
        #expect(received?.string("from") == "/topics/news")
        Scenes.press(
            &model,
            [.character("p")] + toTarget + [.right, .right, .down] + Scenes.type("'news' in topics") + [.enter],
            from: 2_000)
        let accepted = model.log.last { $0.name == "downstreamAccepted" }
        #expect(accepted?.string("condition") == "'news' in topics")
        #expect(accepted?["subscribers"] == .int(1))
    }

    @Test func theInboxSaysATopicMessageCameFromItsTopic() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("T"), .enter])
        Scenes.press(
            &model,
            [.character("p")] + Array(repeating: .down, count: 12) + [.right, .down] + Scenes.type("news")
                + [.enter], from: 1_000)
        let screen = View.render(model, width: 200, height: 50).lines.joined(separator: "\n")
        #expect(screen.contains("onMessageReceived from /topics/news"), Comment(rawValue: screen))
    }

    @Test func aTopicTargetWithoutANameIsExplained() {
        var model = Scenes.fresh()
        Scenes.press(&model, [.character("p")] + Array(repeating: .down, count: 12) + [.right, .enter])
        guard case .form(let form)? = model.overlay else {
            Issue.record("the push form closed without a topic")
            return
        }
        #expect(form.fields.first { $0.name == .topicOrCondition }?.error?.contains("name the topic") == true)
    }
}
