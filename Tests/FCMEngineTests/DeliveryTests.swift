import FCMEngine
import Testing

@Suite("Delivery by app state and platform")
struct DeliveryTests {
    static let note = [KeyValue("title", "Score"), KeyValue("body", "1-0")]

    @Test func androidForegroundEveryMessageReachesOnMessageReceived() {
        var h = Harness()
        let events = h.push(data: [KeyValue("room", "PT-DK")], notification: Self.note)
        let received = events.named("onMessageReceived").first
        #expect(received?["notification"] == .map(Self.note))
        #expect(received?["data"] == .map([KeyValue("room", "PT-DK")]))
        #expect(h.engine.devices[0].tray.isEmpty)
    }

    @Test func androidBackgroundNotificationGoesToTheTrayDataOnlyOnTap() {
        var h = Harness(state: .background)
        let events = h.push(data: [KeyValue("room", "PT-DK")], notification: Self.note, id: "n1")
        #expect(events.names == ["downstreamAccepted", "notificationPosted"])
        #expect(h.engine.devices[0].tray.count == 1)
        let tapped = h.run(.tap(.last), after: 2_000)
        #expect(tapped.names == ["notificationTapped", "appStateChanged"])
        #expect(tapped[0]["data"] == .map([KeyValue("room", "PT-DK")]))
        #expect(h.engine.devices[0].appState == .foreground)
        #expect(h.engine.devices[0].inbox.last?.id == "n1")
    }

    @Test func androidBackgroundDataOnlyReachesOnMessageReceived() {
        var h = Harness(state: .background)
        let received = h.push().named("onMessageReceived")
        #expect(received.count == 1)
        #expect(received[0]["background"] == .bool(true))
    }

    @Test func iosBackgroundNotificationGoesToTheNotificationCentre() {
        var h = Harness(platform: .ios, state: .background)
        #expect(h.push(data: [], notification: Self.note).named("notificationPosted").count == 1)
    }

    @Test func iosDataMessagesAreHeldUntilTheAppIsInTheForeground() {
        var h = Harness(platform: .ios, state: .background)
        let held = h.push(id: "d1")
        #expect(held.named("stored").first?.string("reason") == "ios data waits for foreground")
        let front = h.run(.setAppState(.foreground), after: 1_000)
        #expect(front.named("didReceiveRemoteNotification").first?.string("id") == "d1")
    }

    @Test func iosContentAvailableWakesTheAppInTheBackground() {
        var h = Harness(platform: .ios, state: .background)
        #expect(h.push(contentAvailable: true).named("didReceiveRemoteNotification").count == 1)
    }

    @Test func tappingAnEmptyTrayIsRefused() {
        var h = Harness()
        #expect(h.run(.tap(.last)).names == ["commandRefused"])
    }

    @Test func tapByIndexAndByID() {
        var h = Harness(state: .background)
        h.push(notification: Self.note, id: "a")
        h.push(notification: Self.note, id: "b")
        h.push(notification: Self.note, id: "c")
        #expect(h.run(.tap(.id("b"))).first?.string("id") == "b")
        h.run(.setAppState(.background))
        #expect(h.run(.tap(.index(1))).first?.string("id") == "a")
    }

    @Test func uninstallClearsTheTrayAndTheQueues() {
        var h = Harness(state: .background)
        h.push(notification: Self.note)
        h.run(.setNetwork(.offline))
        h.send("q1")
        let events = h.run(.uninstall)
        #expect(events.names == ["uninstalled", "discarded"])
        #expect(h.engine.devices[0].tray.isEmpty)
        #expect(h.engine.devices[0].pending.isEmpty)
    }
}

@Suite("A stopped Android app")
struct StoppedAndroidAppTests {
    @Test func aNotificationMessageToAStoppedAndroidAppIsHeldNotShownUntilTheAppRuns() {
        var h = Harness(platform: .android, state: .stopped)
        let events = h.push(data: [KeyValue("room", "PT-DK")], notification: [KeyValue("title", "Goal")], id: "n-1")
        // A force-stopped app gets nothing: no tray notification, no callback; the
        // connection server holds the message.
        #expect(events.named("stored").first?.string("reason") == "app stopped")
        #expect(events.named("notificationPosted").isEmpty && events.named("onMessageReceived").isEmpty)
        #expect(h.engine.devices[0].tray.isEmpty)
        #expect(h.engine.heldMessages(ofPhoneAt: 0).map(\.id) == ["n-1"])
        // Started in the background, the notification reaches the tray with its data.
        let started = h.run(.setAppState(.background), after: 1_000)
        #expect(started.named("notificationPosted").first?.string("id") == "n-1")
        #expect(h.engine.devices[0].tray.map(\.id) == ["n-1"])
        #expect(h.engine.heldMessages(ofPhoneAt: 0).isEmpty)
    }
}

@Suite("The Android tray: tags and channels")
struct TrayTagTests {
    static func note(_ title: String, tag: String? = nil) -> [KeyValue] {
        [KeyValue("title", title)] + (tag.map { [KeyValue("tag", $0), KeyValue("channel_id", "scores")] } ?? [])
    }

    @Test func aNotificationWithTheTagOfOneInTheTrayReplacesIt() {
        var h = Harness(platform: .android, state: .background)
        h.push(data: [], notification: Self.note("1-0", tag: "match"), id: "a")
        let second = h.push(data: [], notification: Self.note("2-0", tag: "match"), id: "b")
        let posted = second.named("notificationPosted").first
        #expect(posted?.string("replaced") == "a")
        #expect(posted?.string("tag") == "match")
        #expect(posted?.string("channel_id") == "scores")
        #expect(h.engine.devices[0].tray.map(\.id) == ["b"])
    }

    @Test func notificationsWithoutATagOrWithAnotherTagStandSideBySide() {
        var h = Harness(platform: .android, state: .background)
        h.push(data: [], notification: Self.note("1-0", tag: "match"), id: "a")
        h.push(data: [], notification: Self.note("news", tag: "other"), id: "b")
        let untagged = h.push(data: [], notification: Self.note("hello"), id: "c")
        #expect(untagged.named("notificationPosted").first?.string("replaced") == nil)
        #expect(h.engine.devices[0].tray.map(\.id) == ["a", "b", "c"])
    }

    @Test func anIPhoneKeepsTaggedNotificationsSideBySide() {
        var h = Harness(platform: .ios, state: .background)
        h.push(data: [], notification: Self.note("1-0", tag: "match"), id: "a")
        h.push(data: [], notification: Self.note("2-0", tag: "match"), id: "b")
        #expect(h.engine.devices[0].tray.map(\.id) == ["a", "b"])
    }
}
