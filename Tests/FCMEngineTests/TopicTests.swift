import FCMEngine
import Foundation
import Testing

extension Harness {
    @discardableResult
    mutating func topicPush(
        to topic: String? = nil, condition: String? = nil, data: [KeyValue] = [KeyValue("k", "v")],
        notification: [KeyValue]? = nil, priority: String? = nil, collapseKey: String? = nil, ttl: Int64? = nil
    ) -> [Event] {
        let request = DownstreamRequest(
            sender: Harness.sender, to: topic.map { "/topics/" + $0 }, data: data, notification: notification,
            collapseKey: collapseKey, priority: priority, timeToLive: ttl, condition: condition)
        return run(.push(request))
    }

    mutating func manage(
        _ change: TopicOrder.Change, _ topic: String, tokens: [String], api: TopicOrder.API = .iid,
        sender: String = Harness.sender, allowMissing: Bool = false
    ) -> TopicOutcome {
        engine.handle(
            .input(
                .topics(
                    TopicOrder(
                        sender: sender, topic: topic, tokens: tokens, change: change, api: api,
                        allowMissing: allowMissing)), at: engine.now), into: &events
        ).topicOutcome!
    }
}

@Suite("Topics: subscriptions")
struct TopicSubscriptionTests {
    @Test func appSubscribesTheDefaultSendersTokenToATopic() {
        var h = Harness(senders: [Harness.sender, Harness.other])
        let events = h.run(.subscribe(topic: "/topics/news", sender: nil))
        #expect(events.names == ["topicSubscribed"])
        #expect(events[0].string("sender") == Harness.sender)
        #expect(events[0].string("topic") == "news")
        #expect(h.engine.devices[0].topics(of: Harness.sender) == ["news"])
        #expect(h.engine.devices[0].topics(of: Harness.other).isEmpty)
    }

    @Test func subscriptionAskedForOfflineIsMadeOnReconnection() {
        var h = Harness()
        h.run(.setNetwork(.offline))
        #expect(h.run(.subscribe(topic: "news", sender: nil)).names == ["topicQueued"])
        #expect(h.engine.devices[0].topicCount == 0)
        let back = h.run(.setNetwork(.online))
        #expect(back.names.contains("topicSubscribed"))
        #expect(h.engine.devices[0].topics(of: Harness.sender) == ["news"])
    }

    @Test(arguments: ["", "bad name", "a/b", String(repeating: "x", count: 901), "émoji"])
    func badTopicNamesAreRefused(name: String) {
        var h = Harness()
        let events = h.run(.subscribe(topic: name, sender: nil))
        #expect(events.names == ["commandRefused"])
        #expect(h.engine.devices[0].topicCount == 0)
    }

    @Test func anAppInstanceHoldsAtMost2000Topics() {
        var h = Harness()
        for n in 0..<ServiceLimits.maxTopicsPerInstance { h.run(.subscribe(topic: "t\(n)", sender: nil)) }
        let events = h.run(.subscribe(topic: "one-more", sender: nil))
        #expect(events.first?.name == "topicRefused")
        #expect(events.first?.string("error") == "TOO_MANY_TOPICS")
        #expect(h.engine.devices[0].topicCount == 2000)
        let token = h.token
        #expect(h.manage(.add, "via-server", tokens: [token]) == .results([.tooManyTopics]))
    }

    @Test func uninstallDropsSubscriptionsAndRefreshKeepsThem() {
        var h = Harness()
        h.run(.subscribe(topic: "news", sender: nil))
        h.run(.refreshToken(sender: nil))
        #expect(h.engine.devices[0].topics(of: Harness.sender) == ["news"])
        h.run(.uninstall)
        h.run(.reinstall)
        #expect(h.engine.devices[0].topicCount == 0)
    }

    @Test func iidBatchAnswersPerTokenInOrder() {
        var h = Harness(senders: [Harness.sender, Harness.other])
        let old = h.token
        h.run(.refreshToken(sender: Harness.sender))
        let tokens = [h.token, "garbage", old, h.engine.devices[0].tokens[Harness.other]!]
        let outcome = h.manage(.add, "/topics/news", tokens: tokens)
        #expect(outcome == .results([nil, .invalidArgument, .notFound, .invalidArgument]))
        #expect(h.engine.devices[0].topics(of: Harness.sender) == ["news"])
        #expect(h.named("topicRefused").count == 3)
        #expect(h.manage(.remove, "news", tokens: [h.token]) == .results([nil]))
        #expect(h.engine.devices[0].topicCount == 0)
    }

    @Test func v1CreateOfAnExistingSubscriptionIsAlreadyExistsAndDeleteHonoursAllowMissing() {
        var h = Harness()
        let token = h.token
        #expect(h.manage(.add, "news", tokens: [token], api: .v1) == .results([nil]))
        #expect(h.manage(.add, "news", tokens: [token], api: .v1) == .results([.alreadyExists]))
        #expect(h.manage(.remove, "news", tokens: [token], api: .v1) == .results([nil]))
        #expect(h.manage(.remove, "news", tokens: [token], api: .v1) == .results([.notFound]))
        #expect(h.manage(.remove, "news", tokens: [token], api: .v1, allowMissing: true) == .results([nil]))
    }

    @Test func topicCallsRefuseBadNamesAndMoreThan1000Tokens() {
        var h = Harness()
        guard case .refused(let why) = h.manage(.add, "no spaces", tokens: [h.token]) else {
            Issue.record("a bad topic name was not refused")
            return
        }
        #expect(why.contains("no spaces"))
        let many = Array(repeating: h.token, count: 1001)
        guard case .refused(let tooMany) = h.manage(.add, "news", tokens: many) else {
            Issue.record("1,001 tokens were not refused")
            return
        }
        #expect(tooMany.contains("1000"))
        #expect(h.engine.devices[0].topicCount == 0)
    }

    @Test func topicCallsWhileTheServiceIsDownChangeNothing() {
        var h = Harness()
        h.run(.setService(up: false))
        #expect(
            h.manage(.add, "news", tokens: [h.engine.devices[0].issuedTokens[Harness.sender]!.last!]) == .serviceDown)
        #expect(h.engine.devices[0].topicCount == 0)
    }

    @Test func subscriptionsSurviveSavingAndLoading() throws {
        var h = Harness()
        h.run(.subscribe(topic: "news", sender: nil))
        h.run(.setNetwork(.offline))
        h.run(.subscribe(topic: "sport", sender: nil))
        let data = try JSONEncoder().encode(h.engine)
        let loaded = try JSONDecoder().decode(DeviceEngine.self, from: data)
        #expect(loaded.devices[0].topics == h.engine.devices[0].topics)
        #expect(loaded.devices[0].pendingTopicChanges.map(\.topic) == ["sport"])
    }
}

@Suite("Topics: messages to topics and conditions")
struct TopicMessageTests {
    @Test func aSubscriberGetsATopicMessageFromTheTopic() {
        var h = Harness()
        h.run(.subscribe(topic: "news", sender: nil))
        let events = h.topicPush(to: "news")
        #expect(events.names == ["downstreamAccepted", "onMessageReceived"])
        #expect(events[0].string("topic") == "news")
        #expect(events[0]["subscribers"] == .int(1))
        #expect(events[1].string("from") == "/topics/news")
        #expect(Int64(events[0].string("id") ?? "") != nil, "a topic message id is a number")
    }

    @Test func aTopicMessageReachesNoOneWhenNobodySubscribed() {
        var h = Harness()
        let events = h.topicPush(to: "news")
        #expect(events.names == ["downstreamAccepted"])
        #expect(events[0]["subscribers"] == .int(0))
    }

    @Test func topicMessagesFollowTheDevicesOwnRules() {
        var h = Harness()
        h.run(.subscribe(topic: "news", sender: nil))
        h.run(.setNetwork(.offline))
        h.topicPush(to: "news", collapseKey: "headline")
        let second = h.topicPush(to: "news", collapseKey: "headline")
        #expect(second.names == ["downstreamAccepted", "collapsed", "stored"])
        let back = h.run(.setNetwork(.online))
        #expect(back.named("onMessageReceived").count == 1)
        #expect(back.named("onMessageReceived").first?.string("from") == "/topics/news")
    }

    @Test func topicMessagesAreLimitedTo2048Bytes() {
        var h = Harness()
        let events = h.topicPush(to: "news", data: [KeyValue("k", String(repeating: "x", count: 2048))])
        #expect(events.first?.string("error") == "MessageTooBig")
        #expect(events.first?.string("detail")?.contains("2048") == true)
    }

    @Test func aConditionMatchesBySubscriptions() {
        var h = Harness()
        h.run(.subscribe(topic: "a", sender: nil))
        h.run(.subscribe(topic: "b", sender: nil))
        #expect(h.topicPush(condition: "'a' in topics && 'b' in topics")[0]["subscribers"] == .int(1))
        #expect(h.topicPush(condition: "'a' in topics && 'c' in topics")[0]["subscribers"] == .int(0))
        #expect(
            h.topicPush(condition: "'c' in topics || ('a' in topics && !('c' in topics))")[0]["subscribers"] == .int(1))
    }

    @Test func aBadConditionIsInvalidParametersNamingTheColumn() {
        var h = Harness()
        let events = h.topicPush(condition: "'a' in topics &&")
        #expect(events.first?.string("error") == "InvalidParameters")
        #expect(events.first?.string("detail")?.contains("column 17") == true)
    }

    @Test func aBadTopicNameIsInvalidParameters() {
        var h = Harness()
        #expect(h.topicPush(to: "no spaces").first?.string("error") == "InvalidParameters")
    }
}

@Suite("Topics: conditions")
struct TopicConditionTests {
    @Test func operatorsPrecedenceAndNegation() throws {
        let parsed = try TopicCondition.parse("'a' in topics || 'b' in topics && !('c' IN Topics)").get()
        #expect(parsed == .or(.topic("a"), .and(.topic("b"), .not(.topic("c")))))
        #expect(parsed.matches(["b"]))
        #expect(!parsed.matches(["b", "c"]))
        #expect(try TopicCondition.parse("!('a' in topics)").get().matches([]))
    }

    @Test(arguments: [
        ("'a' in topics && ", 18, "quoted topic"),
        ("'a in topics", 1, "never closed"),
        ("('a' in topics", 15, ")"),
        ("'a' on topics", 5, "expected in topics"),
        ("'a' in topics 'b' in topics", 15, "&& or ||"),
        ("'a b' in topics", 1, "\" \""),
    ])
    func mistakesAreNamedWithTheirColumn(text: String, column: Int, words: String) {
        guard case .failure(let error) = TopicCondition.parse(text) else {
            Issue.record("\(text) was read")
            return
        }
        #expect(error.column == column, "\(error)")
        #expect(error.reason.contains(words), "\(error)")
    }

    @Test func atMostFiveTopics() {
        let five = (1...5).map { "'t\($0)' in topics" }.joined(separator: " || ")
        #expect((try? TopicCondition.parse(five).get()) != nil)
        guard case .failure(let error) = TopicCondition.parse(five + " || 't6' in topics") else {
            Issue.record("six topics were read")
            return
        }
        #expect(error.reason.contains("6 topics"))
    }
}

@Suite("Topics: a v1 registration by token or FID")
struct TopicRegistrationTests {
    @Test func aV1RegistrationMayBeNamedByItsInstallationsFID() {
        var harness = Harness(senders: [Harness.sender, Harness.other])
        let token = harness.token
        let fid = String(token.prefix { $0 != ":" })
        #expect(harness.manage(.add, "news", tokens: [fid], api: .v1) == .results([nil]))
        #expect(harness.engine.subscriptions(ofRegistration: token, sender: Harness.sender) == .success(["news"]))
        #expect(harness.engine.subscriptions(ofRegistration: fid, sender: Harness.sender) == .success(["news"]))
        // The FID names the installation; the other sender's topics are its own.
        #expect(harness.engine.subscriptions(ofRegistration: fid, sender: Harness.other) == .success([]))
        // The IID API takes tokens only.
        #expect(harness.manage(.add, "sports", tokens: [fid]) == .results([.invalidArgument]))
    }

    @Test func theSubscriptionsOfAnOldTokenAreNotFoundAndOfAnotherSendersTokenRefused() {
        var harness = Harness(senders: [Harness.sender, Harness.other])
        let old = harness.token
        let others = harness.engine.devices[0].tokens[Harness.other]!
        harness.run(.refreshToken(sender: Harness.sender))
        #expect(harness.engine.subscriptions(ofRegistration: old, sender: Harness.sender) == .failure(.notFound))
        #expect(
            harness.engine.subscriptions(ofRegistration: others, sender: Harness.sender) == .failure(.invalidArgument))
        #expect(
            harness.engine.subscriptions(ofRegistration: "junk", sender: Harness.sender) == .failure(.invalidArgument))
    }

    @Test func anAddressIsATopicsWhenItsBytesBeginWithTheTopicsPrefix() {
        let topics = ["/topics/news", "/topics/", "/topics/a%b"]
        let others = ["", "/topics", "/topicsx/news", "/Topics/news", "news", "x/topics/news", "/topic/s"]
        #expect(topics.allSatisfy(TopicName.isTopicAddress) && !others.contains(where: TopicName.isTopicAddress))
        #expect(TopicName.bare("/topics/news") == "news" && TopicName.bare("news") == "news")
        let request = DownstreamRequest(sender: "1", to: "/topics/news", data: [])
        #expect(request.isTopicSend && request.topic == "news")
    }
}
