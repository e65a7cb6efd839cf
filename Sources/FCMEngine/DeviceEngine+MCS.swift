import FCMJSON
import FCMWebPush

/// A real client's MCS connection: its login by `android_id` and `security_token`,
/// each message written to it as FCM writes one for a Chrome-style receiver
/// (encrypted to its subscription, `aesgcm`, the keys in app data), its selective
/// acks, and what it did not ack sent again at its next login, less what it says it
/// received. While it is not logged in it is away: the server holds for it as for
/// any phone offline.
extension DeviceEngine {
    mutating func mcs(_ input: MCSInput, into out: inout [Event]) {
        if case .opened(let connection) = input {
            server.mcsLoginDeadlines[connection] = now + server.links.loginTimeout
            return
        }
        // Whether the connection had said nothing yet (it is waiting to log in).
        let loggingIn = server.mcsLoginDeadlines.removeValue(forKey: input.connection) != nil
        switch input {
        case .opened: break
        case .login(let connection, let login): mcsLogin(login, on: connection, into: &out)
        case .acked(let connection, let ids): mcsAcked(ids, on: connection, into: &out)
        case .closed(let connection, let reason):
            mcsClosed(connection, reason: reason, refusing: loggingIn, into: &out)
        }
    }

    /// MCS connections that did not log in within the login timeout are closed, as a
    /// CCS connection that reaches no session is: the server does not keep a socket
    /// that says nothing.
    mutating func closeSilentMCSConnections(into out: inout [Event]) {
        let due = server.mcsLoginDeadlines.filter { $0.value <= now }.keys.sorted()
        let seconds = DurationText.span(server.links.loginTimeout)
        for connection in due {
            server.mcsLoginDeadlines[connection] = nil
            server.links.effects.append(.mcs(connection, .close))
            emit(
                .server, .receiverRefused,
                [
                    .text("endpoint", "mcs"), .number("status", 408),
                    .text("reason", "no login within \(seconds) of connecting: the connection is closed"),
                ], on: nil, into: &out)
        }
    }

    /// The code a refused login's `ErrorInfo` carries.
    static let mcsLoginRefusedCode = 401

    mutating func mcsLogin(_ login: MCSLogin, on connection: ConnectionID, into out: inout [Event]) {
        guard let id = UInt64(login.user), let token = UInt64(login.authToken),
            server.receivers.checkin(id: id, token: token) != nil
        else {
            server.links.effects.append(
                .mcs(
                    connection,
                    .loginRefused(code: Self.mcsLoginRefusedCode, message: "authentication failed: unknown device")))
            return emit(
                .server, .receiverRefused,
                [
                    .text("endpoint", "mcs"), .number("status", Self.mcsLoginRefusedCode),
                    .text(
                        "reason",
                        "the login's user and auth_token are not an android_id and security_token that checked in"),
                ], on: nil, into: &out)
        }
        // The device logged in elsewhere before: that connection is closed.
        if let old = server.receivers.attach(connection, device: id) {
            server.links.effects.append(.mcs(old, .close))
        }
        server.links.effects.append(.mcs(connection, .loginAccepted))
        let phones = server.receivers.phones(ofDevice: id)
        guard !phones.isEmpty else {
            return emit(
                .server, .receiverConnected, [.text("android_id", String(id)), .text("detail", "not registered yet")],
                on: nil, into: &out)
        }
        let received = Set(login.received)
        let unixNow = wallClock.unixSeconds(at: now)
        for p in phones {
            let unacked = server.receivers.byPhone[p]?.unacked ?? []
            // What ran out of time while the client was away is not sent again.
            let expired = unacked.filter { $0.sent + $0.ttl < unixNow && !received.contains($0.persistentID) }
            let again = unacked.filter { !received.contains($0.persistentID) && $0.sent + $0.ttl >= unixNow }
            server.receivers.byPhone[p]?.unacked = again
            var fields: [Field] = [.text("android_id", String(id))]
            let before = unacked.count - again.count - expired.count
            if before > 0 { fields.append(.number("received_before", before)) }
            if !again.isEmpty { fields.append(.number("sent_again", again.count)) }
            emit(.server, .receiverConnected, fields, on: p, into: &out)
            for message in expired {
                emit(
                    .server, .discarded,
                    [
                        .text("id", message.messageID), .text("reason", "expired"),
                        .text("detail", "not acked, and its time to live ran out before the client logged in again"),
                    ], on: p, into: &out)
            }
            for message in again { server.links.effects.append(.mcs(connection, .data(message))) }
            setNetwork(.online, on: p, into: &out)
        }
    }

    mutating func mcsAcked(_ ids: [String], on connection: ConnectionID, into out: inout [Event]) {
        guard let id = server.receivers.deviceByConnection[connection] else { return }
        let acked = Set(ids)
        for p in server.receivers.phones(ofDevice: id) {
            guard let unacked = server.receivers.byPhone[p]?.unacked, !unacked.isEmpty else { continue }
            let kept = unacked.filter { !acked.contains($0.persistentID) }
            guard kept.count < unacked.count else { continue }
            server.receivers.byPhone[p]?.unacked = kept
            let known = unacked.filter { acked.contains($0.persistentID) }
            emit(
                .server, .receiverAcked,
                [
                    Field("ids", .list(known.map(\.messageID))),
                    Field("persistent_ids", .list(known.map(\.persistentID))),
                ],
                on: p, into: &out)
        }
    }

    /// A connection ended. One that never logged in and sent what MCS cannot read is
    /// refused with `reason` (`refusing`); one the server had already let go of (a
    /// second login of its device, `network offline`) and that ends on its own after
    /// that is not news.
    mutating func mcsClosed(
        _ connection: ConnectionID, reason: String? = nil, refusing: Bool = false, into out: inout [Event]
    ) {
        guard let id = server.receivers.detach(connection) else {
            if let reason, refusing {
                emit(
                    .server, .receiverRefused,
                    [.text("endpoint", "mcs"), .number("status", 400), .text("reason", reason)], on: nil, into: &out)
            }
            return
        }
        for p in server.receivers.phones(ofDevice: id) {
            let unacked = server.receivers.byPhone[p]?.unacked.count ?? 0
            var fields: [Field] = [.number("unacked", unacked)]
            if let reason { fields.append(.text("reason", reason)) }
            emit(.server, .receiverDisconnected, fields, on: p, into: &out)
            setNetwork(.offline, on: p, into: &out)
        }
    }

    /// The server ends a receiver's connection (a control-API or TUI `network
    /// offline`): it comes back when the client logs in again.
    mutating func disconnectReceiver(_ p: Int, into out: inout [Event]) {
        guard let connection = server.receivers.connection(ofPhone: p) else {
            return refuse("network", "the real client is not connected", on: p, into: &out)
        }
        server.links.effects.append(.mcs(connection, .close))
        mcsClosed(connection, into: &out)
    }

    /// Why a phone command is refused for a real client, or nil: it decides for
    /// itself whether it is online, in front or installed; the server can only end
    /// its connection or send it something.
    public static func receiverRefusal(_ command: PhoneCommand) -> String? {
        switch command {
        case .setNetwork(.offline), .webPush: nil
        default:
            "a real client (firebase-messaging over MCS) does that itself; the emulator can only disconnect it "
                + "(network offline) and send to it"
        }
    }

    // MARK: Writing to a receiver

    /// An FCM message to a receiver: its payload in the shape the JS SDK reads,
    /// encrypted to the receiver's subscription, written on its connection and kept
    /// until it is acked.
    mutating func writeToReceiver(_ message: StoredMessage, on p: Int, into out: inout [Event]) {
        guard let subscription = server.webPush.subscription(ofPhone: p),
            let registration = server.receivers.gcm[subscription.id]
        else { return }
        let request = message.request
        let from = message.from ?? request.sender
        var payload: [(key: String, value: JSONValue)] = []
        if !request.data.isEmpty {
            payload.append(("data", .object(JSONObject(request.data.map { ($0.key, .string($0.value)) }))))
        }
        if let notification = request.notification {
            payload.append(("notification", .object(JSONObject(notification.map { ($0.key, .string($0.value)) }))))
            if let link = notification.first(where: { $0.key == "click_action" })?.value {
                payload.append(("fcmOptions", .members(["link": .string(link)])))
            }
        }
        payload.append(("from", .string(from)))
        payload.append(("priority", .string(request.effectivePriority.rawValue)))
        payload.append(("fcmMessageId", .string(message.id)))
        if let key = request.collapseKey { payload.append(("collapse_key", .string(key))) }
        let plaintext = Array(JSONValue.object(JSONObject(payload)).json.utf8)
        guard let sealed = sealForReceiver(plaintext, subscription, on: p) else {
            return emit(
                .server, .discarded,
                [
                    .text("id", message.id), .text("reason", "undeliverable"),
                    .text("detail", "it cannot be encrypted to the client's p256dh"),
                ], on: p, into: &out)
        }
        // The persistent id is the connection's own (an app server's message ids may
        // repeat); the payload keeps the message's id as `fcmMessageId`.
        let written = write(
            ReceiverMessage(
                messageID: message.id, persistentID: persistentID(), from: from, category: Receivers.chromeApp,
                appData: [
                    KeyValue("crypto-key", "dh=" + Self.padded(sealed.dh)),
                    KeyValue("encryption", "salt=" + Self.padded(sealed.salt)),
                    KeyValue("subtype", registration.subtype),
                ], rawData: sealed.body, ttl: message.timeToLive, sent: wallClock.unixSeconds(at: now)),
            to: p, into: &out)
        guard written else { return }
        self[p].remember(
            DeliveredMessage(
                id: message.id, sender: request.sender, data: request.data, notification: request.notification,
                collapseKey: request.collapseKey, priority: request.effectivePriority, at: now, via: "mcs",
                from: message.from))
        noteReceipt(of: message, on: p, into: &out)
    }

    /// The id of the message written last (`Receivers.written`), as FCM writes a
    /// persistent id: `0:` the time in milliseconds `%` sixteen hex digits.
    func persistentID() -> String {
        let hex = String(server.receivers.written, radix: 16)
        return "0:\(wallClock.unixSeconds(at: now) * 1_000)%" + String(repeating: "0", count: max(0, 16 - hex.count))
            + hex
    }

    /// The server discarded messages for a real client while it was away (the store's
    /// limit): it is told at its next login, before what was held, by a stanza with no
    /// payload and `message_type: deleted_messages` and `total_deleted` in app data, the
    /// keys Android's SDK reads for `onDeletedMessages`. Kept until acked, as any
    /// message written (firebase-messaging acks it and calls no callback). False when
    /// it could not be written (the client is not connected).
    mutating func writeDeletedNotice(_ count: Int, to p: Int, into out: inout [Event]) -> Bool {
        guard let subscription = server.webPush.subscription(ofPhone: p),
            let registration = server.receivers.gcm[subscription.id],
            server.receivers.connection(ofPhone: p) != nil
        else { return false }
        server.receivers.written += 1
        let id = persistentID()
        return write(
            ReceiverMessage(
                messageID: id, persistentID: id, from: phone(p) { $0.senders.first?.id } ?? PushService.googleHost,
                category: Receivers.chromeApp,
                appData: [
                    KeyValue(Receivers.messageTypeKey, Receivers.deletedMessages),
                    KeyValue(Receivers.totalDeletedKey, String(count)), KeyValue("subtype", registration.subtype),
                ], rawData: [], ttl: ServiceLimits.maxTimeToLive, sent: wallClock.unixSeconds(at: now)),
            to: p, into: &out)
    }

    /// A Web Push message to a receiver's endpoint: handed on as it came (the app
    /// server encrypted it), with its keys in app data as the client reads them.
    mutating func writeWebPush(_ message: HeldWebPush, to p: Int, into out: inout [Event]) {
        guard let subscription = server.webPush.subscription(ofPhone: p),
            let registration = server.receivers.gcm[subscription.id]
        else { return }
        let request = message.request
        var appData = [KeyValue("subtype", registration.subtype)]
        switch request.encoding {
        case .aesgcm:
            if let dh = Self.parameter("dh", in: request.cryptoKey).flatMap(Base64URL.decode) {
                appData.append(KeyValue("crypto-key", "dh=" + Self.padded(dh)))
            }
            if let salt = Self.parameter("salt", in: request.encryption).flatMap(Base64URL.decode) {
                appData.append(KeyValue("encryption", "salt=" + Self.padded(salt)))
            }
        case .aes128gcm:
            appData.append(KeyValue("content-encoding", ContentEncoding.aes128gcm.rawValue))
        }
        _ = write(
            ReceiverMessage(
                messageID: message.id, persistentID: message.id, from: PushService.googleHost,
                category: Receivers.chromeApp,
                appData: appData, rawData: Base64URL.decode(request.body) ?? [], ttl: message.ttl,
                sent: wallClock.unixSeconds(at: now)),
            to: p, into: &out)
    }

    /// Writes a message on the receiver's connection and keeps it until it is acked
    /// (at most `Receivers.unackedLimit`: past it, the oldest is dropped); false when
    /// the client is not connected.
    mutating func write(_ message: ReceiverMessage, to p: Int, into out: inout [Event]) -> Bool {
        guard let connection = server.receivers.connection(ofPhone: p) else { return false }
        server.receivers.byPhone[p]?.unacked.append(message)
        if let count = server.receivers.byPhone[p]?.unacked.count, count > Receivers.unackedLimit,
            let dropped = server.receivers.byPhone[p]?.unacked.removeFirst()
        {
            emit(
                .server, .discarded,
                [
                    .text("id", dropped.messageID), .text("reason", "store-limit"),
                    .text("detail", "more than \(Receivers.unackedLimit) written and not acked: the oldest is dropped"),
                ], on: p, into: &out)
        }
        server.links.effects.append(.mcs(connection, .data(message)))
        var fields: [Field] = [
            .text("id", message.messageID), .text("persistent_id", message.persistentID),
            .text("from", message.from), .number("bytes", message.rawData.count),
        ]
        if let type = message.appData.first(where: { $0.key == Receivers.messageTypeKey })?.value {
            fields.append(.text("message_type", type))
            for pair in message.appData where pair.key == Receivers.totalDeletedKey {
                fields.append(.number(Receivers.totalDeletedKey, Int64(pair.value) ?? 0))
            }
        }
        emit(.server, .receiverSent, fields, on: p, into: &out)
        return true
    }

    /// The sender key for the receiver at `p`, agreed with its subscription's keys and
    /// drawn from the device's seed (a replay agrees the same one).
    mutating func agreeKey(for p: Int) {
        guard let subscription = server.webPush.subscription(ofPhone: p) else { return }
        var random = nextReceiverRandom()
        for _ in 0..<8 {
            let scalar = (0..<4).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }
            if let key = WebPushCipher.AgreedKey(senderScalar: scalar, receiver: subscription.encryptionKeys.p256dh) {
                server.receivers.byPhone[p]?.agreed = key
                return
            }
        }
    }

    /// `plaintext` encrypted (`aesgcm`) to a subscription with the receiver's agreed
    /// key and a salt drawn from the device's seed (a replay writes the same bytes).
    mutating func sealForReceiver(_ plaintext: [UInt8], _ subscription: PushSubscription, on p: Int) -> (
        body: [UInt8], dh: [UInt8], salt: [UInt8]
    )? {
        server.receivers.written += 1
        guard let key = server.receivers.byPhone[p]?.agreed else { return nil }
        var random = SeededGenerator(
            seed: configuration.device.seed ^ 0x3C5_A11D ^ (server.receivers.written &* 0x9E37_79B9_7F4A_7C15))
        let salt = (0..<2).flatMap { _ in withUnsafeBytes(of: random.next()) { Array($0) } }
        let keys = subscription.encryptionKeys
        guard
            let sealed = WebPushCipher.encryptAESGCM(plaintext, with: key, to: keys.p256dh, auth: keys.auth, salt: salt)
        else { return nil }
        return (sealed.body, key.senderPublic, salt)
    }

    /// Base64url with its padding: firebase-messaging decodes app data's `dh` and
    /// `salt` with Python's strict decoder, which needs it.
    static func padded(_ bytes: [UInt8]) -> String {
        let text = Base64URL.encode(bytes)
        return text + String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
    }

    /// A parameter's value in a header such as `Crypto-Key: dh=…;p256ecdsa=…`.
    static func parameter(_ name: String, in header: String?) -> String? {
        guard let header else { return nil }
        for part in header.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let pair = part.trimmingSpaces
            if pair.hasPrefix(name + "=") { return String(pair.dropFirst(name.count + 1)) }
        }
        return nil
    }
}
