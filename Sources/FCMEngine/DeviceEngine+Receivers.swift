import FCMJSON
import FCMWebPush

/// A real client app instance (firebase-messaging, any Chrome-style web push
/// receiver) registering with Google's hosts and joining the fleet as a phone:
/// check-in, register3, Firebase Installations and FCM registrations. What it
/// receives over MCS is `DeviceEngine+MCS`.
extension DeviceEngine {
    mutating func register(_ request: ReceiverRequest, into out: inout [Event]) -> ReceiverAnswer {
        switch request {
        case .checkin(let id, let token): return checkIn(androidID: id, securityToken: token, into: &out)
        case .register3(let form): return register3(form, into: &out)
        case .installation(let request): return install(request, into: &out)
        case .registration(let request): return registerReceiver(request, into: &out)
        }
    }

    /// A generator for the next id or token the registration hosts make: drawn from
    /// the device's seed, so a replay makes the same ones.
    mutating func nextReceiverRandom() -> SeededGenerator {
        server.receivers.made += 1
        return SeededGenerator(
            seed: configuration.device.seed ^ 0x00C4_EC41_2E6E ^ (server.receivers.made &* 0x9E37_79B9_7F4A_7C15))
    }

    // MARK: Check-in

    /// A new device gets an `android_id` (below 2^63: a client reads it back into an
    /// int64) and a `security_token`; a saved device checking in with its pair is
    /// confirmed; a pair that never checked in is refused.
    mutating func checkIn(androidID: UInt64?, securityToken: UInt64?, into out: inout [Event]) -> ReceiverAnswer {
        if let androidID, let securityToken {
            guard server.receivers.checkin(id: androidID, token: securityToken) != nil else {
                return refuseReceiver(
                    .checkin(androidID: androidID, securityToken: securityToken),
                    .text(
                        status: 401,
                        "android_id \(androidID) did not check in here, or its security_token is wrong: check in "
                            + "without them to get a new pair\n"),
                    reason: "android_id and security_token do not match a device that checked in", into: &out)
            }
            emit(
                .server, .receiverCheckedIn, [.text("android_id", String(androidID)), .flag("new", false)], on: nil,
                into: &out)
            return .checkedIn(androidID: androidID, securityToken: securityToken)
        }
        var random = nextReceiverRandom()
        var id: UInt64 = 0
        while id == 0 || server.receivers.checkins[id] != nil { id = random.next() >> 1 }
        let checkin = Receivers.Checkin(androidID: id, securityToken: random.next() | 1)
        server.receivers.checkins[id] = checkin
        emit(.server, .receiverCheckedIn, [.text("android_id", String(id)), .flag("new", true)], on: nil, into: &out)
        return .checkedIn(androidID: id, securityToken: checkin.securityToken)
    }

    // MARK: register3

    /// A GCM token for the device the `AidLogin` header names and the app's subtype:
    /// the same device and subtype get the same token again. The `sender` is the FCM
    /// SDK's default VAPID key, not a sender ID: it is not checked against the senders.
    mutating func register3(_ form: ReceiverRequest.Register3, into out: inout [Event]) -> ReceiverAnswer {
        guard let checkin = server.receivers.checkin(aidLogin: form.authorization) else {
            return refuseReceiver(
                .register3(form), .form(status: 401, "Error=AUTHENTICATION_FAILED"),
                reason: form.authorization == nil
                    ? "no Authorization: AidLogin <android_id>:<security_token> header"
                    : "the AidLogin pair did not check in, or its security_token is wrong", into: &out)
        }
        if !server.faults.isEmpty,
            server.useErrorFault(Fault.phoneRegistrationError, path: "/c2dm/register3", stamp, into: &out)
        {
            return .form(status: 200, "Error=" + Fault.phoneRegistrationError)
        }
        guard let app = form.app, !app.isEmpty, app.utf8.count <= Receivers.maxFieldLength,
            let subtype = form.subtype, !subtype.isEmpty, subtype.utf8.count <= Receivers.maxFieldLength
        else {
            return refuseReceiver(
                .register3(form), .form(status: 400, "Error=INVALID_PARAMETERS"),
                reason: "register3 needs the form fields app and X-subtype, each at most "
                    + "\(Receivers.maxFieldLength) bytes", into: &out)
        }
        let token: String
        if let known = server.receivers.gcm.values.first(where: {
            $0.androidID == checkin.androidID && $0.subtype == subtype
        }) {
            token = known.token
        } else {
            var random = nextReceiverRandom()
            token = PushService.subscriptionID(&random)
            server.receivers.gcm[token] = Receivers.GCMRegistration(
                token: token, androidID: checkin.androidID, app: app, subtype: subtype)
        }
        emit(
            .server, .receiverRegistered,
            [.text("android_id", String(checkin.androidID)), .text("subtype", subtype), .text("gcm_token", token)],
            on: nil, into: &out)
        return .form(status: 200, "token=" + token)
    }

    // MARK: Firebase Installations

    /// A Firebase installation for a project the profile declares: its `fid` (the
    /// client's), a refresh token and an auth token good for a week.
    mutating func install(_ request: ReceiverRequest.Installation, into out: inout [Event]) -> ReceiverAnswer {
        if case .failure(let refusal) = projectSender(request.project, apiKey: request.apiKey) {
            return refuseReceiver(.installation(request), refusal.answer, reason: refusal.reason, into: &out)
        }
        guard let appID = request.appID, !appID.isEmpty, appID.utf8.count <= Receivers.maxFieldLength,
            let fid = request.fid, !fid.isEmpty, fid.utf8.count <= Receivers.maxFieldLength
        else {
            return refuseReceiver(
                .installation(request),
                Self.googleError(400, "Request contains an invalid argument.", "INVALID_ARGUMENT"),
                reason: "an installation needs appId and fid, each at most \(Receivers.maxFieldLength) bytes",
                into: &out)
        }
        var random = nextReceiverRandom()
        let installation = Receivers.Installation(
            fid: fid, project: request.project,
            authToken: "eyJ" + TokenFactory.randomString(length: 160, using: &random),
            refreshToken: "3_" + TokenFactory.randomString(length: 90, using: &random))
        server.receivers.installations[installation.authToken] = installation
        emit(
            .server, .installationCreated, [.text("project", request.project), .text("fid", fid)], on: nil, into: &out)
        return .json(
            status: 200,
            .members([
                "name": .string("projects/\(request.project)/installations/\(fid)"), "fid": .string(fid),
                "refreshToken": .string(installation.refreshToken),
                "authToken": .members([
                    "token": .string(installation.authToken), "expiresIn": .string("\(Receivers.authTokenSeconds)s"),
                ]),
            ]))
    }

    // MARK: FCM registrations

    /// The receiver's web push subscription (its endpoint names its GCM token; its
    /// keys are its own) registered for an FCM token of the project's sender: the
    /// receiver joins the fleet as a web phone the first time, and keeps its phone
    /// and token when it registers again.
    mutating func registerReceiver(_ request: ReceiverRequest.Registration, into out: inout [Event]) -> ReceiverAnswer {
        let sender: SenderConfig
        switch projectSender(request.project, apiKey: request.apiKey) {
        case .failure(let refusal):
            return refuseReceiver(.registration(request), refusal.answer, reason: refusal.reason, into: &out)
        case .success(let found): sender = found
        }
        let bare = request.installationAuth.map { $0.hasPrefix("FIS ") ? String($0.dropFirst(4)) : $0 }
        guard let bare, let installation = server.receivers.installations[bare],
            installation.project == request.project
        else {
            return refuseReceiver(
                .registration(request),
                Self.googleError(
                    401,
                    "Request is missing required authentication credential. Expected OAuth 2 access token, login "
                        + "cookie or other valid authentication credential. See "
                        + "https://developers.google.com/identity/sign-in/web/devconsole-project.", "UNAUTHENTICATED"),
                reason: "x-goog-firebase-installations-auth is not an auth token of an installation of "
                    + request.project, into: &out)
        }
        let prefix = PushService.googleOrigin + "/fcm/send/"
        guard let endpoint = request.endpoint, endpoint.hasPrefix(prefix),
            let registration = server.receivers.gcm[String(endpoint.dropFirst(prefix.count))]
        else {
            return refuseReceiver(
                .registration(request),
                Self.googleError(400, "Request contains an invalid argument.", "INVALID_ARGUMENT"),
                reason: "web.endpoint is not \(prefix)<a GCM token register3 gave>", into: &out)
        }
        guard let p256dh = request.p256dh.flatMap(Base64URL.decode), WebPushCipher.isPublicKey(p256dh),
            let auth = request.auth.flatMap(Base64URL.decode), auth.count == 16
        else {
            return refuseReceiver(
                .registration(request),
                Self.googleError(400, "Request contains an invalid argument.", "INVALID_ARGUMENT"),
                reason:
                    "web.p256dh must be a P-256 public key (uncompressed, 65 bytes) and web.auth 16 bytes, base64url",
                into: &out)
        }
        let key = request.applicationPubKey.flatMap { $0.isEmpty ? nil : $0 }
        let p =
            server.receivers.phone(ofGCMToken: registration.token)
            ?? joinReceiver(registration, sender: sender, into: &out)
        var subscription = PushSubscription(
            id: registration.token, phone: p, applicationServerKey: key, keySeed: 0, madeAt: now)
        subscription.clientKeys = PushSubscription.ClientKeys(p256dh: p256dh, auth: auth)
        server.webPush.add(subscription)
        agreeKey(for: p)
        if phone(p, { $0.tokens[sender.id] }) == nil { issueToken(for: sender, on: p, into: &out) }
        let token = phone(p) { $0.tokens[sender.id] } ?? ""
        // Its device may have logged in before it registered: it is connected already.
        if server.receivers.connection(ofPhone: p) != nil { setNetwork(.online, on: p, into: &out) }
        emit(
            .server, .receiverJoined,
            [
                .text("android_id", String(registration.androidID)), .text("sender", sender.id),
                .text("token", token), .text("endpoint", endpoint),
            ], on: p, into: &out)
        return .json(
            status: 200,
            .members([
                "name": .string("projects/\(request.project)/registrations/\(token)"), "token": .string(token),
                "web": .members([
                    "endpoint": .string(endpoint), "p256dh": .string(request.p256dh ?? ""),
                    "auth": .string(request.auth ?? ""),
                    "applicationPubKey": key.map(JSONValue.string) ?? .null,
                ]),
            ]))
    }

    /// The receiver joins the fleet: a web phone named `receiver-N`, away until it
    /// logs in over MCS, registered with the project's sender.
    mutating func joinReceiver(
        _ registration: Receivers.GCMRegistration, sender: SenderConfig, into out: inout [Event]
    ) -> Int {
        var number = server.receivers.byPhone.count + 1
        while deviceIndex["receiver-\(number)"] != nil { number += 1 }
        var settings = DeviceSettings(
            name: "receiver-\(number)", platform: .web, sdk: .fcm, app: Receivers.chromeApp, state: .background,
            network: .offline, seed: configuration.device.seed ^ registration.androidID)
        settings.permission = .granted
        let p = join(settings, senders: [sender], into: &out)
        server.receivers.join(
            Receivers.Receiver(phone: p, androidID: registration.androidID, gcmToken: registration.token))
        self[p].unreachableSince = now
        return p
    }

    /// A real client's phone joins again after a reset, as it was: its name, its
    /// tokens, its subscription; online if its device is logged in.
    mutating func rejoin(
        _ receiver: Receivers.Receiver, settings: DeviceSettings, senders: [SenderConfig], tokens: SenderMap<String>,
        _ subscription: PushSubscription?, into out: inout [Event]
    ) {
        guard deviceIndex[settings.name] == nil else { return }
        var settings = settings
        settings.network = .offline
        let p = join(settings, senders: senders, into: &out)
        var joined = Receivers.Receiver(phone: p, androidID: receiver.androidID, gcmToken: receiver.gcmToken)
        joined.agreed = receiver.agreed
        server.receivers.join(joined)
        if var subscription {
            subscription.phone = p
            server.webPush.add(subscription)
        }
        for (sender, token) in tokens.sorted(by: { $0.key < $1.key }) {
            self[p].tokens[sender] = token
            self[p].tokenIssuedAt[sender] = now
            tokenDevices[token] = p
        }
        self[p].unreachableSince = now
        if server.receivers.connection(ofPhone: p) != nil { setNetwork(.online, on: p, into: &out) }
    }

    /// A refusal of a registration call: the answer, in Google's words, and why.
    struct ReceiverRefusal: Error {
        var answer: ReceiverAnswer
        var reason: String
    }

    /// The sender of `project` (its project, or its sender ID: the project number),
    /// for a call made with `apiKey`; refused without a key or for a project the
    /// profile does not declare.
    func projectSender(_ project: String, apiKey: String?) -> Result<SenderConfig, ReceiverRefusal> {
        guard let sender = allSenders.first(where: { $0.isNamed(byProject: project) }) else {
            return .failure(
                ReceiverRefusal(
                    answer: Self.googleError(
                        403, "Permission denied on resource project \(project).", "PERMISSION_DENIED"),
                    reason: "no sender of the profile has project \(project) (its project or its sender ID)"))
        }
        guard let apiKey, !apiKey.isEmpty else {
            return .failure(
                ReceiverRefusal(
                    answer: Self.googleError(403, "The request is missing a valid API key.", "PERMISSION_DENIED"),
                    reason: "no x-goog-api-key header"))
        }
        return .success(sender)
    }

    static func googleError(_ code: Int, _ message: String, _ status: String) -> ReceiverAnswer {
        .json(
            status: code,
            .members([
                "error": .members(["code": .int(code), "message": .string(message), "status": .string(status)])
            ]))
    }

    /// A registration call refused: its answer, and an event saying why.
    mutating func refuseReceiver(
        _ request: ReceiverRequest, _ answer: ReceiverAnswer, reason: String, into out: inout [Event]
    ) -> ReceiverAnswer {
        emit(
            .server, .receiverRefused,
            [.text("endpoint", request.endpoint), .number("status", answer.status), .text("reason", reason)], on: nil,
            into: &out)
        return answer
    }
}
