import FCMCredentials
import FCMEngine
import FCMHTTPAPI
import FCMHTTPPort
import FCMJSON
import Foundation

/// A real engine behind the send service, as the server wires it, with a clock
/// the test moves.
final class TestDevice: @unchecked Sendable {
    static let sender = "123456789012"
    static let other = "210987654321"
    static let project = "demo-project"
    static let key = "demo-server-key"
    /// One key pair for the whole suite (RSA generation is slow).
    static let accountKey = try! ServiceAccountKey.generate()

    private let lock = NSLock()
    private var engine: DeviceEngine
    private(set) var events: [Event] = []
    /// What the service reported refusing before the device saw it.
    private(set) var refusals: [RejectedRequest] = []
    var clock = Date(timeIntervalSince1970: 1_800_000_000)
    var service: HTTPSendService!

    /// One phone of `platform` registered with both senders; or, with `devices`, a
    /// fleet whose phones register with the senders their specs name.
    init(platform: Platform = .android, devices: [DeviceSpec] = [], verifyCredentials: Bool = true) {
        var config = EngineConfiguration(
            device: DeviceSettings(platform: platform, sdk: .fcm, state: .foreground, network: .online, seed: 3),
            senders: [
                SenderConfig(id: Self.sender, key: Self.key, project: Self.project),
                SenderConfig(id: Self.other, key: "other-key"),
            ],
            batch: BatchPolicy(), appServer: .echo, store: StorePolicy())
        config.devices = devices
        engine = DeviceEngine(config)
        engine.handle(.start(at: 0), into: &events)
        engine.handle(
            .input(.setWallClock(unixMillis: Int64(clock.timeIntervalSince1970 * 1_000)), at: 0), into: &events)
        service = HTTPSendService(
            key: Self.accountKey, verifyCredentials: verifyCredentials,
            clock: { [unowned self] in lock.withLock { clock } },
            rejected: { [unowned self] refusal in lock.withLock { refusals.append(refusal) } },
            notice: { [unowned self] input in
                lock.withLock { _ = engine.handle(.input(input, at: engine.now), into: &events) }
            },
            device: DeviceGateway(
                sendNow: { [unowned self] orders in
                    Durable(
                        lock.withLock {
                            engine.handle(.input(.send(orders), at: engine.now), into: &events).sendOutcome!
                        },
                        point: 0)
                },
                faultsNow: { [unowned self] path in
                    Durable(
                        lock.withLock {
                            engine.handle(.input(.httpFaults(path: path), at: engine.now), into: &events).faultEffects
                        }, point: 0)
                },
                topics: { [unowned self] order in
                    lock.withLock { engine.handle(.input(.topics(order), at: engine.now), into: &events).topicOutcome! }
                },
                subscriptions: { [unowned self] registration, sender in
                    lock.withLock { engine.subscriptions(ofRegistration: registration, sender: sender) }
                },
                groups: { [unowned self] order in
                    lock.withLock { engine.handle(.input(.group(order), at: engine.now), into: &events).groupOutcome! }
                },
                groupKey: { [unowned self] sender, name in
                    lock.withLock { engine.groupKey(sender: sender, name: name) }
                },
                appServers: { [unowned self] in lock.withLock { engine.appServerSenders } }
            ))
    }

    func rejections() -> [RejectedRequest] { lock.withLock { refusals } }

    func token(_ sender: String = TestDevice.sender, phone: Int = 0) -> String {
        lock.withLock { engine.devices[phone].tokens[sender]! }
    }

    /// Reads the engine under the test's lock.
    func read<T>(_ body: (DeviceEngine) -> T) -> T { lock.withLock { body(engine) } }

    /// The newest token issued to the sender, valid or not.
    func lastIssuedToken(_ sender: String = TestDevice.sender) -> String {
        lock.withLock { engine.devices[0].issuedTokens[sender]!.last! }
    }

    func apply(_ command: PhoneCommand) { apply(.on(command)) }

    func apply(_ command: Input) {
        lock.withLock { _ = engine.handle(.input(command, at: 0), into: &events) }
    }

    func advanceClock(seconds: TimeInterval) {
        lock.withLock { clock += seconds }
    }

    func eventNames() -> [String] { lock.withLock { events.map(\.name) } }

    func events(named name: String) -> [Event] { lock.withLock { events.filter { $0.name == name } } }

    func post(_ path: String, headers: [String: String] = [:], body: String) async -> HTTPReply {
        await service.respond(HTTPRequestParts(method: "POST", path: path, headers: headers, body: Array(body.utf8)))
    }

    func legacy(_ json: String, key: String = TestDevice.key, path: String = "/fcm/send") async -> HTTPReply {
        await post(path, headers: ["Authorization": "key=\(key)", "Content-Type": "application/json"], body: json)
    }

    /// A bearer token from the token endpoint, through a signed assertion.
    func bearer(project: String = TestDevice.project) async throws -> String {
        let reply = await post(
            "/token", headers: ["Content-Type": "application/x-www-form-urlencoded"],
            body: try Assertion(project: project, issuedAt: clock).formBody())
        guard let token = try JSON.object(reply.body)["access_token"] as? String else {
            throw JSON.Failure("no access_token in \(reply.body)")
        }
        return token
    }

    func v1(_ json: String, bearer: String?, project: String = TestDevice.project) async -> HTTPReply {
        var headers = ["Content-Type": "application/json"]
        if let bearer { headers["authorization"] = "Bearer \(bearer)" }
        return await post("/v1/projects/\(project)/messages:send", headers: headers, body: json)
    }
}

/// A JWT-bearer assertion as google-auth builds one.
struct Assertion {
    var project: String
    var issuedAt: Date
    var lifetime: TimeInterval = 3_600
    var audience = "https://oauth2.googleapis.com/token"
    var scope = "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/firebase.messaging"
    var key = TestDevice.accountKey
    var keyID: String? = TestDevice.accountKey.keyID

    func jwt() throws -> String {
        var header: [String: Any] = ["typ": "JWT", "alg": "RS256"]
        if let keyID { header["kid"] = keyID }
        let claims: [String: Any] = [
            "iss": ServiceAccountKey.clientEmail(project: project), "aud": audience, "scope": scope,
            "iat": Int(issuedAt.timeIntervalSince1970), "exp": Int(issuedAt.timeIntervalSince1970 + lifetime),
        ]
        let signed =
            Base64URL.encode(try JSONSerialization.data(withJSONObject: header)) + "."
            + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims))
        return signed + "." + Base64URL.encode(try key.sign(Data(signed.utf8)))
    }

    func formBody() throws -> String {
        "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + (try jwt())
    }
}

enum JSON {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    static func object(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw Failure("not a JSON object: \(text)")
        }
        return object
    }

    /// `{"error":{…}}` of a v1 reply: status, and the FcmError code if any.
    static func v1Error(_ text: String) throws -> (status: String, code: String?, reason: String?) {
        let error = try object(text)["error"] as? [String: Any] ?? [:]
        let details = error["details"] as? [[String: Any]] ?? []
        return (
            error["status"] as? String ?? "", details.compactMap { $0["errorCode"] as? String }.first,
            details.compactMap { $0["reason"] as? String }.first
        )
    }
}
