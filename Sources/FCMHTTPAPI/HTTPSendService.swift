import FCMCredentials
import FCMEngine
import FCMHTTPPort
import FCMJSON
import Foundation

/// The HTTP send APIs of the emulated connection server: legacy `/fcm/send` (and
/// `/gcm/send`), v1 `messages:send`, and the OAuth2 token endpoint. Requests and
/// replies are plain values; the device is reached through `device`.
public final class HTTPSendService: Sendable {
    /// `Retry-After` (seconds) on 503 while the service is down; an integer, always.
    public static let retryAfterSeconds = ServiceLimits.unavailableRetryAfterSeconds
    /// Largest request body read.
    public static let maxBodyBytes = 1 << 20
    public static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    let key: ServiceAccountKey
    /// The one authentication step of every route on the port.
    public let authenticator: HTTPAuthenticator
    public var tokens: AccessTokens { authenticator.tokens }
    let device: DeviceGateway
    let clock: @Sendable () -> Date
    /// Told of every request refused before it reached the device.
    let rejected: @Sendable (RejectedRequest) -> Void
    /// Told of what the service let through that a person should know of (an
    /// assertion it could not verify, a send abandoned), as inputs for the device.
    let notice: @Sendable (Input) -> Void
    /// Refuse assertions signed by keys the emulator did not make.
    let verifyCredentials: Bool
    let multicastIDs = MulticastIDs()

    public init(
        key: ServiceAccountKey, tokens: AccessTokens = AccessTokens(),
        verifyCredentials: Bool = false, clock: @escaping @Sendable () -> Date = { Date() },
        rejected: @escaping @Sendable (RejectedRequest) -> Void = { _ in },
        notice: @escaping @Sendable (Input) -> Void = { _ in },
        controlToken: String? = nil, controlClosedBecause: String? = nil,
        device: DeviceGateway
    ) {
        self.verifyCredentials = verifyCredentials
        self.notice = notice
        self.key = key
        authenticator = HTTPAuthenticator(
            findSender: device.findSender, tokens: tokens, clock: clock, controlToken: controlToken,
            controlClosedBecause: controlClosedBecause)
        self.clock = clock
        self.rejected = rejected
        self.device = device
    }

    /// The senders app servers may act for, asked of the device at each request: a
    /// sender any phone registers with, added or removed while the device runs, is
    /// accepted or refused at once.
    var senders: AppServerSenders { device.appServers() }

    /// The reply to a request; a refusal that never reached the device is reported
    /// (the device's own refusals are its events already).
    public func respond(_ request: HTTPRequestParts) async -> HTTPReply {
        reported(request, await answer(request))
    }

    /// `reply`, once a refusal the device did not make is reported.
    func reported(_ request: HTTPRequestParts, _ reply: HTTPReply) -> HTTPReply {
        if reply.status >= 400, !reply.fromDevice { rejected(RejectedRequest(request, reply)) }
        return reply
    }

    /// Answers a send (legacy `/fcm/send`, v1 `messages:send`) without suspending:
    /// the one path every send takes, from the server's event loop and from `respond`
    /// alike. The caller has met the faults in scope first (`faultsNow`); the reply
    /// (a refusal already reported) is told once the device's journal is on disk up
    /// to its point.
    public func answerSend(_ request: HTTPRequestParts) -> Durable<HTTPReply> {
        let held = sendReply(request)
        return Durable(reported(request, held.value), point: held.point)
    }

    /// `answerSend` before its refusals are reported.
    func sendReply(_ request: HTTPRequestParts) -> Durable<HTTPReply> {
        guard request.method == "POST", let route = HTTPRoute(path: request.path), route.isSend else {
            return Durable(.text(404, "\(request.method) \(request.path) is not a send\n"), point: 0)
        }
        let start: SendStart
        switch authenticator.authenticate(request, for: route) {
        case .failure(let refusal): start = .reply(refusal.reply)
        case .success(let caller): start = sendStart(request, route: route, caller: caller)
        }
        switch start {
        case .reply(let reply): return Durable(reply, point: 0)
        case .send(let orders, let reply):
            let sent = device.sendNow(orders)
            return Durable(reply(sent.value), point: sent.point)
        }
    }

    /// What the faults in scope do to a request on `path`, in order, as the engine
    /// chose them (each use counted): empty, at point 0, when none is in scope.
    public func faultsNow(_ path: String) -> Durable<[FaultEffect]> {
        guard device.hasFaults() else { return Durable([], point: 0) }
        return device.faultsNow(path)
    }

    /// Whether a request is a send `answerSend` answers (from its method and path
    /// alone, as a server sees them before the body).
    public static func isSend(method: String, path: String) -> Bool {
        method == "POST" && HTTPRoute(path: path)?.isSend == true
    }

    /// A send (legacy or v1) by an authenticated caller, up to the device.
    func sendStart(_ request: HTTPRequestParts, route: HTTPRoute, caller: Caller) -> SendStart {
        guard case .sender(let sender) = caller else { return .reply(.text(500, "no sender\n")) }
        switch route {
        case .v1(let project): return v1Start(request, project: project, sender: sender)
        default: return legacyStart(request, sender: sender)
        }
    }

    /// A send as far as the device: answered at once, or orders for the device and
    /// the answer to what it made of them.
    enum SendStart {
        case reply(HTTPReply)
        case send([SendOrder], reply: @Sendable (SendOutcome) -> HTTPReply)
    }

    /// Reports a refusal made before the service saw the request (a body too large).
    public func reportRejected(_ request: HTTPRequestParts, _ reply: HTTPReply) {
        rejected(RejectedRequest(request, reply))
    }

    /// The reply to a request whose body is over `maxBodyBytes`, reported.
    public func refuseTooLarge(_ request: HTTPRequestParts) -> HTTPReply {
        let reply = HTTPReply.text(413, "the request body is larger than \(Self.maxBodyBytes) bytes\n")
        reportRejected(request, reply)
        return reply
    }

    /// The reply to a request that expects what the server does not do (an `Expect`
    /// other than `100-continue`), reported.
    public func refuseExpectation(_ request: HTTPRequestParts, _ expectation: String) -> HTTPReply {
        let reply = HTTPReply.text(
            417, "Expect: \(expectation) is not something this server does; it takes Expect: 100-continue only\n")
        reportRejected(request, reply)
        return reply
    }

    /// The device's time now (when a request started).
    public func now() -> Millis { device.now() }

    /// Reports a send the app server went away from before its answer, `waited`
    /// milliseconds after it started.
    public func reportAbandoned(_ request: HTTPRequestParts, waited: Millis) {
        notice(
            .requestAbandoned(
                AbandonedRequest(
                    method: request.method, path: request.path, origin: RejectedRequest.origin(of: request),
                    exchange: request.exchange, waited: waited)))
    }

    /// Reports a connection refused before any request (a tunnel, a TLS failure).
    public func reportRejected(_ refusal: RejectedRequest) {
        rejected(refusal)
    }

    func answer(_ request: HTTPRequestParts) async -> HTTPReply {
        let faults = FaultPlan(await device.faults(request.path), path: request.path)
        if faults.delay > 0 { try? await Task.sleep(for: .milliseconds(faults.delay)) }
        if let answer = faults.answer { return answer }
        if Self.isSend(method: request.method, path: request.path) {
            let held = sendReply(request)
            await device.durable(held.point)
            return held.value
        }
        guard let route = HTTPRoute(path: request.path) else {
            let text = "no such endpoint: \(request.method) \(request.path); this emulator serves \(HTTPRoute.listed)"
            return .json(404, JSONValue.members(["error": .string(text)]).json)
        }
        guard route.methods.contains(request.method) else {
            let allowed = route.methods.joined(separator: ", ")
            return .json(
                405, JSONValue.members(["error": .string("\(request.path) takes \(allowed)")]).json,
                headers: [KeyedHeader("Allow", allowed)])
        }
        let sender: SenderConfig?
        switch authenticator.authenticate(request, for: route) {
        case .failure(let refusal): return refusal.reply
        case .success(.sender(let found)): sender = found
        case .success: sender = nil
        }
        switch (route, sender) {
        case (.token, _): return grant(request)
        case (.iidBatch(let add), let sender?): return await iidBatch(request, add: add, sender: sender)
        case (.iidRelation(let token, let topic), let sender?):
            return await iidRelation(request, token: token, topic: topic, sender: sender)
        case (.topicSubscription(let project, let token, let topic), let sender?):
            return await topicSubscription(request, project: project, token: token, topic: topic, sender: sender)
        case (.groups, let sender?): return await groups(request, sender: sender)
        case (.webPush(let subscription), _): return await webPush(request, subscription: subscription)
        case (.checkin, _), (.register3, _), (.installations, _), (.registrations, _):
            return await receiver(request, route: route)
        case (.allowedLocations, _):
            // No boundary: the account may be used everywhere (google-auth's "no-op" answer).
            return .json(200, #"{"locations":[],"encodedLocations":"0x0"}"#)
        default:
            return .text(404, "\(request.path) is not served by the send APIs\n")
        }
    }

    // MARK: Legacy

    /// A legacy send up to the device: refused at once, or the orders to send and how
    /// to answer what the device made of them.
    func legacyStart(_ request: HTTPRequestParts, sender: SenderConfig) -> SendStart {
        let batch: LegacyBatch
        switch LegacySendReader.read(request, sender: sender.id) {
        case .success(let read): batch = read
        case .failure(let problem): return .reply(.text(400, problem.description + "\n"))
        }
        let origin = RejectedRequest.origin(of: request)
        let orders = batch.orders.map { order in
            var order = order
            order.origin = origin
            return order
        }
        return .send(orders) { [multicastIDs] outcome in
            switch outcome {
            case .serviceDown:
                var reply = HTTPReply.text(
                    503, "Unavailable: the messaging service is down\n",
                    headers: [KeyedHeader("Retry-After", String(Self.retryAfterSeconds))])
                // The device logged each refusal (with its Retry-After).
                reply.fromDevice = true
                return reply
            case .results(let results, let groups):
                let dryRun = batch.orders.first?.request.dryRun ?? false
                if batch.orders.count == 1, let delivery = groups.first ?? nil { return LegacyReply.group(delivery) }
                if batch.plainText, let result = results.first {
                    return LegacyReply.plainText(result, dryRun: dryRun)
                }
                if let order = batch.orders.first, order.request.isTopicSend, let result = results.first {
                    return LegacyReply.topic(result, dryRun: dryRun)
                }
                return LegacyReply.json(results, dryRun: dryRun, multicastID: multicastIDs.next())
            }
        }
    }

    // MARK: v1

    /// A v1 send up to the device, as `legacyStart` is for legacy.
    func v1Start(_ request: HTTPRequestParts, project: String, sender: SenderConfig) -> SendStart {
        let order: SendOrder
        switch V1MessageReader.read(request.body, sender: sender.id) {
        case .success(var read):
            read.origin = RejectedRequest.origin(of: request)
            order = read
        case .failure(let error): return .reply(error.reply)
        }
        return .send([order]) { outcome in
            switch outcome {
            case .serviceDown:
                var reply = V1Error(DownstreamError.unavailable).reply
                reply.fromDevice = true
                return reply
            case .results(let results, _):
                switch results.first {
                case .success(let id):
                    let shown = order.request.dryRun ? LegacyReply.dryRunMessageID : id
                    return .json(
                        200, JSONValue.members(["name": .string("projects/\(project)/messages/\(shown)")]).json)
                case .failure(let error):
                    var reply = V1Error(error).reply
                    reply.fromDevice = true
                    return reply
                case nil:
                    return V1Error(httpStatus: 500, status: "INTERNAL", message: "no result", fcmCode: "INTERNAL").reply
                }
            }
        }
    }

    // MARK: OAuth2 token endpoint

    func grant(_ request: HTTPRequestParts) -> HTTPReply {
        var form: [String: String] = [:]
        switch FormDecoding.fields(request.body) {
        case .success(let fields): for (name, value) in fields { form[name] = value }
        case .failure(let problem): return GrantError(code: "invalid_request", description: problem.description).reply
        }
        guard form["grant_type"] == Self.grantType else {
            return GrantError(
                code: "unsupported_grant_type",
                description: "grant_type must be \(Self.grantType) (a service-account JWT assertion)"
            ).reply
        }
        guard let assertion = form["assertion"], !assertion.isEmpty else {
            return GrantError(code: "invalid_request", description: "the assertion parameter is missing").reply
        }
        let now = clock()
        switch JWTAssertion.verify(assertion, key: key, now: now, strict: verifyCredentials) {
        case .failure(let error): return error.reply
        case .success(let verified):
            let senders = senders
            guard senders.sender(project: verified.project) != nil else {
                return GrantError.invalidGrant(
                    "the service account's project \(verified.project) is the project of no sender a phone registers "
                        + "with (\(senders.projectNames)); give a sender `project: \(verified.project)` in the profile"
                ).reply
            }
            if let unverified = verified.unverifiedKey {
                notice(
                    .credentialsUnverified(account: verified.account, key: unverified, project: verified.project))
            }
            let token = tokens.issue(project: verified.project, now: now)
            let body = JSONValue.members([
                "access_token": .string(token), "expires_in": .int(Int(AccessTokens.lifetime) - 1),
                "token_type": .string("Bearer"),
            ])
            return .json(200, body.json)
        }
    }
}
