import FCMEngine
import Testing

@Suite("Registration")
struct RegistrationTests {
    @Test func tokenPerSenderIsIssuedAtStartWithOnNewToken() {
        let h = Harness(senders: [Harness.sender, Harness.other])
        let tokens = h.named("onNewToken")
        #expect(tokens.count == 2)
        #expect(tokens.map { $0.string("sender") } == [Harness.sender, Harness.other])
        #expect(tokens[0].string("token") != tokens[1].string("token"))
    }

    @Test func fcmTokensLookRealAndShareTheInstanceID() {
        let h = Harness(senders: [Harness.sender, Harness.other])
        let a = h.engine.devices[0].tokens[Harness.sender]!
        let b = h.engine.devices[0].tokens[Harness.other]!
        #expect(a.count == TokenFactory.fcmLength)
        #expect(a.contains(":APA91b"))
        #expect(a.prefix(12) == b.prefix(12))
        #expect(TokenFactory.isWellFormed(a))
    }

    @Test func gcmTokensStartWithAPA91b() {
        let h = Harness(sdk: .gcm)
        #expect(h.token.hasPrefix("APA91b"))
        #expect(h.token.count == TokenFactory.gcmLength)
    }

    @Test func tokensAreReproducibleFromTheSeed() {
        #expect(Harness(seed: 42).token == Harness(seed: 42).token)
        #expect(Harness(seed: 42).token != Harness(seed: 43).token)
    }

    @Test func fixedTokenFromTheProfileIsUsedFirst() {
        let config = EngineConfiguration(senders: [SenderConfig(id: "1", key: "k", token: "fixed-token")])
        var engine = DeviceEngine(config)
        var out: [Event] = []
        engine.handle(.start(at: 0), into: &out)
        #expect(engine.devices[0].tokens["1"] == "fixed-token")
    }

    @Test func atMostOneHundredSendersTheHundredAndFirstIsRefused() {
        var h = Harness(senders: (1...100).map { String(1000 + $0) })
        #expect(h.engine.devices[0].tokens.count == 100)
        let events = h.run(.addSender(SenderConfig(id: "999", key: "k")))
        #expect(events.names == ["commandRefused"])
        #expect(events[0].string("detail")?.contains("100") == true)
        #expect(h.engine.devices[0].senders.count == 100)
    }

    @Test func refreshTokenIssuesANewTokenAndTheOldOneIsNotRegistered() {
        var h = Harness()
        let old = h.token
        let events = h.run(.refreshToken(sender: nil))
        #expect(events.names == ["onNewToken"])
        #expect(h.token != old)
        let rejected = h.push(to: old).named("downstreamRejected")
        #expect(rejected.first?.string("error") == "NotRegistered")
    }

    @Test func uninstallInvalidatesEveryTokenNotRegisteredAndDeviceUnregistered() {
        var h = Harness(senders: [Harness.sender, Harness.other])
        let old = h.token
        h.run(.uninstall)
        #expect(h.engine.devices[0].tokens.isEmpty)
        let rejected = h.push(to: old).named("downstreamRejected")
        #expect(rejected.first?.string("error") == "NotRegistered")
        #expect(rejected.first?.string("ccs") == "DEVICE_UNREGISTERED")
    }

    @Test(
        "a phone that kept its first tokens holds no retired ones; each token that leaves is retired once, oldest first"
    )
    func tokensThatLeaveARetiredOnceEachOldestFirst() {
        var h = Harness(senders: [Harness.sender, Harness.other])
        #expect(h.engine.devices[0].retiredTokens.isEmpty)
        let first = h.token
        let other = h.engine.devices[0].tokens[Harness.other]!
        h.run(.refreshToken(sender: Harness.sender))
        let second = h.token
        h.run(.refreshToken(sender: Harness.sender))
        let third = h.token
        #expect(h.engine.devices[0].retiredTokens == [Harness.sender: [first, second]])
        #expect(h.engine.devices[0].issuedTokens == [Harness.sender: [first, second, third], Harness.other: [other]])
        #expect(h.engine.issuedToken(of: Harness.sender, onPhoneAt: 0) == third)
        #expect(h.engine.issuedToken(of: Harness.sender, onPhoneAt: 0, back: 2) == first)
        #expect(h.engine.issuedToken(of: Harness.sender, onPhoneAt: 0, back: 3) == nil)
        // A retired token's sender is still known (NotRegistered, not InvalidRegistration).
        #expect(h.engine.everOwner(of: first) == Harness.sender && h.engine.activeOwner(of: first) == nil)
        #expect(h.engine.activeOwner(of: third) == Harness.sender && h.engine.activeOwner(of: other) == Harness.other)
        h.run(.uninstall)
        #expect(h.engine.devices[0].tokens.isEmpty)
        #expect(h.engine.devices[0].retiredTokens == [Harness.sender: [first, second, third], Harness.other: [other]])
        #expect(h.engine.issuedToken(of: Harness.sender, onPhoneAt: 0) == third)
        #expect(h.engine.everOwner(of: other) == Harness.other && h.engine.activeOwner(of: other) == nil)
        h.run(.reinstall)
        #expect(h.engine.devices[0].retiredTokens[Harness.sender] == [first, second, third])
        #expect(h.engine.issuedToken(of: Harness.sender, onPhoneAt: 0, back: 1) == third)
        #expect(h.engine.device(holding: first) == 0 && h.engine.device(holding: h.token) == 0)
    }

    @Test func reinstallRegistersAgainWithNewTokens() {
        var h = Harness()
        let old = h.token
        h.run(.uninstall)
        let events = h.run(.reinstall)
        #expect(events.names == ["installed", "onNewToken"])
        #expect(h.token != old)
        #expect(h.token.prefix(11) != old.prefix(11))
    }

    @Test func removeSenderRetiresItsToken() {
        var h = Harness(senders: [Harness.sender, Harness.other])
        let old = h.engine.devices[0].tokens[Harness.other]!
        h.run(.removeSender(Harness.other))
        #expect(
            h.push(to: old, sender: Harness.other).named("downstreamRejected").first?.string("error") == "NotRegistered"
        )
    }

    @Test func iosUsesItsOwnTokenCallbackName() {
        let h = Harness(platform: .ios)
        #expect(h.named("didReceiveRegistrationToken").count == 1)
    }

    @Test func reinstallingAsAnotherPlatformIsANewInstallationWithThatPlatformsCallbacks() {
        var h = Harness()
        let old = h.token
        let events = h.run(.reinstallAs(platform: .ios, sdk: .gcm), after: 1_000)
        #expect(events.names.prefix(2) == ["uninstalled", "installed"])
        #expect(events[1]["platform"] == .string("ios"))
        #expect(events.named("didReceiveRegistrationToken").count == 1)
        #expect(h.engine.devices[0].platform == .ios)
        #expect(h.engine.devices[0].names == CallbackNames(platform: .ios, sdk: .gcm))
        #expect(h.token != old)
        #expect(h.token.hasPrefix("APA91b"))
        #expect(h.token.count == TokenFactory.gcmLength)
        let rejected = h.push(to: old)
        #expect(rejected.named("downstreamRejected").first?["error"] == .string("NotRegistered"))
    }
}
