/// A web app instance: the FCM JavaScript SDK in a page and its service worker. Its
/// rules beside Android's and iOS's: a click focuses a tab and calls no app code; no
/// upstream, no client topic API; tokens only with notification permission.
extension DeviceEngine {
    /// A click on a browser notification: the SDK closes it and opens its link
    /// (`fcm_options.link`, else `click_action`): a tab of the app's origin is focused,
    /// not navigated; without one a window opens; a link on another host, or none,
    /// opens nothing. No app callback hears the click.
    mutating func webTap(at index: Int, into out: inout [Event]) {
        let note = tray.remove(at: index)
        var fields: [Field] = [.text("id", note.id), .text("from", note.sender)]
        let link = note.notification.first { $0.key == "click_action" }?.value
        let window: String
        if let link {
            fields.append(.text("link", link))
            if WebOrigin.host(of: link) != WebOrigin.host(of: device.app) {
                window = "none"
                fields.append(.text("detail", "the link is on another host than the app's origin \(device.app)"))
            } else {
                // A tab of the app is open while the browser runs (visible or hidden).
                window = appState == .stopped ? "opened" : "focused"
            }
        } else {
            window = "none"
            fields.append(.text("detail", "the notification has no link"))
        }
        fields.append(.text("window", window))
        emit(.device, .notificationTapped, fields, into: &out)
    }

    /// Why a web app cannot do what a phone's app does, or nil.
    func webRefusal(_ command: Command) -> String? {
        platform == .web ? Self.webRefusal(command) : nil
    }

    /// Why a web app cannot take `command` (a profile says so at its line), or nil.
    public static func webRefusal(_ command: Command) -> String? {
        switch command {
        case .send:
            return "a web app has no upstream: the FCM JavaScript SDK has no send API"
        case .subscribe, .unsubscribe:
            return "a web app cannot change its topics: subscribe it from the server (Admin SDK, IID or v1 "
                + "topicSubscriptions)"
        case .setDoze:
            return "a browser has no Doze (it is Android's)"
        default:
            return nil
        }
    }

    /// Whether the phone may hold a token: a web app needs notification permission.
    var permissionProblem: String? {
        guard platform == .web, let permission = device.permission, permission != .granted else { return nil }
        return permission == .denied
            ? "notification permission is denied for \(device.app)"
            : "the notification prompt for \(device.app) was dismissed, not granted"
    }
}

/// The host of an origin or URL: `https://app.example.com:8443/news` → `app.example.com`.
enum WebOrigin {
    static func host(of text: String) -> String {
        var rest = Substring(text)
        // After the scheme's `://`, if there is one.
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        let end = rest.firstIndex { $0 == "/" || $0 == ":" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return rest[..<end].lowercased()
    }
}
