/// How bad a broken practice is, as the report card grades it.
public enum ReportSeverity: String, Sendable, CaseIterable, Comparable {
    /// Production loses messages or fails the send.
    case error
    /// Production throttles, delays or deprioritises the traffic.
    case warning
    /// Deprecated or wasteful; nothing breaks today because of it.
    case note

    /// Worse first.
    var rank: Int {
        switch self {
        case .error: 0
        case .warning: 1
        case .note: 2
        }
    }

    /// `a < b` when `a` is worse.
    public static func < (a: ReportSeverity, b: ReportSeverity) -> Bool { a.rank < b.rank }
}

/// One of Google's practices for app servers that the report card judges from the
/// event log; its id is stable (scripts and CI configurations name it).
public enum ReportRule: String, Sendable, CaseIterable {
    case unregisteredTokenReused = "unregistered-token-reused"
    case permanentErrorResent = "permanent-error-resent"
    case retryAfterIgnored = "retry-after-ignored"
    case retryWithoutBackoff = "retry-without-backoff"
    case retryTooSoon = "retry-too-soon"
    case deviceRateExceeded = "device-rate-exceeded"
    case collapseKeyLimit = "collapse-key-limit"
    case collapsibleThrottled = "collapsible-throttled"
    case highPriorityUnseen = "high-priority-unseen"
    case rejectedAccessTokenReused = "rejected-access-token-reused"
    case accessTokenPerRequest = "access-token-per-request"
    case apnsHighPriorityData = "apns-high-priority-data"
    case sendAbandonedTooSoon = "send-abandoned-too-soon"
    case batchEndpoint = "batch-endpoint"
    case upstreamNotAcked = "upstream-not-acked"
    case drainingConnectionUsed = "draining-connection-used"
    case legacyHTTPAPI = "legacy-http-api"
    case legacyXMPPAPI = "legacy-xmpp-api"
    case webPushGoneResent = "webpush-gone-resent"
    case webPushUndecryptable = "webpush-undecryptable"
    case webPushVAPIDRefused = "webpush-vapid-refused"
    case webPushTTL = "webpush-ttl"

    public var severity: ReportSeverity {
        switch self {
        case .unregisteredTokenReused, .permanentErrorResent, .deviceRateExceeded, .collapseKeyLimit,
            .rejectedAccessTokenReused, .batchEndpoint, .upstreamNotAcked, .drainingConnectionUsed,
            .apnsHighPriorityData, .webPushGoneResent, .webPushUndecryptable, .webPushVAPIDRefused:
            .error
        case .retryAfterIgnored, .retryWithoutBackoff, .collapsibleThrottled, .highPriorityUnseen,
            .sendAbandonedTooSoon:
            .warning
        case .retryTooSoon, .legacyHTTPAPI, .legacyXMPPAPI, .accessTokenPerRequest, .webPushTTL: .note
        }
    }

    /// What Google asks, in one line.
    public var message: String {
        switch self {
        case .unregisteredTokenReused:
            "Delete a token FCM answered as unregistered or invalid, and send nothing more to it"
        case .permanentErrorResent:
            "Never resend unchanged a request refused as invalid (400, 403, 404, or a permanent legacy or CCS error): fix it"
        case .retryAfterIgnored:
            "Wait as long as Retry-After says before resending; after a 429 without it, at least 60 seconds"
        case .retryWithoutBackoff: "Back off exponentially, with jitter, between retries of a failed send"
        case .retryTooSoon: "Wait at least 10 seconds before the first retry of a 500 or 503 that gave no Retry-After"
        case .deviceRateExceeded: "Send at most 240 messages a minute and 5,000 an hour to one Android device"
        case .collapseKeyLimit:
            "Use at most four collapse keys per device at a time: FCM keeps four collapsible messages and drops the rest"
        case .collapsibleThrottled:
            "Collapsible messages to one device: a burst of 20, then one every 3 minutes; send frequent updates non-collapsible"
        case .highPriorityUnseen:
            "Use high priority only for messages that show the user something; send background data at normal priority"
        case .rejectedAccessTokenReused:
            "On a 401 for the access token, get a new token before sending again; never reuse a rejected one"
        case .accessTokenPerRequest:
            "Reuse an OAuth2 access token until it nears its expiry (an hour): do not mint one for each request"
        case .apnsHighPriorityData:
            "Send data messages to Apple devices at apns-priority 5: FCM refuses priority 10 without an alert"
        case .sendAbandonedTooSoon:
            "Give a send at least 10 seconds before treating it as failed and sending it again"
        case .batchEndpoint: "The batch send endpoint (send_all, sendMulticast) is gone: send with send_each"
        case .upstreamNotAcked: "Ack every upstream message and delivery receipt on the connection it came on"
        case .drainingConnectionUsed:
            "After CONNECTION_DRAINING, send new messages on another connection and let CCS close the old one"
        case .legacyHTTPAPI: "The legacy HTTP API (/fcm/send) is shut down since July 2024: send with HTTP v1"
        case .legacyXMPPAPI: "XMPP (CCS) is shut down since July 2024: send with HTTP v1"
        case .webPushGoneResent:
            "Delete a push subscription its push service answered 404 or 410, and send nothing more to it"
        case .webPushUndecryptable:
            "Encrypt each Web Push body to its subscription's p256dh and auth: the browser drops what it cannot decrypt"
        case .webPushVAPIDRefused:
            "Sign Web Push with the VAPID key the browser subscribed with, for the push service's origin, within 24 hours"
        case .webPushTTL: "Send every Web Push with a TTL, of at most four weeks"
        }
    }

    /// Where Google says it.
    public var source: String {
        let docs = "https://firebase.google.com/docs/cloud-messaging/"
        return switch self {
        case .unregisteredTokenReused: docs + "manage-tokens#detect-invalid-token-responses-from-the-fcm-backend"
        case .permanentErrorResent, .retryAfterIgnored, .retryWithoutBackoff, .retryTooSoon: docs + "scale-fcm#errors"
        case .deviceRateExceeded, .collapsibleThrottled: docs + "throttling-and-quotas"
        case .collapseKeyLimit: docs + "customize-messages/collapsible-message-types"
        case .highPriorityUnseen: docs + "android/message-priority"
        case .rejectedAccessTokenReused, .accessTokenPerRequest:
            "https://developers.google.com/identity/protocols/oauth2/service-account#expiration"
        case .apnsHighPriorityData: docs + "customize-messages/setting-message-priority"
        case .sendAbandonedTooSoon: docs + "scale-fcm#timeouts"
        case .batchEndpoint, .legacyHTTPAPI, .legacyXMPPAPI: docs + "migrate-v1"
        case .upstreamNotAcked, .drainingConnectionUsed: docs + "xmpp-server-ref"
        case .webPushGoneResent, .webPushTTL: "https://www.rfc-editor.org/rfc/rfc8030"
        case .webPushUndecryptable: "https://www.rfc-editor.org/rfc/rfc8291"
        case .webPushVAPIDRefused: "https://www.rfc-editor.org/rfc/rfc8292"
        }
    }
}
