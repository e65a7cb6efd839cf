import Testing

@testable import FCMEngine
@testable import FCMProfiles

/// The step vocabulary is declared once: every kind of step is written and read back
/// by the same table, and names its commands as the engine's refusals do.
@Suite("One step vocabulary")
struct StepVocabularyTests {
    static let header = """
        version: 1
        devices:
          - { name: a, platform: android, seed: 5 }
          - { name: w, platform: web, app: "https://app.example.com", seed: 6 }
        senders:
          - { id: "111", key: k }
          - { id: "222", key: k2 }
        timeline:

        """

    /// One action of every kind (and of each form a kind takes), on a fleet of an
    /// Android phone and a browser.
    static let samples: [StepAction] = {
        let push = DownstreamRequest(
            sender: "111", to: nil, messageID: "p1", data: [KeyValue("k", "v")],
            notification: [KeyValue("title", "Hi")], collapseKey: "c", priority: "high", timeToLive: 60,
            contentAvailable: true)
        var latest = PushStep(request: push, tokenOwner: "111")
        latest.devices = ["a"]
        var previous = PushStep(
            request: DownstreamRequest(sender: "111", to: nil), target: .previous, tokenOwner: "222")
        previous.devices = ["a"]
        var blocks = PushStep(
            request: DownstreamRequest(sender: "111", to: nil), target: .literal("tok"), tokenOwner: "111")
        blocks.overrides = PlatformOverrides(android: MessageOverride(collapseKey: "k", priority: "high"))
        let on = { (command: PhoneCommand) in StepAction.command(.on(device: "a", command)) }
        let web = { (command: PhoneCommand) in StepAction.command(.on(device: "w", command)) }
        return [
            on(
                .send(
                    UpstreamRequest(
                        to: "111@fcm.googleapis.com", messageID: "u1", timeToLive: 60,
                        data: [DataItem("k", .string("v"))]))),
            .push(latest), .push(previous), .push(blocks),
            .push(
                PushStep(request: DownstreamRequest(sender: "111", to: nil), target: .topic("news"), tokenOwner: "111")),
            .push(
                PushStep(
                    request: DownstreamRequest(sender: "111", to: nil), target: .condition("'a' in topics"),
                    tokenOwner: "111")),
            .push(
                PushStep(request: DownstreamRequest(sender: "111", to: nil), target: .group("fam"), tokenOwner: "111")),
            .push(
                PushStep(
                    request: DownstreamRequest(sender: "111", to: nil, messageID: "c1"), target: .literal("tok"),
                    tokenOwner: "111", connection: 3)),
            on(.setNetwork(.offline)), on(.setAppState(.background)), on(.setDoze(true)),
            .command(.setService(up: false)),
            on(.refreshToken(sender: "111")), on(.refreshToken(sender: nil)), on(.uninstall), on(.reinstall),
            on(.reinstallAs(platform: .ios, sdk: .gcm)), on(.tap(.last)), on(.tap(.index(2))), on(.tap(.id("m-1"))),
            .expect(
                Expectation(
                    event: "onMessageReceived", side: .device, fields: [ExpectedField(name: "id", value: .scalar("p1"))]
                )),
            .expectNone(Expectation(event: "notificationPosted", side: nil, fields: [])),
            .command(.drain), on(.addSender(SenderConfig(id: "333", key: "k3", project: "p3"))),
            on(.removeSender("222")),
            .command(.ackUpstream(sender: "111", id: "u1")), .command(.appServer(.received(3, .ack(messageID: "u2")))),
            .command(.appServer(.connected(3, sender: "111"))), .command(.appServer(.closed(3))),
            on(.subscribe(topic: "news", sender: nil)), on(.subscribe(topic: "news", sender: "222")),
            on(.unsubscribe(topic: "news", sender: nil)),
            .command(.addFault(Fault(path: "/fcm/send", kind: .status(503, retryAfter: 2), count: 1))),
            .command(.clearFaults),
            .command(.addDevice(DeviceSpec(DeviceSettings(name: "b", platform: .ios, seed: 9), senders: ["111"]))),
            .command(
                .group(GroupOrder(sender: "111", operation: .create, name: "fam", key: nil, tokens: []), phones: ["a"])),
            .command(
                .topics(
                    TopicOrder(sender: "111", topic: "news", tokens: ["tok"], change: .remove, api: .iid), phones: ["w"]
                )),
            web(.getToken(sender: nil)), web(.getToken(sender: "111", vapidKey: "BKey")),
            web(.getToken(sender: nil, vapidKey: "BKey")), web(.deleteToken(sender: "111")),
            web(.setPermission(.denied)), web(.webPush(WebPushStep(data: "hi"))),
            web(
                .webPush(
                    WebPushStep(
                        data: "x: y", ttl: nil, topic: "score", urgency: "high", encoding: .aesgcm, vapid: .wrong,
                        brokenBody: true))),
            web(.webPush(WebPushStep(data: "soon", ttl: 60, vapid: .none))),
        ]
    }()

    @Test("every kind of step is written and read back unchanged, and every kind has a sample")
    func everyKindRoundTrips() throws {
        var keys: Set<String> = []
        for action in Self.samples {
            let written = try #require(ProfileWriter.step(action), "no step says \(action)")
            let profile = try ProfileParser.parse(Self.header + "  - at: 1s\n    " + written + "\n", file: "v.yaml")
            let step = try #require(profile.steps.first)
            #expect(ProfileWriter.step(step.action) == written)
            let key = String(written.split(separator: "\n").last!.prefix { $0 != ":" }).trimmingCharacters(
                in: .whitespaces)
            keys.insert(key)
        }
        #expect(
            keys == Set(StepVocabulary.keys), "kinds without a sample: \(Set(StepVocabulary.keys).subtracting(keys))")
    }

    @Test("a command's name in the engine's refusals is its step's key")
    func refusalsNameTheStep() {
        for action in Self.samples {
            guard case .command(let command) = action, let written = ProfileWriter.step(action) else { continue }
            let key = written.split(separator: "\n").last!.prefix { $0 != ":" }.trimmingCharacters(in: .whitespaces)
            let name = command.stepName
            if name != "command" { #expect(name == key, "\(command)") }
        }
    }
}
