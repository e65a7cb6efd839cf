/// Every event the emulator reports: the one vocabulary of transcripts, the `serve`
/// log, the TUI and `expect` steps. The device's callbacks carry the platform's own
/// names; which one a device uses is decided in one place, `CallbackNames`.
public enum EventName: String, Sendable, CaseIterable, Codable {
    // Device callbacks, by platform and SDK (see CallbackNames).
    case onNewToken, didReceiveRegistrationToken
    case onMessageSent, sendDataMessageSuccess, didSendDataMessageWithID
    case onSendError, sendDataMessageFailure, willSendDataMessageWithID
    case onMessageReceived, didReceiveRemoteNotification
    case onDeletedMessages, messagesDeleted
    /// The web SDK: `getToken` resolving (or rejecting), `onMessage` in a visible tab,
    /// `onBackgroundMessage` in the service worker.
    case getToken, onMessage, onBackgroundMessage, deleteToken, permissionChanged

    // Other device events.
    case notificationPosted, notificationTapped, upstreamQueued, warning
    /// The system did not show a notification (permission), and why.
    case notificationBlocked
    case networkChanged, appStateChanged, dozeChanged, uninstalled, installed, senderRemoved
    case commandRefused, tokenResumed, deviceAdded

    // The connection server: upstream.
    case upstreamForwarded, upstreamToAppServer, appServerAck, upstreamRetry, ackIgnored

    // The connection server: downstream and its storage.
    case downstreamAccepted, downstreamRejected, stored, collapsed, expired, discarded
    /// An Android app instance away for 270 days came back: its tokens are expired.
    case tokenExpired
    case receipt, receiptToAppServer, receiptAck

    // Topics: subscriptions made by the app or by app servers.
    case topicSubscribed, topicUnsubscribed, topicQueued, topicRefused

    // Device groups (legacy notification keys).
    case groupChanged, groupRefused

    // Faults made on purpose.
    case faultAdded, faultInjected, faultsCleared, deviceReset

    // The connection server: app servers, the service, the saved device.
    case appServerConnected, appServerDisconnected, connectionRefused, connectionDraining, drainRequested
    case nack, stanzaError, serviceChanged, stateResumed
    /// An HTTP request the send APIs refused before it reached the device.
    case requestRejected
    /// The app server went away from a send before it was answered (it closed the
    /// connection or reset the HTTP/2 stream).
    case requestAbandoned
    /// The token endpoint took a service-account assertion signed by a key the
    /// emulator did not make (it cannot know Google's keys).
    case credentialsUnverified

    // Web Push: a browser's push subscription, the push service, the service worker.
    case pushSubscribed, pushUnsubscribed
    case webPushAccepted, webPushRefused, webPushHeld, webPushReplaced, webPushDropped
    /// The service worker's `push` event, with the payload the browser decrypted.
    case pushEvent

    // Real clients: check-in, registrations, their MCS connection.
    case receiverCheckedIn, receiverRegistered, installationCreated, receiverJoined, receiverRefused
    case receiverConnected, receiverSent, receiverAcked, receiverDisconnected

    // A profile's expectations, judged where they are reached.
    case expectationHeld, expectationFailed
}
