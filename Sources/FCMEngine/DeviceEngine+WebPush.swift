import FCMJSON
import FCMWebPush

/// Web Push (RFC 8030, 8291, 8292) to a browser: its push subscription, the push
/// service's answers, and what the browser does with a message (decrypts it; its
/// service worker's `push` event hears it). A browser away gets what the push
/// service held for it, within each message's time to live.
extension DeviceEngine {
    // MARK: The browser's subscription

    /// A web phone's browser subscribes to push with `key` (nil: the FCM SDK's
    /// default): a subscription made with that key is kept; one made with another
    /// is ended first (the SDK unsubscribes and subscribes again).
    mutating func subscribeBrowser(on p: Int, key: String?, into out: inout [Event]) {
        // A real client's subscription is the one it registered (its own keys).
        guard self[p].platform == .web, !server.isReceiver(p) else { return }
        if let subscription = server.webPush.subscription(ofPhone: p) {
            guard subscription.applicationServerKey != key else { return }
            endSubscription(on: p, reason: "a new VAPID key", into: &out)
        }
        var random = SeededGenerator(
            seed: Phone.tokenSeed(self[p].settings.seed, index: p) ^ 0x57EB_9054_5EED
                ^ (server.webPush.made &* 0x0000_0100_0000_01B3))
        let id = PushService.subscriptionID(&random)
        let subscription = PushSubscription(
            id: id, phone: p, applicationServerKey: key, keySeed: random.next(), madeAt: now)
        server.webPush.made += 1
        server.webPush.add(subscription)
        emit(
            .device, .pushSubscribed, [.text("endpoint", subscription.endpoint), .text("key", key ?? "default")],
            on: p, into: &out)
    }

    /// The browser's subscription ends (`reason`): its endpoint answers 410 from now
    /// on, and what the push service held for it is gone.
    mutating func endSubscription(on p: Int, reason: String, into out: inout [Event]) {
        guard let ended = server.webPush.end(ofPhone: p, reason: reason) else { return }
        var fields: [Field] = [.text("endpoint", ended.endpoint), .text("reason", reason)]
        let dropped = server.webPush.held.filter { $0.subscription == ended.id }.map(\.id)
        if !dropped.isEmpty {
            server.webPush.held.removeAll { $0.subscription == ended.id }
            fields.append(Field("discarded", .list(dropped)))
        }
        emit(.device, .pushUnsubscribed, fields, on: p, into: &out)
    }

    /// Ends the subscription of a browser left with no token (deleteToken, a
    /// sender removed): the FCM SDK unsubscribes from push as it deletes.
    mutating func endSubscriptionIfTokenless(on p: Int, reason: String, into out: inout [Event]) {
        if self[p].tokens.isEmpty { endSubscription(on: p, reason: reason, into: &out) }
    }

    // MARK: The push service

    /// A Web Push request at the push service: refused with its status and text, or
    /// accepted (201) and given to the browser now, or held for it.
    mutating func receiveWebPush(
        _ request: WebPushRequest, signing: WebPushStep.Signing? = nil, into out: inout [Event]
    ) -> WebPushAnswer {
        guard let subscription = server.webPush.subscription(id: request.subscription) else {
            if let reason = server.webPush.ended[request.subscription] {
                return refuseWebPush(
                    request, 410, "push subscription has unsubscribed or expired.", detail: reason, on: nil,
                    into: &out)
            }
            return refuseWebPush(
                request, 404,
                "A valid push subscription endpoint should be specified in the URL as such: "
                    + "\(request.origin)/wp/<subscription id>",
                detail: "no browser holds this subscription", on: nil, into: &out)
        }
        let p = subscription.phone
        let reading = VAPIDCredentials.read(authorization: request.authorization, cryptoKey: request.cryptoKey)
        // The built-in app server's signature is as its step says (it holds the key).
        let problem =
            signing.map { WebPushRules.builtInProblem($0, subscription: subscription) }
            ?? WebPushRules.authorizationProblem(
                reading, subscription: subscription, origin: request.origin, unixNow: wallClock.unixSeconds(at: now))
        if let (status, text, detail) = problem {
            return refuseWebPush(request, status, text, detail: detail, on: p, into: &out)
        }
        let body = Base64URL.decode(request.body) ?? []
        let headers: WebPushRules.Headers
        switch WebPushRules.headers(request, body: body, reading: reading) {
        case .failure(let problem): return refuseWebPush(request, problem.status, problem.text, on: p, into: &out)
        case .success(let read): headers = read
        }
        let id = server.webPush.nextMessageID(at: now)
        var fields: [Field] = [.text("id", id), .number("ttl", headers.ttl), .number("bytes", body.count)]
        if let encoding = headers.encoding { fields.append(.text("encoding", encoding.rawValue)) }
        if let topic = headers.topic { fields.append(.text("topic", topic)) }
        if let urgency = headers.urgency { fields.append(.text("urgency", urgency)) }
        if request.ttl.flatMap({ Int64($0.trimmingSpaces) }) ?? 0 > headers.ttl {
            fields.append(.text("detail", "TTL shortened to four weeks, the longest kept"))
        }
        fields.append(.text("endpoint", subscription.endpoint))
        emit(.server, .webPushAccepted, fields, on: p, into: &out)
        let message = HeldWebPush(
            id: id, subscription: subscription.id, request: request, ttl: headers.ttl,
            expiresAt: now + headers.ttl * Span.second)
        if browserTakesPush(p) {
            browserReceives(message, subscription, on: p, into: &out)
        } else {
            holdWebPush(message, topic: headers.topic, on: p, into: &out)
        }
        return WebPushAnswer(
            status: 201,
            headers: [KeyValue("Location", "\(request.origin)/\(id)"), KeyValue("TTL", String(headers.ttl))])
    }

    /// The built-in app server's Web Push (a profile's `web_push` step, the TUI): the
    /// step's text encrypted to the browser's subscription for real (with a key and
    /// salt drawn from the device's seed, so a replay sends the same bytes), then
    /// taken by the push service as any app server's.
    mutating func appServerWebPush(_ step: WebPushStep, on p: Int, into out: inout [Event]) {
        guard let subscription = server.webPush.subscription(ofPhone: p) else {
            return refuse(
                "web_push",
                "the browser has no push subscription: it makes one with its first token (a get_token step, "
                    + "notification permission granted)", on: p, into: &out)
        }
        var random = SeededGenerator(
            seed: configuration.device.seed ^ 0x0A99_5E4F_E7 ^ (server.webPush.accepted &* 0x9E37_79B9_7F4A_7C15))
        func bytes(_ count: Int) -> [UInt8] {
            (0..<(count + 7) / 8).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }.prefix(count)
                .map { $0 }
        }
        let keys = subscription.encryptionKeys
        let encoding = step.encoding
        var sealed: WebPushCipher.Sealed?
        // A draw that is no P-256 key (about one in 2^32) is drawn again.
        for _ in 0..<8 where sealed == nil {
            sealed = WebPushCipher.encrypt(
                Array(step.data.utf8), encoding: encoding, to: keys.p256dh, auth: keys.auth,
                senderScalar: bytes(32), salt: bytes(16))
        }
        var body = sealed?.body ?? []
        if step.brokenBody, !body.isEmpty { body[body.count - 1] ^= 0x01 }
        let request = WebPushRequest(
            subscription: subscription.id, host: PushService.googleHost, secure: true, ttl: step.ttl.map(String.init),
            topic: step.topic, urgency: step.urgency, contentEncoding: step.encoding.rawValue,
            cryptoKey: sealed?.cryptoKey, encryption: sealed?.encryption, body: Base64URL.encode(body))
        _ = receiveWebPush(request, signing: step.vapid, into: &out)
    }

    /// An app server's Web Push request as a profile's `web_push` step, for the phone
    /// whose browser holds its subscription (what `w` saves): its text decrypted with
    /// the browser's keys (`body: broken` when it does not decrypt), its headers, and
    /// whether it was signed with the subscription's key. Nil when no browser holds the
    /// subscription now.
    public func webPushStep(for request: WebPushRequest) -> (phone: String, step: WebPushStep)? {
        // A real client's subscription: its keys are its own, nothing reads the message back.
        guard let subscription = server.webPush.subscription(id: request.subscription), subscription.clientKeys == nil
        else { return nil }
        let body = Base64URL.decode(request.body) ?? []
        let plaintext = try? subscription.decrypt(request, body: body)
        // Signed with the subscription's key, validly, for the origin it reached: right
        // (its `exp` is the one thing a replay, on its own clock, does not judge again).
        let signing: WebPushStep.Signing =
            switch VAPIDCredentials.read(authorization: request.authorization, cryptoKey: request.cryptoKey) {
            case .vapid(let credentials):
                subscription.applicationServerKey.flatMap { Base64URL.decode($0) } == credentials.keyBytes
                    && (try? credentials.verifiedClaims().get())?.audience == request.origin
                    ? .right : .wrong
            default: .none
            }
        let step = WebPushStep(
            data: plaintext.map { String(decoding: $0, as: UTF8.self) } ?? "",
            ttl: request.ttl.flatMap { Int64($0.trimmingSpaces) }, topic: request.topic,
            urgency: request.urgency, encoding: request.encoding, vapid: signing,
            brokenBody: plaintext == nil && !body.isEmpty)
        return (phone(subscription.phone) { $0.name }, step)
    }

    mutating func refuseWebPush(
        _ request: WebPushRequest, _ status: Int, _ text: String, detail: String? = nil, on p: Int?,
        into out: inout [Event]
    ) -> WebPushAnswer {
        var fields: [Field] = [.number("status", status), .text("reason", text)]
        if let detail { fields.append(.text("detail", detail)) }
        // The long endpoint last: a narrow screen shows the status and why.
        fields.append(.text("endpoint", PushService.googleOrigin + "/fcm/send/" + request.subscription))
        emit(.server, .webPushRefused, fields, on: p, into: &out)
        var headers: [KeyValue] = []
        if status == 401 { headers.append(KeyValue("WWW-Authenticate", "vapid")) }
        return WebPushAnswer(status: status, headers: headers, body: text + "\n")
    }

    /// Whether the browser of phone `p` can take a push now: installed, online, the
    /// service up, and the browser running (a hidden tab's service worker wakes; a
    /// closed browser hears nothing).
    func browserTakesPush(_ p: Int) -> Bool {
        connected(p) && phone(p) { $0.appState } != .stopped
    }

    /// The browser cannot take it now: held within its TTL (a TTL of 0 is never
    /// delivered), replacing a held message of the same `Topic`.
    mutating func holdWebPush(_ message: HeldWebPush, topic: String?, on p: Int, into out: inout [Event]) {
        guard message.ttl > 0 else {
            return emit(
                .server, .webPushDropped,
                [
                    .text("id", message.id), .text("reason", "ttl0"),
                    .text("detail", "TTL 0 and the browser cannot take it now: it is never delivered"),
                ], on: p, into: &out)
        }
        if let topic,
            let index = server.webPush.held.firstIndex(where: {
                $0.subscription == message.subscription && $0.request.topic == topic
            })
        {
            let replaced = server.webPush.held.remove(at: index)
            emit(
                .server, .webPushReplaced,
                [.text("id", replaced.id), .text("by", message.id), .text("topic", topic)], on: p, into: &out)
        }
        let forIt = server.webPush.held.indices.filter { server.webPush.held[$0].subscription == message.subscription }
        if forIt.count >= PushService.heldLimit, let oldest = forIt.first {
            let dropped = server.webPush.held.remove(at: oldest)
            emit(
                .server, .webPushDropped,
                [
                    .text("id", dropped.id), .text("reason", "overflow"),
                    .text("detail", "more than \(PushService.heldLimit) held for one browser: the oldest goes"),
                ], on: p, into: &out)
        }
        server.webPush.held.append(message)
        emit(
            .server, .webPushHeld,
            [.text("id", message.id), .number("ttl", message.ttl), .text("reason", holdReason(ofBrowser: p))],
            on: p, into: &out)
    }

    /// Why the browser of phone `p` cannot take a push now.
    func holdReason(ofBrowser p: Int) -> String {
        if !server.serviceUp { return "service down" }
        if !phone(p, { $0.installed }) { return "not installed" }
        if phone(p, { $0.network }) != .online { return "offline" }
        return "browser closed"
    }

    /// The browser gets a message: it decrypts it with its own keys, and its service
    /// worker's `push` event hears the plaintext; a body that does not decrypt is
    /// dropped (the push service could not see inside, and accepted it).
    mutating func browserReceives(
        _ message: HeldWebPush, _ subscription: PushSubscription, on p: Int, into out: inout [Event]
    ) {
        // A real client decrypts for itself: the push service hands it the message.
        if server.hasReceivers, server.isReceiver(p) { return writeWebPush(message, to: p, into: &out) }
        let body = Base64URL.decode(message.request.body) ?? []
        var fields: [Field] = [.text("id", message.id)]
        if let topic = message.request.topic { fields.append(.text("topic", topic)) }
        if let urgency = message.request.urgency { fields.append(.text("urgency", urgency.lowercased())) }
        guard !body.isEmpty else {
            emit(.device, .pushEvent, fields + [.text("handler", "site")], on: p, into: &out)
            return siteWorkerHandles("", message, on: p, into: &out)
        }
        fields.append(.text("encoding", message.request.encoding.rawValue))
        do throws(DecryptionFailure) {
            let plaintext = try subscription.decrypt(message.request, body: body)
            let text = String(validating: plaintext, as: UTF8.self)
            if let text {
                fields.append(.text("data", text))
            } else {
                fields.append(.text("data_base64", Base64URL.encode(plaintext)))
            }
            let fcmMessage = (try? JSONParser.parse(plaintext))?.object.flatMap { object in
                object.keys.contains(where: PushService.fcmMessageKeys.contains) ? object : nil
            }
            fields.append(.text("handler", fcmMessage == nil ? "site" : "fcm"))
            if fcmMessage == nil, text.map({ (try? JSONParser.parse(Array($0.utf8)))?.object != nil }) == true {
                fields.append(
                    .text(
                        "detail",
                        "JSON, but not FCM's message shape (notification, data, from, fcmMessageId, …): the site's "
                            + "own push handler takes it (push_handler), not the FCM SDK's"))
            }
            emit(.device, .pushEvent, fields, on: p, into: &out)
            if let fcmMessage {
                fcmWorkerHandles(fcmMessage, message, on: p, into: &out)
            } else {
                siteWorkerHandles(text ?? "", message, on: p, into: &out)
            }
        } catch {
            emit(
                .device, .webPushDropped, fields + [.text("reason", "undecryptable"), .text("detail", error.reason)],
                on: p, into: &out)
        }
    }

    /// The FCM SDK's service worker takes a JSON payload as an FCM message (the SDK
    /// ignores anything else): in the background its notification part is shown and
    /// `onBackgroundMessage` hears it, a visible tab's `onMessage` does; as for a
    /// message sent through FCM's own APIs.
    mutating func fcmWorkerHandles(_ payload: JSONObject, _ message: HeldWebPush, on p: Int, into out: inout [Event]) {
        func pairs(_ value: JSONValue?) -> [KeyValue]? {
            value?.object.map { object in object.members.map { KeyValue($0.key, $0.value.text) } }
        }
        let from = payload["from"]?.string
        let request = DownstreamRequest(
            sender: from ?? "webpush", to: nil, messageID: payload["fcmMessageId"]?.string ?? message.id,
            data: pairs(payload["data"]) ?? [], notification: pairs(payload["notification"]),
            collapseKey: payload["collapse_key"]?.string,
            priority: message.request.urgency?.trimmingSpaces.lowercased() == "high" ? "high" : nil,
            timeToLive: message.ttl)
        deliver(
            StoredMessage(
                id: request.messageID ?? message.id, request: request, acceptedAt: now, timeToLive: message.ttl,
                from: from), on: p, into: &out)
    }

    /// A push that is not an FCM message goes to the site's own `push` handler: as the
    /// device's `push_handler` says, it shows a notification with the text, or none,
    /// and Chrome shows its own notice in its place (a push must show something).
    mutating func siteWorkerHandles(_ text: String, _ message: HeldWebPush, on p: Int, into out: inout [Event]) {
        let silent = phone(p) { $0.settings.pushHandler } == .silent
        let notification = [
            KeyValue("title", silent ? "This site has been updated in the background" : self[p].settings.app),
            KeyValue("body", silent ? "" : text),
        ]
        let request = DownstreamRequest(sender: "webpush", to: nil, messageID: message.id, notification: notification)
        postToTray(
            StoredMessage(id: message.id, request: request, acceptedAt: now, timeToLive: message.ttl),
            from: silent ? "chrome" : "site", on: p, into: &out)
    }

    /// What the push service held for the browser of phone `p`, given now it can
    /// take it, oldest first.
    mutating func deliverHeldWebPush(on p: Int, into out: inout [Event]) {
        guard let subscription = server.webPush.subscription(ofPhone: p), browserTakesPush(p) else { return }
        let waiting = server.webPush.held.filter { $0.subscription == subscription.id }
        guard !waiting.isEmpty else { return }
        server.webPush.held.removeAll { $0.subscription == subscription.id }
        for message in waiting { browserReceives(message, subscription, on: p, into: &out) }
    }

    /// Held messages whose time to live ran out are dropped.
    mutating func expireWebPush(into out: inout [Event]) {
        let time = now
        let expired = server.webPush.held.filter { $0.expiresAt <= time }
        server.webPush.held.removeAll { $0.expiresAt <= time }
        for message in expired {
            let p = server.webPush.subscription(id: message.subscription)?.phone
            emit(
                .server, .webPushDropped,
                [
                    .text("id", message.id), .text("reason", "expired"),
                    .text("detail", "its TTL (\(message.ttl) s) ran out before the browser could take it"),
                ], on: p, into: &out)
        }
    }
}
