import FCMEngine

/// Every event described once: its fields, what it means and the rule behind it
/// (`EventDescription`). The fields are read off the places that make each kind (the
/// engine's `emit` calls, `RejectedRequest` and `AbandonedRequest`, and a profile's
/// checks); a test replays every shipped profile and finds no event carrying another,
/// and another holds docs/events.md to `guideList`.
extension EventName {
    public var described: EventDescription {
        switch self {
        case .onNewToken, .didReceiveRegistrationToken:
            EventDescription(
                fields: ["sender", "token"],
                meaning:
                    "a sender's new token (`sender`, `token`): at the start, after a refresh or a reinstall; "
                    + "`onNewToken` on Android, `didReceiveRegistrationToken` on iOS",
                rule: RuleNote(
                    "Each sender the app registers with gets a token of its own; a refresh or a reinstall "
                        + "issues a new "
                        + "one, and the old one stops working at once.", "docs/RULES.md Registration"))
        case .onMessageSent, .sendDataMessageSuccess, .didSendDataMessageWithID:
            EventDescription(
                fields: ["ids", "count"],
                meaning:
                    "upstream messages the connection server took, reported in a batch (`ids`, `count`): "
                    + "`onMessageSent` on Android, `sendDataMessageSuccess` with the iOS FCM SDK, "
                    + "`didSendDataMessageWithID` with the iOS GCM SDK",
                rule: RuleNote(
                    "The SDK reports upstream success in batches: the ids the connection server took within the "
                        + "batch "
                        + "window, or as soon as the batch is full.", "docs/RULES.md Upstream"))
        case .onSendError, .sendDataMessageFailure, .willSendDataMessageWithID:
            EventDescription(
                fields: ["id", "error", "detail"],
                meaning:
                    "an upstream message failed (`id`, `error`, `detail`): `onSendError` on Android, "
                    + "`sendDataMessageFailure` with the iOS FCM SDK, `willSendDataMessageWithID` with `error` "
                    + "with the iOS GCM SDK (without `error`, that SDK took the message for sending)",
                rule: .upstreamFailure)
        case .onMessageReceived:
            EventDescription(
                fields: ["id", "from", "data", "notification", "collapse_key", "priority", "background"]
                    + Self.detailFields,
                meaning:
                    "a message handed to an Android app's callback (`data`, `notification`, `collapse_key`, "
                    + "`priority`, `background`, and what the message carried besides its payload)",
                rule: .receivedOnAndroid)
        case .didReceiveRemoteNotification:
            EventDescription(
                fields: ["id", "from", "data", "notification", "collapse_key", "priority", "background"]
                    + Self.detailFields,
                meaning: "a message handed to an iOS app's callback (fields as `onMessageReceived`)",
                rule: .receivedOnIOS)
        case .onDeletedMessages, .messagesDeleted:
            EventDescription(
                fields: ["total_deleted"],
                meaning:
                    "the app hears that the server discarded messages it held (`total_deleted`): "
                    + "`onDeletedMessages` on Android, `messagesDeleted` on iOS; a web app has no such callback",
                rule: RuleNote(
                    "The connection server discarded messages it held for the device (over the store limit, or the "
                        + "device away too long): the app hears it once, when it reconnects, and should sync.",
                    "docs/RULES.md Delivery, storage and lifetime"))
        case .getToken:
            EventDescription(
                fields: ["sender", "token", "error", "detail", "cached"],
                meaning:
                    "a web app's getToken resolved with its `token` for `sender` (`cached` when it was the one "
                    + "it had), or rejected (`error` `messaging/permission-blocked`, `detail`)",
                rule: .byPresence(
                    of: "error",
                    present: RuleNote(
                        "getToken rejects without notification permission (denied, or a prompt dismissed): the web "
                            + "app "
                            + "has no token, and app servers have nothing to send to.",
                        "docs/RULES.md A web app instance"),
                    absent: RuleNote(
                        "getToken resolved: with notification permission, the web SDK subscribed the browser to "
                            + "push and "
                            + "FCM gave the web app a token.",
                        "docs/RULES.md A web app instance")))
        case .onMessage:
            EventDescription(
                fields: ["id", "from", "data", "notification", "collapse_key", "priority", "background", "link"]
                    + Self.detailFields,
                meaning:
                    "a message handed to a visible tab of a web app (`link`: the link a click on its "
                    + "notification would open)",
                rule: RuleNote(
                    "A tab of the web app is visible: every message goes to onMessage in the page and nothing "
                        + "is shown; "
                        + "the page shows it if it wants to.",
                    "docs/RULES.md A web app instance"))
        case .onBackgroundMessage:
            EventDescription(
                fields: ["id", "from", "data", "notification", "collapse_key", "priority", "background", "link"]
                    + Self.detailFields,
                meaning:
                    "a web app's service worker got a message while no tab was visible (after the SDK showed "
                    + "its notification, if it has one)",
                rule: RuleNote(
                    "No tab of the web app is visible: the service worker gets the message in onBackgroundMessage, "
                        + "after the SDK showed its notification part itself (showing it again shows it twice).",
                    "docs/RULES.md A web app instance"))
        case .deleteToken:
            EventDescription(
                fields: ["sender", "token", "had_token", "vapid_key"],
                meaning:
                    "a web app called deleteToken (`token`, the one deleted), or getToken with another VAPID "
                    + "key than the token's (`vapid_key`, the new key, `default` for Firebase's) deleted it; app "
                    + "servers then get `NotRegistered`",
                rule: RuleNote(
                    "deleteToken: the web SDK deleted the registration and unsubscribed from push; app servers "
                        + "that send "
                        + "to the token get NotRegistered (UNREGISTERED), and getToken makes a new one.",
                    "docs/RULES.md A web app instance"))
        case .permissionChanged:
            EventDescription(
                fields: ["permission"],
                meaning:
                    "notification permission changed, in the platform's words (`permission`: Android `granted`, "
                    + "`denied`, `not-asked`; iOS `authorized`, `denied`, `not-determined`, `provisional`; web "
                    + "`granted`, `denied`, `default`)",
                rule: RuleNote(
                    "The user answered the notification prompt: without permission getToken rejects and the "
                        + "browser's "
                        + "push subscription, with its tokens, is gone; granted, getToken works again.",
                    "docs/RULES.md A web app instance"))
        case .notificationPosted:
            EventDescription(
                fields: ["id", "from", "title", "body"] + NotificationDisplay.shownFields + Self.detailFields + [
                    "replaced", "channel", "channel_note", "delivery",
                ],
                meaning:
                    "a notification went to the Android tray or the iOS notification centre, with the fields "
                    + "that platform shows when it has them (Android: `tag`, `channel_id`, `color`, `icon`, "
                    + "`image`, `sound`, `click_action`, `visibility`, `notification_priority`, "
                    + "`notification_count`, `sticky`, `local_only`, `ticker`; iOS: `subtitle`, `badge`, `sound`, "
                    + "`click_action`, `image`, `thread_id`); on Android one with the tag of a notification in "
                    + "the tray replaces it, `replaced` naming that one. On Android 8+ `channel` is the channel "
                    + "it was posted on, and `channel_note` says why when that is a fallback (the channel named "
                    + "was not created, or none was named); on iOS with provisional authorization `delivery` is "
                    + "`quiet` (Notification Centre only, no banner or sound)",
                rule: RuleNote(
                    "A notification message for an app in the background is shown by the system, not the app: "
                        + "the app "
                        + "sees its data only when the user taps it.",
                    "docs/RULES.md Delivery, storage and lifetime"))
        case .notificationTapped:
            EventDescription(
                fields: ["id", "from", "data", "click_action", "sticky", "link", "window", "detail"],
                meaning:
                    "the user tapped it; its `data` reaches the app (`click_action` when it has one; `sticky` "
                    + "when Android leaves it in the tray). On the web the SDK handles the click and no app code "
                    + "hears it: `link` is the link it opens and `window` what happened (`focused`: a tab of the "
                    + "app's host, not navigated; `opened`: a new window; `none`: no link, or one on another "
                    + "host, with `detail`)",
                rule: RuleNote(
                    "Tapping a notification opens the app and hands it the notification's data.",
                    "docs/RULES.md Delivery, storage and lifetime"))
        case .upstreamQueued:
            EventDescription(
                fields: ["id", "sender", "pending"],
                meaning: "an upstream message waits in the pending queue (`pending` count)",
                rule: RuleNote(
                    "The device cannot reach the connection server (offline, outage or uninstalled), so the SDK "
                        + "keeps "
                        + "the message in its pending queue: at most 20, each until its TTL runs out.",
                    "docs/RULES.md Upstream"))
        case .warning:
            EventDescription(
                fields: ["id", "sender", "key", "detail", "connection", "pending"],
                meaning: "something was dropped or changed, with `detail` (a non-string value, a clamped TTL)",
                rule: RuleNote.saidWhy)
        case .notificationBlocked:
            EventDescription(
                fields: ["id", "from", "title", "reason", "detail"],
                meaning:
                    "the system showed nothing for want of notification permission: the message's `id`, `from` "
                    + "and `title`, `reason` (`permission`) and `detail` (which permission, and what the app "
                    + "missed): Android 13+ without `POST_NOTIFICATIONS`, or an iPhone denied or not asked",
                rule: RuleNote(
                    "Without notification permission the system shows nothing: Android 13+ drops what the SDK posts "
                        + "(POST_NOTIFICATIONS not granted), iOS gives no alert, sound or badge; the app's code does "
                        + "not "
                        + "run for it.",
                    "docs/RULES.md Production policies · developer.android.com/develop/ui/views/notifications/notification-permission; "
                        + "Apple, UNUserNotificationCenter requestAuthorization"))
        case .networkChanged:
            EventDescription(
                fields: ["network"],
                meaning: "the phone went online or offline (`network`)",
                rule: RuleNote.deviceChanged)
        case .appStateChanged:
            EventDescription(
                fields: ["state"],
                meaning: "the app came to the foreground, went to the background or was stopped (`state`)",
                rule: RuleNote.deviceChanged)
        case .dozeChanged:
            EventDescription(
                fields: ["doze"],
                meaning: "the phone began or ended Doze (an iPhone: sleep) (`doze`)",
                rule: RuleNote.deviceChanged)
        case .uninstalled:
            EventDescription(
                fields: [],
                meaning: "the app was uninstalled: its tokens are no longer registered",
                rule: RuleNote.deviceChanged)
        case .installed:
            EventDescription(
                fields: ["platform", "sdk"],
                meaning: "the app was installed again (`platform`, `sdk`): a new installation with new tokens",
                rule: RuleNote.deviceChanged)
        case .senderRemoved:
            EventDescription(
                fields: ["sender"],
                meaning: "the app stopped registering with a sender (`sender`): its token is gone",
                rule: RuleNote.deviceChanged)
        case .commandRefused:
            EventDescription(
                fields: ["command", "detail"],
                meaning: "an action the device cannot take now, with `detail`",
                rule: RuleNote.saidWhy)
        case .tokenResumed:
            EventDescription(
                fields: ["sender", "token"],
                meaning: "a resumed device's current token for a sender",
                rule: RuleNote.resumed)
        case .deviceAdded:
            EventDescription(
                fields: ["platform", "sdk"],
                meaning:
                    "another phone joined (an `add_device` step, the TUI's devices list), with its `platform` "
                    + "and `sdk`",
                rule: RuleNote(
                    "Another phone joined the emulated world: a new app instance with its own instance id, tokens, "
                        + "queue, store and topics, registered with its senders.", "docs/RULES.md Several devices"))
        case .upstreamForwarded:
            EventDescription(
                fields: ["id", "sender", "from", "data", "category", "ttl"],
                meaning:
                    "the connection server took an upstream message (the stanza's `from`, `category`, `data`, "
                    + "`message_id` as `id`)",
                rule: RuleNote.upstreamForwarded)
        case .upstreamToAppServer:
            EventDescription(
                fields: ["id", "sender", "connection"],
                meaning: "it was written on an app server's connection (`connection`)",
                rule: RuleNote.upstreamForwarded)
        case .appServerAck:
            EventDescription(
                fields: ["id", "sender", "by"],
                meaning: "an app server (or the echo, `by`) acknowledged it",
                rule: RuleNote(
                    "The app server acknowledged the upstream message: the connection server stops resending it.",
                    "docs/RULES.md Upstream"))
        case .upstreamRetry:
            EventDescription(
                fields: ["id", "sender", "attempt"],
                meaning: "not acknowledged in time, sent again (`attempt`)",
                rule: RuleNote(
                    "No app server acknowledged the upstream message yet: the connection server resends it "
                        + "after 1 s, "
                        + "2 s, 4 s … until an ack or its TTL.", "docs/RULES.md Upstream"))
        case .ackIgnored:
            EventDescription(
                fields: ["id", "sender", "by", "detail"],
                meaning: "an ack for nothing held",
                rule: RuleNote(
                    "An ack for a message the connection server does not hold (already acked, or never sent) changes "
                        + "nothing.", "docs/RULES.md App-server connections"))
        case .downstreamAccepted:
            EventDescription(
                fields: [
                    "id", "sender", "token", "topic", "condition", "subscribers", "other_package", "priority", "ttl",
                    "collapse_key", "dry_run", "api", "request", "connection", "http_connection", "http_request",
                    "started", "bearer", "platform", "notification", "group",
                ],
                meaning:
                    "a downstream message passed validation (for a topic or condition: `topic` or `condition`, "
                    + "and `subscribers`, how many app instances here match; `other_package`, how many more were "
                    + "left out by `restricted_package_name`). A message an app server sent (not a profile's or "
                    + "the TUI's push) also says how: `api` (`legacy`, `v1`, `ccs`), `request` (a digest of the "
                    + "request as sent: a resend of the same request has the same one), `connection` (CCS), "
                    + "where and when an HTTP request started (`http_connection`, the connection or HTTP/2 "
                    + "stream, numbered from 1; `http_request`, its place on an HTTP/1.1 connection; `started`, "
                    + "the engine time its head was read), `bearer` (v1: a digest of the access token) and, "
                    + "to one token, the `platform` of the phone holding it (an iPhone's also `notification`: "
                    + "whether it has an alert); the [report card](report.md) reads them",
                rule: .byPresence(
                    of: "subscribers",
                    present: RuleNote(
                        "The connection server took the message for a topic or condition: every subscribed app "
                            + "instance "
                            + "gets a copy by its own delivery rules (subscribers: how many phones).",
                        "docs/RULES.md Topics"),
                    absent: RuleNote(
                        "The connection server took the message for this token: handed over now if the device can "
                            + "take "
                            + "it, stored for it otherwise (until its time to live runs out).",
                        "docs/RULES.md Downstream acceptance")))
        case .downstreamRejected:
            EventDescription(
                fields: [
                    "id", "sender", "topic", "condition", "subscribers", "error", "ccs", "detail", "token", "api",
                    "request", "connection", "http_connection", "http_request", "started", "bearer", "retry_after",
                    "handling", "group",
                ],
                meaning:
                    "a downstream message was refused (`error` = legacy HTTP name, `ccs` = XMPP nack code); "
                    + "from an app server, also `token` (not for a device group's member copies, which carry "
                    + "`group`), `api`, `request`, `connection` (or `http_connection`, `http_request`, `started` "
                    + "and `bearer`), `handling` (what Google asks the app server to "
                    + "do: `drop-token`, `fix`, `retry`, `slow-down`) and `retry_after` (the seconds the answer's "
                    + "`Retry-After` asks for: a 503 on HTTP; never a CCS nack)",
                rule: .rejected)
        case .stored:
            EventDescription(
                fields: ["id", "reason", "stored"],
                meaning:
                    "held for the device (`reason`; `throttled`: collapsible throttling, a burst of 20 then one "
                    + "every 3 minutes)",
                rule: .stored)
        case .collapsed:
            EventDescription(
                fields: ["id", "collapse_key", "by"],
                meaning: "a stored message was replaced (`id` replaced `by`, same `collapse_key` and token)",
                rule: RuleNote(
                    "A newer message with the same collapse key for the same token replaces the stored one: only the "
                        + "latest is delivered.",
                    "docs/RULES.md Delivery, storage and lifetime"
                ))
        case .expired:
            EventDescription(
                fields: ["id", "sender", "detail"],
                meaning: "a held message's TTL ran out",
                rule: RuleNote(
                    "The message's time to live ran out before it could be delivered or acknowledged, so it is "
                        + "dropped.",
                    "docs/RULES.md Delivery, storage and lifetime"))
        case .discarded:
            EventDescription(
                fields: ["id", "ids", "count", "reason", "collapse_key", "detail"],
                meaning:
                    "dropped (`reason`: `ttl-zero`, `collapse-key-limit`, `store-limit`, `inactive`, "
                    + "`uninstalled`, `force-quit`: a background push to an iPhone app the user swiped away; "
                    + "`fault`: a NEVER_DELIVERED fault; for a real client, `expired` (not acked within its TTL), "
                    + "`store-limit` (more than 100 not acked), `undeliverable` (no key to encrypt to))",
                rule: .discarded)
        case .tokenExpired:
            EventDescription(
                fields: ["sender", "token", "detail"],
                meaning:
                    "an Android app instance came back after 270 days without connecting: its `token` for "
                    + "`sender` is expired (`detail` says how long it was away) (sends to it were refused as "
                    + "`NotRegistered` since day 270); a new one comes with `onNewToken` when the app is opened",
                rule: RuleNote(
                    "An Android app instance that has not connected to FCM for \(DeviceLimits.tokenExpiryDays) "
                        + "days has its "
                        + "tokens expired: sends "
                        + "to them are refused as unregistered, and the app gets a new token when it is opened again.",
                    "docs/RULES.md Production policies · firebase.google.com/docs/cloud-messaging/manage-tokens"))
        case .receipt:
            EventDescription(
                fields: ["id", "original_id", "sender", "token", "status", "category"],
                meaning: "a delivery receipt is owed (`dr2:` id, `MESSAGE_SENT_TO_DEVICE`)",
                rule: RuleNote.receiptOwed)
        case .receiptToAppServer:
            EventDescription(
                fields: ["id", "sender", "connection"],
                meaning: "it was written on a connection (once per connection)",
                rule: RuleNote.receiptOwed)
        case .receiptAck:
            EventDescription(
                fields: ["id", "sender"],
                meaning: "an app server acknowledged it; it is no longer owed",
                rule: RuleNote(
                    "The app server acknowledged the receipt: it is not sent again.",
                    "docs/RULES.md App-server connections"
                ))
        case .topicSubscribed, .topicUnsubscribed:
            EventDescription(
                fields: ["topic", "sender", "token", "by"],
                meaning:
                    "a subscription changed (`sender`, `topic`, `token`; on the server side `by`: `iid` or "
                    + "`v1`, the API the app server used)",
                rule: RuleNote(
                    "A token's topic subscriptions change when the app asks (subscribeToTopic) or an app server does "
                        + "(IID batchAdd, v1 topicSubscriptions); a message to the topic reaches every subscriber.",
                    "docs/RULES.md Topics"))
        case .topicQueued:
            EventDescription(
                fields: ["topic", "sender", "change"],
                meaning:
                    "the app asked for a topic change while it could not reach the service; it is made on "
                    + "reconnection",
                rule: RuleNote(
                    "The app asked for a topic change while the device could not reach the service: the SDK keeps it "
                        + "and makes it on reconnection.", "docs/RULES.md Topics"))
        case .topicRefused:
            EventDescription(
                fields: ["topic", "sender", "token", "by", "error", "detail", "change"],
                meaning:
                    "a topic change refused (`error`: `NOT_FOUND`, `INVALID_ARGUMENT`, `TOO_MANY_TOPICS`, "
                    + "`ALREADY_EXISTS`; for one token of an app server's call, `change`: `add` or `remove`)",
                rule: RuleNote(
                    "A topic change was refused: an unknown or deleted token, a bad topic name, or an app instance "
                        + "already at 2,000 topics (the error field says which).",
                    "docs/RULES.md Topics"))
        case .groupChanged:
            EventDescription(
                fields: ["sender", "operation", "name", "notification_key", "members"],
                meaning:
                    "a device group was created, or members added or removed (`operation`, `name`, "
                    + "`notification_key`, `members`)",
                rule: RuleNote(
                    "A device group (legacy) names up to 20 tokens of one sender under a notification key; a "
                        + "message to "
                        + "the key goes to every member, and removing the last member deletes the key.",
                    "docs/RULES.md Device groups"))
        case .groupRefused:
            EventDescription(
                fields: ["sender", "operation", "name", "notification_key", "error"],
                meaning: "a device-group call refused (`error`, as the API answers it)",
                rule: RuleNote(
                    "A group call was refused: a name already taken, a key not found, more than 20 members, or "
                        + "a token "
                        + "that is not this sender's (the error field says which).", "docs/RULES.md Device groups"))
        case .faultAdded:
            EventDescription(
                fields: ["fault", "does", "path", "token", "sender", "topic", "count", "until"],
                meaning: "a fault made on purpose was added (`fault` id, `does`, its scope, `count` or `until`)",
                rule: RuleNote.fault)
        case .faultInjected:
            EventDescription(
                fields: ["fault", "does", "path", "left", "delay"],
                meaning: "a fault was used (`left`; a latency fault's `delay`, how long it held this request)",
                rule: RuleNote.fault)
        case .faultsCleared:
            EventDescription(
                fields: ["count"],
                meaning: "every fault was cleared (`count`)",
                rule: RuleNote.fault)
        case .deviceReset:
            EventDescription(
                fields: ["connections_ended"],
                meaning: "the control API reset the device to its profile's start (`connections_ended`)",
                rule: RuleNote(
                    "A reset returns the device to how its profile starts it: the same seed and tokens, nothing "
                        + "held or "
                        + "delivered, no topics, groups or faults; app servers reconnect.", "docs/control-api.md"))
        case .appServerConnected:
            EventDescription(
                fields: ["sender", "connection"],
                meaning: "an app server's CCS connection came (`connection`)",
                rule: RuleNote.appServerLogin)
        case .appServerDisconnected:
            EventDescription(
                fields: ["sender", "connection"],
                meaning: "an app server's CCS connection went (`connection`)",
                rule: RuleNote.appServerLogin)
        case .connectionRefused:
            EventDescription(
                fields: ["sender", "connection", "detail"],
                meaning: "a login past 1,000 connections for one sender",
                rule: RuleNote.appServerLogin)
        case .connectionDraining:
            EventDescription(
                fields: ["connection"],
                meaning: "one connection got `CONNECTION_DRAINING`",
                rule: RuleNote.draining)
        case .drainRequested:
            EventDescription(
                fields: [],
                meaning: "the connection server asks its connections to drain",
                rule: RuleNote.draining)
        case .nack:
            EventDescription(
                fields: ["id", "sender", "connection", "error"],
                meaning: "a downstream message on a connection was refused (`error`, the CCS code)",
                rule: RuleNote(
                    "The connection server refused a downstream stanza from an app server, with the error code "
                        + "saying why.", "docs/RULES.md App-server connections"))
        case .stanzaError:
            EventDescription(
                fields: ["id", "sender", "connection", "detail"],
                meaning: "a stanza that could not even be nacked",
                rule: RuleNote(
                    "A stanza the connection server could not read at all is answered with an XMPP stanza error.",
                    "docs/RULES.md XMPP session"))
        case .serviceChanged:
            EventDescription(
                fields: ["service"],
                meaning: "the messaging service went down or came up",
                rule: RuleNote.deviceChanged)
        case .stateResumed:
            EventDescription(
                fields: ["state", "clock", "pending", "awaitingAck", "stored", "devices"],
                meaning: "the device resumed from its state file",
                rule: RuleNote.resumed)
        case .requestRejected:
            EventDescription(
                fields: [
                    "method", "path", "status", "reason", "api", "request", "bearer", "retry_after", "fault",
                    "http_connection", "http_request", "started",
                ],
                meaning:
                    "an HTTP request refused before it reached the device (`method`, `path`, `status`, "
                    + "`reason`): a wrong key or bearer token, a refused service-account assertion, a malformed "
                    + "body, an unknown route, a status fault's answer (after its `faultInjected`); a refused "
                    + "`CONNECT` (method `CONNECT`, the target as `path`) or a failed TLS handshake (method "
                    + "`TLS`). A send's refusal also has `api` and `request` (as `downstreamAccepted`: a digest "
                    + "of the path and body), `bearer` (a digest of the access token it carried, never the "
                    + "token), `retry_after`, `fault` when a status fault made the answer, and where and when "
                    + "it started (`http_connection`, `http_request`, `started`, as `downstreamAccepted`'s)",
                rule: RuleNote(
                    "The HTTP API refused the request before it reached the device: the reason field says what was "
                        + "wrong (credentials, the body, the route, or the service down).",
                    "docs/app-servers.md"))
        case .requestAbandoned:
            EventDescription(
                fields: ["method", "path", "api", "request", "http_connection", "http_request", "started", "waited"],
                meaning:
                    "an app server closed the connection (or reset the HTTP/2 stream) of a send before it was "
                    + "answered: `waited`, the milliseconds from its start to then; `api` and `request` as "
                    + "`downstreamAccepted`'s. The device may have taken it already",
                rule: RuleNote(
                    "The app server gave up on a send before the answer came: a latency fault or a slow answer "
                        + "outlasted its timeout. Google asks for at least 10 s; the message may still be "
                        + "delivered, and a resend can reach the user twice.",
                    "docs/report.md · Google: scale-fcm, Timeouts"))
        case .credentialsUnverified:
            EventDescription(
                fields: ["account", "key", "project"],
                meaning:
                    "the token endpoint took a service-account assertion signed by a key the emulator did not "
                    + "make (`account`, `key`, `project`)",
                rule: RuleNote(
                    "The token endpoint granted a bearer token for a service account whose key the emulator "
                        + "never saw: "
                        + "the claims were valid, the signature could not be checked (--verify-credentials refuses "
                        + "it).",
                    "docs/DECISIONS.md The HTTPS proxy"))
        case .pushSubscribed:
            EventDescription(
                fields: ["endpoint", "key"],
                meaning:
                    "a browser subscribed to push (`endpoint`, Chrome's on FCM's host; `key`, its "
                    + "applicationServerKey, `default` for the FCM SDK's own)",
                rule: RuleNote(
                    "A web app's first token comes with a push subscription made with getToken's vapidKey (or the "
                        + "SDK's default key): its endpoint and keys are what Web Push app servers keep.",
                    "docs/RULES.md Web Push"))
        case .pushUnsubscribed:
            EventDescription(
                fields: ["endpoint", "reason", "discarded"],
                meaning:
                    "a browser's push subscription ended (`reason`: `unsubscribed`, `uninstalled`, `a new VAPID "
                    + "key`); what the push service held for it is gone (`discarded`)",
                rule: RuleNote(
                    "An ended subscription is answered 410 from then on: an app server should forget it.",
                    "docs/RULES.md Web Push"))
        case .webPushAccepted:
            EventDescription(
                fields: ["id", "ttl", "bytes", "encoding", "topic", "urgency", "detail", "endpoint"],
                meaning:
                    "the push service took a Web Push message (201): its `id` (in `Location`), the `ttl` kept, "
                    + "the body's size and encoding, its `topic` and `urgency`",
                rule: RuleNote(
                    "A 201 means the push service took the message, not that the browser could read it: it cannot "
                        + "see inside.", "docs/RULES.md Web Push"))
        case .webPushRefused:
            EventDescription(
                fields: ["status", "reason", "detail", "endpoint"],
                meaning:
                    "the push service refused a Web Push request (`status` and `reason`, FCM's words where known): "
                    + "no TTL, a bad Topic or encoding, VAPID missing or wrong, a body over 4,096 bytes, an "
                    + "endpoint unknown (404) or ended (410)",
                rule: RuleNote(
                    "Web Push needs a TTL, VAPID signed by the subscription's key for the push service's origin, "
                        + "an encrypted body of at most 4,096 bytes, and a live subscription.", "docs/RULES.md Web Push"
                ))
        case .webPushHeld:
            EventDescription(
                fields: ["id", "ttl", "reason"],
                meaning: "the push service holds a Web Push message for a browser that cannot take it now (`reason`)",
                rule: RuleNote(
                    "A browser offline or closed gets what was held when it comes back, within each message's TTL.",
                    "docs/RULES.md Web Push"))
        case .webPushReplaced:
            EventDescription(
                fields: ["id", "by", "topic"],
                meaning: "a held Web Push message (`id`) was replaced by a newer one with the same `topic` (`by`)",
                rule: RuleNote(
                    "A message with a Topic replaces the one held with the same Topic: only the newest is delivered.",
                    "docs/RULES.md Web Push"))
        case .webPushDropped:
            EventDescription(
                fields: ["id", "reason", "detail", "encoding", "topic", "urgency"],
                meaning:
                    "a Web Push message never reached the service worker (`reason`): `undecryptable` (the browser "
                    + "could not decrypt it, `detail` says why), `expired` (its TTL ran out while held), `ttl0` "
                    + "(TTL 0 to a browser that could not take it at once), `overflow` (the oldest of more than "
                    + "100 held for one browser)",
                rule: .byValue(
                    of: "reason",
                    [
                        "undecryptable": RuleNote(
                            "A body not encrypted to the subscription's p256dh and auth is accepted by the push "
                                + "service and dropped by the browser, silently in production.",
                            "docs/RULES.md Web Push"),
                        "ttl0": RuleNote(
                            "A message with TTL 0 is delivered at once or never.", "docs/RULES.md Web Push"),
                    ],
                    otherwise: RuleNote(
                        "A held message whose TTL ran out is not delivered; the app server is not told.",
                        "docs/RULES.md Web Push")))
        case .pushEvent:
            EventDescription(
                fields: ["id", "data", "data_base64", "encoding", "topic", "urgency", "handler", "detail"],
                meaning:
                    "the service worker's `push` event: the payload the browser decrypted (`data`, or "
                    + "`data_base64` when it is not text; neither when the message had no body); `handler` "
                    + "`fcm` when it is JSON (the FCM SDK's worker takes it as an FCM message), `site` when it "
                    + "is the site's own push handler's (the device's `push_handler`)",
                rule: RuleNote(
                    "The browser decrypts a Web Push message with its own keys and hands the plaintext to its "
                        + "service worker's push event.", "docs/RULES.md Web Push"))
        case .receiverCheckedIn:
            EventDescription(
                fields: ["android_id", "new"],
                meaning:
                    "a real client checked in (`new`: it got a new `android_id` and security token; otherwise its "
                    + "saved pair was confirmed)",
                rule: RuleNote(
                    "A device-side client checks in first; with saved credentials it checks in with them and "
                        + "keeps its registrations.", "docs/device-receivers.md"))
        case .receiverRegistered:
            EventDescription(
                fields: ["android_id", "subtype", "gcm_token"],
                meaning: "register3 gave a checked-in device a GCM token for its app's `subtype`",
                rule: RuleNote(
                    "register3's `sender` is the FCM SDK's default VAPID key, not a sender ID: the project comes "
                        + "from the Installations and registrations calls.", "docs/device-receivers.md"))
        case .installationCreated:
            EventDescription(
                fields: ["project", "fid"],
                meaning: "Firebase Installations made an installation (`fid`) for `project` and its auth token",
                rule: RuleNote(
                    "An installation's auth token is what the FCM registrations call shows.", "docs/device-receivers.md"
                ))
        case .receiverJoined:
            EventDescription(
                fields: ["android_id", "sender", "token", "endpoint"],
                meaning:
                    "a real client registered its web push subscription (`endpoint`) and has an FCM `token` for "
                    + "`sender`: it is a phone of the fleet, away until it logs in over MCS",
                rule: RuleNote(
                    "App servers reach a real client by its FCM token (legacy, v1, topics) or its endpoint (Web "
                        + "Push), as any phone.", "docs/device-receivers.md"))
        case .receiverRefused:
            EventDescription(
                fields: ["endpoint", "status", "reason"],
                meaning:
                    "a real client's call was refused: `endpoint` `checkin`, `register3`, `installations`, "
                    + "`registrations` or `mcs` (a login refused, or none within the login timeout: 408), with the "
                    + "`status` (or the login error's code) and why",
                rule: RuleNote(
                    "A device that did not check in, a wrong security token, an unknown project or installation "
                        + "is refused as Google refuses it; a connection that does not log in in time is closed.",
                    "docs/device-receivers.md"))
        case .receiverConnected:
            EventDescription(
                fields: ["android_id", "received_before", "sent_again", "detail"],
                meaning:
                    "a real client logged in over MCS: what it had not acked is sent again (`sent_again`), less "
                    + "what it said it received (`received_before`); then what was held for it",
                rule: RuleNote(
                    "A message not acked is sent again at the next login unless the client lists it as received.",
                    "docs/device-receivers.md"))
        case .receiverSent:
            EventDescription(
                fields: ["id", "persistent_id", "from", "bytes", "message_type", "total_deleted"],
                meaning:
                    "a message (`id`, as the app server knows it) was written to a real client's MCS connection "
                    + "(`persistent_id`, the connection's own; `bytes` encrypted): it is kept until the client acks it; "
                    + "with `message_type` `deleted_messages`, the notice that the server discarded `total_deleted` "
                    + "messages for it while it was away",
                rule: RuleNote(
                    "FCM encrypts a message to a Chrome-style receiver with aesgcm and its keys in app data; the "
                        + "client decrypts it itself.", "docs/device-receivers.md"))
        case .receiverAcked:
            EventDescription(
                fields: ["ids", "persistent_ids"],
                meaning:
                    "a real client acked messages (selective ack, by `persistent_ids`; `ids` as the app server knows "
                    + "them): they are not sent again",
                rule: RuleNote(
                    "The client acks each message it took; what it did not ack comes again.", "docs/device-receivers.md"
                ))
        case .receiverDisconnected:
            EventDescription(
                fields: ["unacked", "reason"],
                meaning:
                    "a real client's MCS connection ended (`reason` when the client sent what MCS cannot read, or "
                    + "answered none of the server's pings): it is away, and the server holds for it (`unacked` is "
                    + "sent again at its next login)",
                rule: RuleNote(
                    "While a client is away the server holds its messages within their time to live.",
                    "docs/device-receivers.md"))
        case .expectationHeld, .expectationFailed:
            EventDescription(
                fields: ["expect", "detail", "step_at"],
                meaning: "a profile's `expect` or `expect_none`, judged where it was reached (side `check`)",
                rule: RuleNote(
                    "A profile's expect step, judged at its time against every event so far (expect_none: "
                        + "against any "
                        + "match).", "docs/profiles.md Expectations"))
        }
    }

    /// What a delivery event says of the message besides its payload (`detailFields(of:)`).
    static let detailFields = ["analytics_label", "direct_boot_ok", "live_activity_token", "ignored"]
}

/// Rules behind several kinds of event.
extension RuleNote {
    static let receivedOnIOS = RuleNote(
        "On iOS the app gets data in the foreground, or in the background when the message says "
            + "content_available; other data waits until the app comes to the foreground.",
        "docs/RULES.md Delivery, storage and lifetime")
    static let receivedOnAndroid = RuleNote(
        "A data message reaches onMessageReceived in the foreground and the background; a notification message "
            + "only in the foreground (in the background it goes to the tray).",
        "docs/RULES.md Delivery, storage and lifetime")
    static let saidWhy = RuleNote(
        "The emulator says what it did not do, or did differently, and why (the detail field).",
        "docs/RULES.md")
    static let deviceChanged = RuleNote(
        "Something the user or the profile did to the device; what it can receive follows from it.",
        "docs/RULES.md Delivery, storage and lifetime")
    static let resumed = RuleNote(
        "A saved device resumes with what it held when it stopped: tokens, queues and stored messages.",
        "docs/saved-device.md")
    static let upstreamForwarded = RuleNote(
        "The connection server passes an upstream message to an app server of its sender (taking turns "
            + "among its connections) and holds it until that app server acks.",
        "docs/RULES.md App-server connections")
    static let receiptOwed = RuleNote(
        "The app server asked for a delivery receipt: once the device has the message, the connection "
            + "server sends one (id dr2:…) and resends it until the app server acks it.",
        "docs/RULES.md App-server connections")
    static let fault = RuleNote(
        "A fault made on purpose by a test suite or a profile: requests and messages in its scope fail as "
            + "the real service fails (a status, an error, a delay), for as many uses or as long as it says.",
        "docs/control-api.md Faults")
    static let appServerLogin = RuleNote(
        "App servers log in over XMPP with their sender ID and server key: at most 1,000 connections per "
            + "sender.", "docs/RULES.md App-server connections")
    static let draining = RuleNote(
        "A draining connection takes no new downstream (CONNECTION_DRAINING): the app server opens another "
            + "and closes this one; what it carried goes out on the others.", "docs/RULES.md App-server connections")
}

/// Rules picked by what an event says.
extension EventRule {
    static let upstreamFailure = EventRule.byValue(
        of: "error",
        [
            "TooManyMessages": RuleNote(
                "The SDK keeps at most 20 upstream messages while it cannot reach the service: the 21st fails at "
                    + "once.", "docs/RULES.md Upstream"),
            "SERVICE_NOT_AVAILABLE": RuleNote(
                "A message waiting for the service ran out of time to live (TTL 0 fails at once when it cannot go "
                    + "out now).", "docs/RULES.md Upstream"),
            "MessageTooBig": RuleNote(
                "Upstream payloads are at most 4,096: bytes of keys and values on Android, characters on iOS.",
                "docs/RULES.md Upstream"),
        ],
        otherwise: RuleNote(
            "The SDK refused the upstream message before sending it (the error says why).", "docs/RULES.md Upstream"
        ))
    static let rejected = EventRule.byValue(
        of: "error",
        [
            "NotRegistered": RuleNote(
                "The token was refreshed or the app uninstalled: the old token is no longer registered.",
                "docs/RULES.md Registration"),
            "InvalidRegistration": RuleNote("The token is not one the service issued.", "docs/RULES.md Registration"),
            "MismatchSenderId": RuleNote(
                "A token belongs to the sender it was issued for: another sender cannot push to it.",
                "docs/RULES.md Registration"),
        ],
        otherwise: RuleNote(
            "The service refused the message before taking it (the error names the rule).",
            "docs/RULES.md Downstream acceptance"))
    static let stored = EventRule.byValue(
        of: "reason",
        [
            "doze": RuleNote(
                "The device dozes: a normal-priority message waits for a maintenance window or for the device to "
                    + "wake; a high-priority one would be delivered at once.",
                "docs/RULES.md Delivery, storage and lifetime"),
            "asleep": RuleNote(
                "The iPhone is asleep: APNs holds a normal-priority (5) push until it wakes, and delivers a "
                    + "high-priority (10) one at once. (An iPhone has no Doze; the switch plays this.)",
                "docs/RULES.md Delivery, storage and lifetime"),
            "app stopped": RuleNote(
                "A force-stopped Android app receives nothing until the user starts it again.",
                "docs/RULES.md Delivery, storage and lifetime"),
            "ios data waits for foreground": RuleNote.receivedOnIOS,
            "throttled": RuleNote(
                "Collapsible messages to one Android device come in a burst of 20, then one every 3 minutes: the "
                    + "excess waits (and collapses by its key) until the budget grows.",
                "docs/RULES.md Production policies · firebase.google.com/docs/cloud-messaging/throttling-and-quotas"),
        ],
        otherwise: RuleNote(
            "The device cannot take the message now (offline, outage or uninstalled), so the connection server "
                + "stores it: at most 100 non-collapsible messages and 4 collapse keys, each until its TTL.",
            "docs/RULES.md Delivery, storage and lifetime"))
    static let discarded = EventRule.byValue(
        of: "reason",
        [
            "store-limit": RuleNote(
                "More non-collapsible messages were stored for the device than the store keeps (100): the server "
                    + "discards everything stored, and the app hears onDeletedMessages when it reconnects.",
                "docs/RULES.md Delivery, storage and lifetime"),
            "ttl-zero": RuleNote(
                "A message with time to live 0 is delivered now or never: the device cannot take it now.",
                "docs/RULES.md Delivery, storage and lifetime"),
            "collapse-key-limit": RuleNote(
                "At most 4 collapse keys are stored per device: a fifth evicts the oldest (or the newcomer, as the "
                    + "profile chooses).", "docs/RULES.md Delivery, storage and lifetime"),
            "force-quit": RuleNote(
                "iOS does not launch an app the user swiped away for a background (content-available) push: it is "
                    + "dropped, not handed over later. Alerts are still shown.",
                "docs/RULES.md Production policies · Apple, Pushing background updates to your app"),
            "inactive": RuleNote(
                "A device unreachable for over a month loses what the server held for it.",
                "docs/RULES.md Delivery, storage and lifetime"),
        ],
        otherwise: RuleNote(
            "The app was uninstalled: what it had pending or stored is gone with it.", "docs/RULES.md Registration"))
}
