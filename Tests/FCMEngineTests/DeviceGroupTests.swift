import FCMEngine
import Foundation
import Testing

extension Harness {
    mutating func group(
        _ operation: GroupOrder.Operation, name: String? = "family", key: String? = nil, tokens: [String],
        sender: String = Harness.sender
    ) -> GroupOutcome {
        engine.handle(
            .input(
                .group(
                    GroupOrder(sender: sender, operation: operation, name: name, key: key, tokens: tokens)),
                at: engine.now),
            into: &events
        ).groupOutcome!
    }

    mutating func sendTo(_ key: String) -> SendOutcome {
        engine.handle(
            .input(
                .send(
                    [SendOrder(DownstreamRequest(sender: Harness.sender, to: key, data: [KeyValue("k", "v")]))]),
                at: engine.now), into: &events
        ).sendOutcome!
    }
}

@Suite("Device groups")
struct DeviceGroupTests {
    @Test func createAnswersANotificationKeyShapedLikeAToken() throws {
        var h = Harness()
        guard case .key(let key) = h.group(.create, tokens: [h.token]) else {
            Issue.record("create was refused")
            return
        }
        #expect(key.hasPrefix("APA91b") && key.count == 140 && !key.contains(":"))
        #expect(h.engine.groupKey(sender: Harness.sender, name: "family") == key)
        #expect(h.named("groupChanged").last?["members"] == .int(1))
    }

    @Test func aNameIsTakenOnceAndAnUnknownKeyIsNotFound() {
        var h = Harness()
        _ = h.group(.create, tokens: [h.token])
        #expect(h.group(.create, tokens: [h.token]) == .refused("notification_key already exists"))
        #expect(
            h.group(.add, name: nil, key: "APA91bnope", tokens: [h.token]) == .refused("notification_key not found"))
        #expect(h.named("groupRefused").count == 2)
    }

    @Test func aMessageToTheKeyReachesEveryMemberAndNamesTheOnesThatFailed() throws {
        var h = Harness()
        let old = h.token
        guard case .key(let key) = h.group(.create, tokens: [old]) else {
            Issue.record("create refused")
            return
        }
        h.run(.refreshToken(sender: nil))
        #expect(h.group(.add, name: nil, key: key, tokens: [h.token]) == .key(key))
        guard case .results(let results, let groups) = h.sendTo(key) else {
            Issue.record("service down")
            return
        }
        #expect(groups == [GroupDelivery(success: 1, failed: [old])])
        #expect((try? results[0].get()) != nil)
        #expect(h.named("onMessageReceived").count == 1)
    }

    @Test func aGroupHasAtMost20Members() {
        var h = Harness()
        guard case .key(let key) = h.group(.create, tokens: [h.token]) else {
            Issue.record("create refused")
            return
        }
        for _ in 1..<DeviceGroup.maxMembers {
            h.run(.refreshToken(sender: nil))
            #expect(h.group(.add, key: key, tokens: [h.token]) == .key(key))
        }
        h.run(.refreshToken(sender: nil))
        guard case .refused(let why) = h.group(.add, key: key, tokens: [h.token]) else {
            Issue.record("a 21st member was taken")
            return
        }
        #expect(why.contains("at most 20"))
        #expect(h.engine.server.groups.first?.members.count == 20)
    }

    @Test func removingTheLastMemberDeletesTheKey() {
        var h = Harness()
        guard case .key(let key) = h.group(.create, tokens: [h.token]) else {
            Issue.record("create refused")
            return
        }
        #expect(h.group(.remove, key: key, tokens: [h.token]) == .key(key))
        #expect(h.engine.server.groups.isEmpty)
        #expect(h.group(.add, key: key, tokens: [h.token]) == .refused("notification_key not found"))
    }

    @Test func onlyTheSendersOwnValidTokensJoin() {
        var h = Harness(senders: [Harness.sender, Harness.other])
        guard case .refused(let why) = h.group(.create, tokens: [h.engine.devices[0].tokens[Harness.other]!]) else {
            Issue.record("another sender's token joined")
            return
        }
        #expect(why.contains("not a valid registration token"))
        #expect(h.group(.create, tokens: []) == .refused("registration_ids is empty"))
        #expect(h.engine.server.groups.isEmpty)
    }

    @Test func groupsSurviveSavingAndLoading() throws {
        var h = Harness()
        _ = h.group(.create, tokens: [h.token])
        let loaded = try JSONDecoder().decode(DeviceEngine.self, from: try JSONEncoder().encode(h.engine))
        #expect(loaded.server.groups == h.engine.server.groups)
    }
}
