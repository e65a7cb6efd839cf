import FCMEngine
import FCMJSON
import Foundation
import Testing

/// What production does today (production-policies.md): permission, channels, the
/// per-device limits, expired tokens, a swiped-away iPhone, a web app's VAPID key.
@Suite("Production policies")
struct ProductionPolicyTests {
    static let note = [KeyValue("title", "Dinner"), KeyValue("body", "at 8")]

    @Test func android13DropsABackgroundNotificationWithoutPostNotificationsPermission() {
        for permission in [NotificationPermission.denied, .notAsked] {
            var h = Harness(state: .background, settings: { $0.permission = permission })
            let events = h.push(data: [KeyValue("k", "v")], notification: Self.note)
            let blocked = events.named("notificationBlocked").first
            #expect(blocked?.string("reason") == "permission")
            #expect(blocked?.string("detail")?.contains("POST_NOTIFICATIONS") == true)
            #expect(events.named("notificationPosted").isEmpty && events.named("onMessageReceived").isEmpty)
            #expect(h.engine.devices[0].tray.isEmpty)
        }
    }

    @Test func withoutPermissionADataMessageAndAForegroundNotificationStillReachTheApp() {
        var h = Harness(state: .background, settings: { $0.permission = .denied })
        #expect(h.push(data: [KeyValue("k", "v")]).named("onMessageReceived").count == 1)
        h.run(.setAppState(.foreground))
        #expect(h.push(notification: Self.note).named("onMessageReceived").count == 1)
    }

    @Test func belowAPI33NotificationPermissionIsGrantedAtInstall() {
        var settings = DeviceSettings(platform: .android)
        settings.apiLevel = 32
        settings.permission = .notAsked
        #expect(settings.platformProblems.map(\.setting) == ["permission"])
        #expect(settings.fitted.permission == nil)
        var h = Harness(state: .background, settings: { $0.apiLevel = 32 })
        #expect(h.push(notification: Self.note).named("notificationPosted").count == 1)
    }

    @Test func iOSWithoutAuthorizationShowsNoAlertAndProvisionalIsQuiet() {
        for permission in [NotificationPermission.denied, .notDetermined] {
            var h = Harness(platform: .ios, state: .background, settings: { $0.permission = permission })
            #expect(h.push(notification: Self.note).named("notificationBlocked").count == 1)
            // A background push needs no permission: it still wakes the app.
            let silent = h.push(data: [KeyValue("k", "v")], contentAvailable: true)
            #expect(silent.named("didReceiveRemoteNotification").count == 1)
        }
        var h = Harness(platform: .ios, state: .background, settings: { $0.permission = .provisional })
        #expect(h.push(notification: Self.note).named("notificationPosted").first?.string("delivery") == "quiet")
    }

    @Test func permissionIsChangedWhileRunningInThePlatformsOwnWords() {
        var h = Harness(state: .background)
        #expect(h.run(.setPermission(.denied)).names == ["permissionChanged"])
        #expect(h.push(notification: Self.note).named("notificationBlocked").count == 1)
        let refused = h.run(.setPermission(.provisional))
        #expect(refused.names == ["commandRefused"])
        #expect(refused.first?.string("detail")?.contains("granted, denied, not-asked") == true)
        h.run(.setPermission(.granted))
        #expect(h.push(notification: Self.note).named("notificationPosted").count == 1)
    }

    @Test func aNotificationIsPostedOnItsChannelOrTheFallbackTheSDKPicks() {
        var h = Harness(state: .background, settings: { $0.channels = ["orders"] })
        let onOrders = h.push(notification: Self.note + [KeyValue("channel_id", "orders")])
        #expect(onOrders.named("notificationPosted").first?.string("channel") == "orders")
        #expect(onOrders.named("notificationPosted").first?.string("channel_note") == nil)
        let unknown = h.push(notification: Self.note + [KeyValue("channel_id", "promos")]).named("notificationPosted")
        #expect(unknown.first?.string("channel") == "fcm_fallback_notification_channel")
        #expect(unknown.first?.string("channel_note")?.contains("promos has not been created") == true)
        var manifest = Harness(
            state: .background,
            settings: {
                $0.channels = ["general"]; $0.defaultChannel = "general"
            })
        let none = manifest.push(notification: Self.note).named("notificationPosted").first
        #expect(none?.string("channel") == "general")
        #expect(none?.string("channel_note")?.contains("names no channel") == true)
    }

    @Test func androidBefore8HasNoChannels() {
        var h = Harness(state: .background, settings: { $0.apiLevel = 25 })
        let posted = h.push(notification: Self.note + [KeyValue("channel_id", "orders")]).named("notificationPosted")
        #expect(posted.first?.string("channel") == nil)
        var settings = DeviceSettings()
        settings.apiLevel = 25
        settings.channels = ["orders"]
        #expect(settings.platformProblems.map(\.setting) == ["channels"])
    }

    @Test func anAndroidPhoneTakes240MessagesAMinuteAndRefusesMoreOnEveryAPI() {
        var h = Harness()
        for n in 0..<DeviceLimits.perMinute { h.push(id: "m\(n)") }
        let refused = h.push(id: "one-more").named("downstreamRejected").first
        #expect(refused?.string("error") == "DeviceMessageRateExceeded")
        #expect(refused?.string("ccs") == "DEVICE_MESSAGE_RATE_EXCEEDED")
        #expect(refused?.string("detail")?.contains("--no-device-limits") == true)
        #expect(
            DownstreamError.deviceRateExceeded("x").v1Status
                == V1Status(http: 429, rpc: "RESOURCE_EXHAUSTED", fcmCode: "QUOTA_EXCEEDED"))
        h.wait(Span.minute)
        #expect(h.push(id: "next-minute").named("downstreamAccepted").count == 1)
    }

    @Test func theHourlyLimitIs5000() {
        var h = Harness()
        var refusedAt: Int?
        for n in 0..<5_100 {
            if n % DeviceLimits.perMinute == 0 { h.wait(Span.minute) }
            if !h.push(id: "m\(n)").named("downstreamRejected").isEmpty {
                refusedAt = n
                break
            }
        }
        #expect(refusedAt == DeviceLimits.perHour)
    }

    @Test func theLimitsAreOffWhenAProfileOrFlagSaysSo() {
        var h = Harness(store: StorePolicy(deviceLimits: false))
        for n in 0..<300 { h.push(id: "m\(n)") }
        #expect(h.named("downstreamRejected").isEmpty)
        var iPhone = Harness(platform: .ios)
        for n in 0..<300 { iPhone.push(id: "m\(n)") }
        #expect(iPhone.named("downstreamRejected").isEmpty)
    }

    @Test func collapsibleMessagesComeInABurstOf20ThenOneEvery3Minutes() {
        var h = Harness()
        for n in 0..<25 { h.push(collapseKey: "score", id: "c\(n)") }
        #expect(h.named("onMessageReceived").count == 20)
        let held = h.named("stored")
        #expect(held.allSatisfy { $0.string("reason") == "throttled" } && held.count == 5)
        // The excess collapses by its key: one waits.
        #expect(h.engine.devices[0].stored.map(\.id) == ["c24"])
        h.wait(DeviceLimits.collapsibleRefill)
        #expect(h.named("onMessageReceived").last?.string("id") == "c24")
        #expect(h.engine.devices[0].stored.isEmpty)
        // Messages without a collapse key are not throttled.
        #expect(h.push(id: "plain").named("onMessageReceived").count == 1)
    }

    @Test func anAndroidTokenExpiresAfter270DaysAwayAndTheAppGetsANewOneWhenOpened() {
        var h = Harness(state: .background)
        let old = h.token
        h.run(.setNetwork(.offline))
        h.wait(DeviceLimits.tokenExpiry - Span.day)
        #expect(h.push(id: "still").named("downstreamAccepted").count == 1)
        h.wait(Span.day)
        let refused = h.push(id: "expired").named("downstreamRejected").first
        #expect(refused?.string("error") == "NotRegistered")
        #expect(DownstreamError.tokenExpired(old).v1Message == "Requested entity was not found.")
        let back = h.run(.setNetwork(.online))
        #expect(back.named("tokenExpired").first?.string("token") == old)
        #expect(back.named("onNewToken").isEmpty)
        #expect(h.push(to: old, id: "while-closed").named("downstreamRejected").count == 1)
        let opened = h.run(.setAppState(.foreground))
        #expect(opened.named("onNewToken").count == 1 && h.token != old)
        #expect(h.push(to: old, id: "old").named("downstreamRejected").first?.string("error") == "NotRegistered")
        #expect(h.push(id: "new").named("downstreamAccepted").count == 1)
    }

    @Test func thePhonesSnapshotSaysWhenItsTokensExpireAndThatTheyHave() {
        var h = Harness()
        #expect(h.engine.snapshot(ofPhoneAt: 0).object?["tokensExpireAt"] == nil)
        h.wait(Span.day)
        h.run(.setNetwork(.offline))
        #expect(
            h.engine.snapshot(ofPhoneAt: 0).object?["tokensExpireAt"]?.int64 == Span.day + DeviceLimits.tokenExpiry)
        h.wait(DeviceLimits.tokenExpiry)
        #expect(h.engine.snapshot(ofPhoneAt: 0).object?["tokensExpired"] == .bool(true))
        #expect(h.engine.snapshot(ofPhoneAt: 0).object?["permission"] == .string("granted"))
    }

    @Test func iOSTokensDoNotExpireByInactivity() {
        var h = Harness(platform: .ios)
        h.run(.setNetwork(.offline))
        h.wait(DeviceLimits.tokenExpiry + Span.day)
        #expect(h.push(id: "a").named("downstreamAccepted").count == 1)
    }

    @Test func aSwipedAwayIPhoneShowsAlertsAtOnceAndDropsSilentPushes() {
        var h = Harness(platform: .ios, state: .stopped)
        #expect(h.push(notification: Self.note, id: "alert").named("notificationPosted").count == 1)
        let silent = h.push(data: [KeyValue("k", "v")], id: "silent", contentAvailable: true)
        #expect(silent.named("discarded").first?.string("reason") == "force-quit")
        let opened = h.run(.setAppState(.foreground))
        #expect(opened.named("didReceiveRemoteNotification").isEmpty)
        // A tap on the alert launches the app with the message.
        h.run(.setAppState(.stopped))
        let tapped = h.run(.tap(.last))
        #expect(tapped.names.contains("notificationTapped") && h.engine.devices[0].appState == .foreground)
    }

    @Test func aForceStoppedAndroidAppStillGetsNothing() {
        var h = Harness(state: .stopped)
        #expect(h.push(notification: Self.note).named("stored").first?.string("reason") == "app stopped")
    }

    @Test func anotherVAPIDKeyDeletesTheWebTokenAndMakesANewOne() {
        var h = Harness(platform: .web)
        let old = h.token
        #expect(h.run(.getToken(sender: nil)).named("getToken").first?["cached"] == .bool(true))
        let changed = h.run(.getToken(sender: nil, vapidKey: "BKey-2"))
        #expect(changed.named("deleteToken").first?.string("token") == old)
        #expect(h.token != old)
        #expect(h.push(to: old, id: "old").named("downstreamRejected").first?.string("error") == "NotRegistered")
        #expect(h.run(.getToken(sender: nil, vapidKey: "BKey-2")).named("getToken").first?["cached"] == .bool(true))
    }

    @Test func v1SaysWhatGoogleSaysForABadTokenAndAnOversizedAndroidMessage() {
        #expect(
            DownstreamError.invalidRegistration("x").v1Message
                == "The registration token is not a valid FCM registration token")
        #expect(
            DownstreamError.messageTooBig(5000, limit: 4096, platform: .android).v1Message
                == "Android message is too big")
        #expect(DownstreamError.messageTooBig(5000, limit: 4096, platform: .ios).v1Status.http == 400)
    }

    @Test func anExpiredTokenIsRefusedByTopicAndGroupCallsAsBySends() {
        var h = Harness(state: .background)
        let token = h.token
        h.run(.setNetwork(.offline))
        h.wait(DeviceLimits.tokenExpiry + Span.day)
        let order = TopicOrder(sender: Harness.sender, topic: "news", tokens: [token], change: .add, api: .iid)
        let topic = h.engine.handle(.input(.topics(order), at: h.time))
        #expect(topic.named("topicRefused").first?.string("error") == "NOT_FOUND")
        guard case .refused(let why) = h.group(.create, tokens: [token]) else {
            Issue.record("an expired token joined a group")
            return
        }
        #expect(why.contains("expired"))
    }

    @Test func aReinstallAfterALongAbsenceGetsTokensThatAreNotExpired() {
        var h = Harness(state: .background)
        h.run(.uninstall)
        h.wait(DeviceLimits.tokenExpiry + Span.day)
        let back = h.run(.reinstall)
        #expect(back.named("tokenExpired").isEmpty)
        #expect(h.push(id: "fresh").named("downstreamAccepted").count == 1)
    }

    @Test func anExpiredPhoneTakesNoTopicCopies() {
        var h = Harness(state: .background)
        h.run(.subscribe(topic: "news", sender: nil))
        h.run(.setNetwork(.offline))
        h.wait(DeviceLimits.tokenExpiry)
        let request = DownstreamRequest(sender: Harness.sender, to: "/topics/news", data: [KeyValue("k", "v")])
        #expect(h.run(.push(request)).named("downstreamAccepted").first?["subscribers"] == .int(0))
    }

    @Test func aSwipedAwayIPhoneHearsOfDeletedMessagesWhenItIsOpened() {
        var h = Harness(platform: .ios, state: .stopped, store: StorePolicy(nonCollapsibleLimit: 1))
        h.run(.setNetwork(.offline))
        h.push(id: "a")
        h.push(id: "b")
        #expect(h.run(.setNetwork(.online)).named("messagesDeleted").isEmpty)
        #expect(h.run(.setAppState(.foreground)).named("messagesDeleted").count == 1)
    }

    @Test func anIPhoneWithoutPermissionStillWakesForAContentAvailableAlert() {
        var h = Harness(platform: .ios, state: .background, settings: { $0.permission = .denied })
        let events = h.push(notification: Self.note, contentAvailable: true)
        #expect(events.named("notificationBlocked").count == 1)
        #expect(events.named("didReceiveRemoteNotification").count == 1)
    }

    @Test func notAskedIsRefusedBelowAPI33WhileRunning() {
        var h = Harness(settings: { $0.apiLevel = 30 })
        let refused = h.run(.setPermission(.notAsked))
        #expect(refused.names == ["commandRefused"])
        #expect(refused.first?.string("detail")?.contains("granted at install") == true)
    }

    @Test func aPhonesPoliciesSavedInAnEarlierLayoutAreRead() throws {
        let earlier =
            #"{"minuteStart":0,"minuteCount":3,"hourStart":0,"hourCount":3,"budget":5,"budgetAt":10,"expiredTokens":["a"],"vapidKeys":{"1":"K"}}"#
        let policy = try JSONDecoder().decode(PhonePolicy.self, from: Data(earlier.utf8))
        #expect(policy.expiredTokens == ["a"] && policy.vapidKeys == ["1": "K"])
        let roundTrip = try JSONDecoder().decode(PhonePolicy.self, from: JSONEncoder().encode(policy))
        #expect(roundTrip == policy)
    }

    @Test func aJournalsGetTokenFromBeforeVAPIDKeysIsRead() throws {
        let earlier = try JSONEncoder().encode(PhoneCommand.getToken(sender: "1"))
        #expect(String(decoding: earlier, as: UTF8.self) == #"{"getToken":{"sender":"1"}}"#)
        let read = try JSONDecoder().decode(PhoneCommand.self, from: Data(#"{"getToken":{"sender":"1"}}"#.utf8))
        #expect(read == .getToken(sender: "1", vapidKey: nil))
    }
}
