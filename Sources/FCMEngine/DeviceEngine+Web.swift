/// A web app instance: the FCM JavaScript SDK in a page and its service worker. Its
/// rules beside Android's and iOS's: a click focuses a tab and calls no app code; no
/// upstream, no client topic API; tokens only with notification permission.
extension DeviceEngine {
    /// A click on a browser notification: the SDK closes it and opens its link
    /// (`fcm_options.link`, else `click_action`): a tab of the app's origin is focused,
    /// not navigated; without one a window opens; a link on another host, or none,
    /// opens nothing. No app callback hears the click.
    mutating func webTap(at index: Int, on p: Int, into out: inout [Event]) {
        let note = self[p].tray.remove(at: index)
        var fields: [Field] = [.text("id", note.id), .text("from", note.sender)]
        let link = note.notification.first { $0.key == "click_action" }?.value
        let window: String
        if let link {
            fields.append(.text("link", link))
            // A relative link is on the app's own origin.
            if !link.hasPrefix("/"), WebOrigin.host(of: link) != WebOrigin.host(of: self[p].settings.app) {
                window = "none"
                fields.append(
                    .text("detail", "the link is on another host than the app's origin \(self[p].settings.app)"))
            } else {
                // A tab of the app is open while the browser runs (visible or hidden).
                window = self[p].appState == .stopped ? "opened" : "focused"
            }
        } else {
            window = "none"
            fields.append(.text("detail", "the notification has no link"))
        }
        fields.append(.text("window", window))
        emit(.device, .notificationTapped, fields, on: p, into: &out)
        // The tab focused or opened is visible now: the page takes messages again.
        if window != "none" { setAppState(.foreground, on: p, into: &out) }
    }

    /// Why an app of `platform` cannot take `command` (a profile says so at its line,
    /// the TUI before a form is filled in), or nil: a web app has no upstream, no
    /// client topics and no Doze; getToken, deleteToken and the permission prompt are
    /// the web SDK's alone.
    public static func refusal(_ command: PhoneCommand, on platform: Platform) -> String? {
        switch command {
        case .webPush:
            return platform == .web ? nil : "Web Push reaches a browser: only a web app has a push subscription"
        case .getToken, .deleteToken:
            return platform == .web
                ? nil
                : "getToken and deleteToken are the web SDK's; a phone's tokens come "
                    + "with \(CallbackNames(platform: platform, sdk: .fcm).newToken.rawValue)"
        case .setPermission(let permission):
            return NotificationPermission.misfit(permission, on: platform)
        default:
            return platform == .web ? webRefusal(command) : nil
        }
    }

    /// Why a web app cannot take `command`, or nil.
    static func webRefusal(_ command: PhoneCommand) -> String? {
        switch command {
        case .send:
            return "a web app has no upstream: the FCM JavaScript SDK has no send API"
        case .subscribe, .unsubscribe:
            return "a web app cannot change its topics: subscribe it from the server (Admin SDK, IID or v1 "
                + "topicSubscriptions)"
        case .setDoze:
            return "a browser has no Doze (it is Android's)"
        case .refreshToken:
            return "the web SDK has no refresh call: getToken (a get_token step) hands out a new token a week on"
        default:
            return nil
        }
    }

    /// getToken: the token the app has (cached), a new one when it has none (deleted,
    /// or permission granted since) or when it is a week old (the SDK refreshes only
    /// here), or a rejection without notification permission.
    mutating func getToken(sender: String?, vapidKey: String?, on p: Int, into out: inout [Event]) {
        guard let targets = tokenCallTargets(sender, step: "get_token", on: p, into: &out) else { return }
        for target in targets {
            // Another VAPID key than the subscription's: the SDK deletes the old token
            // (app servers get UNREGISTERED for it) and makes a new one.
            if self[p].permissionProblem() == nil, let token = self[p].tokens[target.id],
                self[p].policy.vapidKeys[target.id] != vapidKey
            {
                self[p].tokens[target.id] = nil
                self[p].topics[target.id] = nil
                emit(
                    .device, .deleteToken,
                    [.text("sender", target.id), .text("token", token), .text("vapid_key", vapidKey ?? "default")],
                    on: p, into: &out)
                // The push subscription was made with the old key: the SDK unsubscribes.
                if server.webPush.subscription(ofPhone: p)?.applicationServerKey != vapidKey {
                    endSubscription(on: p, reason: "a new VAPID key", into: &out)
                }
            }
            if self[p].permissionProblem() == nil { self[p].policy.vapidKeys[target.id] = vapidKey }
            if self[p].permissionProblem() == nil, let token = self[p].tokens[target.id],
                now - (self[p].tokenIssuedAt[target.id] ?? 0) < Self.webTokenRefreshAge
            {
                emit(
                    .device, .getToken,
                    [.text("sender", target.id), .text("token", token), .flag("cached", true)], on: p, into: &out)
                continue
            }
            if self[p].tokens[target.id] != nil || self[p].retiredTokens[target.id] != nil {
                self[p].refreshes[target.id, default: 0] += 1
            }
            issueToken(for: target, on: p, into: &out)
        }
    }

    /// How old a web app's token is when getToken replaces it.
    static let webTokenRefreshAge: Millis = 7 * Span.day

    /// deleteToken: the app's token for the sender is gone (app servers then get
    /// NotRegistered / UNREGISTERED); getToken makes a new one.
    mutating func deleteToken(sender: String?, on p: Int, into out: inout [Event]) {
        guard let targets = tokenCallTargets(sender, step: "delete_token", on: p, into: &out) else { return }
        for target in targets {
            guard let token = self[p].tokens[target.id] else {
                emit(.device, .deleteToken, [.text("sender", target.id), .flag("had_token", false)], on: p, into: &out)
                continue
            }
            self[p].tokens[target.id] = nil
            // The registration is gone, and its topic subscriptions with it.
            self[p].topics[target.id] = nil
            emit(.device, .deleteToken, [.text("sender", target.id), .text("token", token)], on: p, into: &out)
            endSubscriptionIfTokenless(on: p, reason: "unsubscribed", into: &out)
        }
    }

    /// The user answered the notification prompt (or changed the setting): on a
    /// phone it decides what the system shows (`notificationOutcome`); in a browser,
    /// granted lets getToken work, and taken away the browser drops the push
    /// subscription and the tokens die with it.
    mutating func setPermission(_ permission: NotificationPermission, on p: Int, into out: inout [Event]) {
        guard permission != self[p].settings.notificationPermission else { return }
        if let problem = self[p].settings.permissionRefusal(permission) {
            return refuse("permission", problem, on: p, into: &out)
        }
        self[p].settings.permission = permission
        emit(.device, .permissionChanged, [.text("permission", permission.rawValue)], on: p, into: &out)
        if self[p].platform == .web, permission != .granted {
            self[p].tokens.removeAll()
            self[p].topics.removeAll()
            endSubscription(on: p, reason: "permission \(permission.rawValue)", into: &out)
        }
    }

}

/// The host and port of an origin or URL (a scheme's default port left out):
/// `https://app.example.com:8443/news` → `app.example.com:8443`.
public enum WebOrigin {
    public static func host(of text: String) -> String {
        var rest = Substring(text)
        var scheme = ""
        // After the scheme's `://`, if there is one.
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            scheme = rest[..<colon].lowercased()
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<end].lowercased()
        let defaultPort = scheme == "http" ? ":80" : ":443"
        return authority.hasSuffix(defaultPort) ? String(authority.dropLast(defaultPort.count)) : authority
    }
}
