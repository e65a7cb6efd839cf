/// Why an event happened: the rule behind it in one sentence, and where the rule
/// comes from. The engine says it, with the event, so every shell explains alike.
public struct RuleNote: Sendable, Equatable {
    public var rule: String
    /// The section of docs/RULES.md and of the protocol reference the rule rests on.
    public var source: String

    init(_ rule: String, _ source: String) {
        self.rule = rule
        self.source = source
    }
}

extension Event {
    /// The rule that produced this event.
    public var ruleNote: RuleNote {
        switch kind {
        case .onNewToken, .didReceiveRegistrationToken:
            return RuleNote(
                "Each sender the app registers with gets a token of its own; a refresh or a reinstall issues a new "
                    + "one, and the old one stops working at once.", "docs/RULES.md Registration · reference §1.1")
        case .deviceAdded:
            return RuleNote(
                "Another phone joined the emulated world: a new app instance with its own instance id, tokens, "
                    + "queue, store and topics, registered with its senders.", "docs/RULES.md Several devices")
        case .tokenResumed, .stateResumed:
            return RuleNote(
                "A saved device resumes with what it held when it stopped: tokens, queues and stored messages.",
                "docs/saved-device.md")
        case .onMessageSent, .sendDataMessageSuccess, .didSendDataMessageWithID:
            return RuleNote(
                "The SDK reports upstream success in batches: the ids the connection server took within the batch "
                    + "window, or as soon as the batch is full.", "docs/RULES.md Upstream · reference §6.5")
        case .onSendError, .sendDataMessageFailure, .willSendDataMessageWithID:
            return upstreamFailure
        case .upstreamQueued:
            return RuleNote(
                "The device cannot reach the connection server (offline, outage or uninstalled), so the SDK keeps "
                    + "the message in its pending queue: at most 20, each until its TTL runs out.",
                "docs/RULES.md Upstream · reference §6.5")
        case .onMessageReceived, .didReceiveRemoteNotification:
            return received
        case .getToken:
            return self["error"] == nil
                ? RuleNote(
                    "getToken resolved: with notification permission, the web SDK subscribed the browser to push and "
                        + "FCM gave the web app a token.", "docs/RULES.md A web app instance · web-client reference §1")
                : RuleNote(
                    "getToken rejects without notification permission (denied, or a prompt dismissed): the web app "
                        + "has no token, and app servers have nothing to send to.",
                    "docs/RULES.md A web app instance · web-client reference §1")
        case .deleteToken:
            return RuleNote(
                "deleteToken: the web SDK deleted the registration and unsubscribed from push; app servers that send "
                    + "to the token get NotRegistered (UNREGISTERED), and getToken makes a new one.",
                "docs/RULES.md A web app instance · web-client reference §1")
        case .permissionChanged:
            return RuleNote(
                "The user answered the notification prompt: without permission getToken rejects and the browser's "
                    + "push subscription, with its tokens, is gone; granted, getToken works again.",
                "docs/RULES.md A web app instance · web-client reference §1")
        case .onMessage:
            return RuleNote(
                "A tab of the web app is visible: every message goes to onMessage in the page and nothing is shown; "
                    + "the page shows it if it wants to.", "docs/RULES.md A web app instance · web-client reference §2")
        case .onBackgroundMessage:
            return RuleNote(
                "No tab of the web app is visible: the service worker gets the message in onBackgroundMessage, "
                    + "after the SDK showed its notification part itself (showing it again shows it twice).",
                "docs/RULES.md A web app instance · web-client reference §2")
        case .notificationPosted:
            return RuleNote(
                "A notification message for an app in the background is shown by the system, not the app: the app "
                    + "sees its data only when the user taps it.",
                "docs/RULES.md Delivery, storage and lifetime · reference §5.6")
        case .notificationBlocked:
            return RuleNote(
                "Without notification permission the system shows nothing: Android 13+ drops what the SDK posts "
                    + "(POST_NOTIFICATIONS not granted), iOS gives no alert, sound or badge; the app's code does not "
                    + "run for it.",
                "docs/RULES.md Production policies · production-policies.md Notification permission")
        case .tokenExpired:
            return RuleNote(
                "An Android app instance that has not connected to FCM for \(DeviceLimits.tokenExpiryDays) days has its "
                    + "tokens expired: sends "
                    + "to them are refused as unregistered, and the app gets a new token when it is opened again.",
                "docs/RULES.md Production policies · production-policies.md Stale and expired tokens")
        case .notificationTapped:
            return RuleNote(
                "Tapping a notification opens the app and hands it the notification's data.",
                "docs/RULES.md Delivery, storage and lifetime · reference §5.6")
        case .onDeletedMessages, .messagesDeleted:
            return RuleNote(
                "The connection server discarded messages it held for the device (over the store limit, or the "
                    + "device away too long): the app hears it once, when it reconnects, and should sync.",
                "docs/RULES.md Delivery, storage and lifetime · reference §5.4")
        case .downstreamAccepted:
            if self["subscribers"] != nil {
                return RuleNote(
                    "The connection server took the message for a topic or condition: every subscribed app instance "
                        + "gets a copy by its own delivery rules (subscribers: how many phones).",
                    "docs/RULES.md Topics · topics reference §1.6")
            }
            return RuleNote(
                "The connection server took the message for this token: handed over now if the device can take "
                    + "it, stored for it otherwise (until its time to live runs out).",
                "docs/RULES.md Downstream acceptance · reference §2.2, §3")
        case .downstreamRejected:
            return rejected
        case .stored:
            return storedNote
        case .collapsed:
            return RuleNote(
                "A newer message with the same collapse key for the same token replaces the stored one: only the "
                    + "latest is delivered.", "docs/RULES.md Delivery, storage and lifetime · reference §5.4 (seed 003)"
            )
        case .expired:
            return RuleNote(
                "The message's time to live ran out before it could be delivered or acknowledged, so it is dropped.",
                "docs/RULES.md Delivery, storage and lifetime · reference §5.4")
        case .discarded:
            return discardedNote
        case .receipt, .receiptToAppServer:
            return RuleNote(
                "The app server asked for a delivery receipt: once the device has the message, the connection "
                    + "server sends one (id dr2:…) and resends it until the app server acks it.",
                "docs/RULES.md App-server connections · reference §2.6")
        case .receiptAck:
            return RuleNote(
                "The app server acknowledged the receipt: it is not sent again.", "docs/RULES.md App-server connections"
            )
        case .upstreamForwarded, .upstreamToAppServer:
            return RuleNote(
                "The connection server passes an upstream message to an app server of its sender (taking turns "
                    + "among its connections) and holds it until that app server acks.",
                "docs/RULES.md App-server connections · reference §2.8")
        case .appServerAck:
            return RuleNote(
                "The app server acknowledged the upstream message: the connection server stops resending it.",
                "docs/RULES.md Upstream · reference §2.9")
        case .upstreamRetry:
            return RuleNote(
                "No app server acknowledged the upstream message yet: the connection server resends it after 1 s, "
                    + "2 s, 4 s … until an ack or its TTL.", "docs/RULES.md Upstream")
        case .ackIgnored:
            return RuleNote(
                "An ack for a message the connection server does not hold (already acked, or never sent) changes "
                    + "nothing.", "docs/RULES.md App-server connections")
        case .nack:
            return RuleNote(
                "The connection server refused a downstream stanza from an app server, with the error code "
                    + "saying why.", "docs/RULES.md App-server connections · reference §2.4")
        case .requestRejected:
            return RuleNote(
                "The HTTP API refused the request before it reached the device: the reason field says what was "
                    + "wrong (credentials, the body, the route, or the service down).",
                "reference §3.3, §4.3 · docs/app-servers.md")
        case .credentialsUnverified:
            return RuleNote(
                "The token endpoint granted a bearer token for a service account whose key the emulator never saw: "
                    + "the claims were valid, the signature could not be checked (--verify-credentials refuses it).",
                "DECISIONS.md The HTTPS proxy · reference interop §4.1")
        case .stanzaError:
            return RuleNote(
                "A stanza the connection server could not read at all is answered with an XMPP stanza error.",
                "reference §2.5")
        case .connectionDraining, .drainRequested:
            return RuleNote(
                "A draining connection takes no new downstream (CONNECTION_DRAINING): the app server opens another "
                    + "and closes this one; what it carried goes out on the others.", "reference §2.7")
        case .appServerConnected, .appServerDisconnected, .connectionRefused:
            return RuleNote(
                "App servers log in over XMPP with their sender ID and server key: at most 1,000 connections per "
                    + "sender.", "docs/RULES.md App-server connections · reference §1.3, §2.10")
        case .networkChanged, .appStateChanged, .dozeChanged, .serviceChanged, .uninstalled, .installed,
            .senderRemoved:
            return RuleNote(
                "Something the user or the profile did to the device; what it can receive follows from it.",
                "docs/RULES.md Delivery, storage and lifetime")
        case .warning, .commandRefused:
            return RuleNote(
                "The emulator says what it did not do, or did differently, and why (the detail field).",
                "docs/RULES.md")
        case .topicSubscribed, .topicUnsubscribed:
            return RuleNote(
                "A token's topic subscriptions change when the app asks (subscribeToTopic) or an app server does "
                    + "(IID batchAdd, v1 topicSubscriptions); a message to the topic reaches every subscriber.",
                "docs/RULES.md Topics · topics reference §1")
        case .topicQueued:
            return RuleNote(
                "The app asked for a topic change while the device could not reach the service: the SDK keeps it "
                    + "and makes it on reconnection.", "docs/RULES.md Topics")
        case .topicRefused:
            return RuleNote(
                "A topic change was refused: an unknown or deleted token, a bad topic name, or an app instance "
                    + "already at 2,000 topics (the error field says which).",
                "docs/RULES.md Topics · topics reference §1.2, §1.4")
        case .groupChanged:
            return RuleNote(
                "A device group (legacy) names up to 20 tokens of one sender under a notification key; a message to "
                    + "the key goes to every member, and removing the last member deletes the key.",
                "docs/RULES.md Device groups · topics reference §2")
        case .groupRefused:
            return RuleNote(
                "A group call was refused: a name already taken, a key not found, more than 20 members, or a token "
                    + "that is not this sender's (the error field says which).", "docs/RULES.md Device groups")
        case .deviceReset:
            return RuleNote(
                "A reset returns the device to how its profile starts it: the same seed and tokens, nothing held or "
                    + "delivered, no topics, groups or faults; app servers reconnect.", "docs/control-api.md")
        case .faultAdded, .faultInjected, .faultsCleared:
            return RuleNote(
                "A fault made on purpose by a test suite or a profile: requests and messages in its scope fail as "
                    + "the real service fails (a status, an error, a delay), for as many uses or as long as it says.",
                "docs/control-api.md Faults · topics reference §3.3")
        case .expectationHeld, .expectationFailed:
            return RuleNote(
                "A profile's expect step, judged at its time against every event so far (expect_none: against any "
                    + "match).", "docs/profiles.md Expectations")
        }
    }

    var upstreamFailure: RuleNote {
        switch string("error") {
        case "TooManyMessages":
            return RuleNote(
                "The SDK keeps at most 20 upstream messages while it cannot reach the service: the 21st fails at "
                    + "once.", "docs/RULES.md Upstream · reference §6.5")
        case "SERVICE_NOT_AVAILABLE":
            return RuleNote(
                "A message waiting for the service ran out of time to live (TTL 0 fails at once when it cannot go "
                    + "out now).", "docs/RULES.md Upstream · reference §6.5")
        case "MessageTooBig":
            return RuleNote(
                "Upstream payloads are at most 4,096: bytes of keys and values on Android, characters on iOS.",
                "docs/RULES.md Upstream · reference §6.3")
        default:
            return RuleNote(
                "The SDK refused the upstream message before sending it (the error says why).", "docs/RULES.md Upstream"
            )
        }
    }

    var received: RuleNote {
        if kind == .didReceiveRemoteNotification {
            return RuleNote(
                "On iOS the app gets data in the foreground, or in the background when the message says "
                    + "content_available; other data waits until the app comes to the foreground.",
                "docs/RULES.md Delivery, storage and lifetime · reference §5.6")
        }
        return RuleNote(
            "A data message reaches onMessageReceived in the foreground and the background; a notification message "
                + "only in the foreground (in the background it goes to the tray).",
            "docs/RULES.md Delivery, storage and lifetime · reference §5.6")
    }

    var rejected: RuleNote {
        switch string("error") {
        case "NotRegistered":
            return RuleNote(
                "The token was refreshed or the app uninstalled: the old token is no longer registered.",
                "docs/RULES.md Registration · reference §3.4")
        case "InvalidRegistration":
            return RuleNote("The token is not one the service issued.", "reference §3.4")
        case "MismatchSenderId":
            return RuleNote(
                "A token belongs to the sender it was issued for: another sender cannot push to it.",
                "docs/RULES.md Registration · reference §3.4")
        default:
            return RuleNote(
                "The service refused the message before taking it (the error names the rule).",
                "docs/RULES.md Downstream acceptance · reference §3.4, §4.3")
        }
    }

    var storedNote: RuleNote {
        switch string("reason") {
        case "doze":
            return RuleNote(
                "The device dozes: a normal-priority message waits for a maintenance window or for the device to "
                    + "wake; a high-priority one would be delivered at once.",
                "docs/RULES.md Delivery, storage and lifetime · reference §5.5")
        case "asleep":
            return RuleNote(
                "The iPhone is asleep: APNs holds a normal-priority (5) push until it wakes, and delivers a "
                    + "high-priority (10) one at once. (An iPhone has no Doze; the switch plays this.)",
                "docs/RULES.md Delivery, storage and lifetime · reference §5.5")
        case "app stopped":
            return RuleNote(
                "A force-stopped Android app receives nothing until the user starts it again.",
                "docs/RULES.md Delivery, storage and lifetime · reference §5.6")
        case "ios data waits for foreground":
            return received
        case "throttled":
            return RuleNote(
                "Collapsible messages to one Android device come in a burst of 20, then one every 3 minutes: the "
                    + "excess waits (and collapses by its key) until the budget grows.",
                "docs/RULES.md Production policies · production-policies.md Per-device limits")
        default:
            return RuleNote(
                "The device cannot take the message now (offline, outage or uninstalled), so the connection server "
                    + "stores it: at most 100 non-collapsible messages and 4 collapse keys, each until its TTL.",
                "docs/RULES.md Delivery, storage and lifetime · reference §5.4")
        }
    }

    var discardedNote: RuleNote {
        switch string("reason") {
        case "store-limit":
            return RuleNote(
                "More non-collapsible messages were stored for the device than the store keeps (100): the server "
                    + "discards everything stored, and the app hears onDeletedMessages when it reconnects.",
                "docs/RULES.md Delivery, storage and lifetime · reference §5.4 (seed 003)")
        case "ttl-zero":
            return RuleNote(
                "A message with time to live 0 is delivered now or never: the device cannot take it now.",
                "docs/RULES.md Delivery, storage and lifetime · reference §5.4")
        case "collapse-key-limit":
            return RuleNote(
                "At most 4 collapse keys are stored per device: a fifth evicts the oldest (or the newcomer, as the "
                    + "profile chooses).", "docs/RULES.md Delivery, storage and lifetime · reference §5.4")
        case "force-quit":
            return RuleNote(
                "iOS does not launch an app the user swiped away for a background (content-available) push: it is "
                    + "dropped, not handed over later. Alerts are still shown.",
                "docs/RULES.md Production policies · production-policies.md iOS force-quit")
        case "inactive":
            return RuleNote(
                "A device unreachable for over a month loses what the server held for it.",
                "docs/RULES.md Delivery, storage and lifetime")
        default:
            return RuleNote(
                "The app was uninstalled: what it had pending or stored is gone with it.", "docs/RULES.md Registration")
        }
    }
}
