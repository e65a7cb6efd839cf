import FCMEngine
import FCMHTTPPort
import FCMJSON
import FCMLegacyFields
import Foundation

/// Topic management as app servers call it: the Instance ID API (`iid/v1:batchAdd`,
/// `:batchRemove`, `iid/v1/{token}/rel/topics/{topic}`) and the v1 per-token
/// `topicSubscriptions` API. The device decides every result; these routes read
/// requests and shape answers.
extension HTTPSendService {
    // MARK: Instance ID

    func iidBatch(_ request: HTTPRequestParts, add: Bool, sender: SenderConfig) async -> HTTPReply {
        let fields: JSONObject
        switch LegacyFields.object(request.body) {
        case .success(let object): fields = object
        case .failure(let problem): return Self.iidError(400, problem.description)
        }
        guard case .string(let topic)? = fields["to"] else {
            return Self.iidError(400, "\"to\" must be the topic, such as \"/topics/news\"")
        }
        guard case .array(let items)? = fields["registration_tokens"] else {
            return Self.iidError(400, "\"registration_tokens\" must be an array of registration tokens")
        }
        var tokens: [String] = []
        for item in items {
            guard case .string(let token) = item else {
                return Self.iidError(400, "\"registration_tokens\" holds \(item.text), not a token string")
            }
            tokens.append(token)
        }
        let order = TopicOrder(sender: sender.id, topic: topic, tokens: tokens, change: add ? .add : .remove, api: .iid)
        switch await device.topics(order) {
        case .serviceDown: return Self.iidUnavailable
        case .refused(let why): return Self.iidError(400, why)
        case .results(let results):
            let items = results.map { error -> JSONValue in
                error.map { .members(["error": .string($0.rawValue)]) } ?? .members([:])
            }
            return .json(200, JSONValue.members(["results": .array(items)]).json)
        }
    }

    func iidRelation(_ request: HTTPRequestParts, token: String, topic: String, sender: SenderConfig) async
        -> HTTPReply
    {
        let order = TopicOrder(sender: sender.id, topic: topic, tokens: [token], change: .add, api: .iid)
        switch await device.topics(order) {
        case .serviceDown: return Self.iidUnavailable
        case .refused(let why): return Self.iidError(400, why)
        case .results(let results):
            guard let error = results.first ?? nil else { return .json(200, "{}") }
            return Self.iidError(Self.iidStatus(error), error.rawValue)
        }
    }

    static var iidUnavailable: HTTPReply {
        var reply = iidError(503, "the messaging service is down")
        reply.headers.append(KeyedHeader("Retry-After", String(retryAfterSeconds)))
        return reply
    }

    static func iidError(_ status: Int, _ text: String) -> HTTPReply {
        .json(status, JSONValue.members(["error": .string(text)]).json)
    }

    // MARK: v1 topicSubscriptions

    /// The v1 `topicSubscriptions` methods of Google's discovery document, on a
    /// registration named by its token or its installation's FID: `create` (POST),
    /// `list` (GET the collection), `get` (GET one), `patch` (PATCH one; with
    /// `allowMissing` it creates a missing one) and `delete` (DELETE one).
    func topicSubscription(
        _ request: HTTPRequestParts, project: String, token registration: String, topic: String?,
        sender: SenderConfig
    ) async -> HTTPReply {
        let resource = "projects/\(project)/registrations/\(registration)/topicSubscriptions"
        switch (request.method, topic) {
        case ("GET", nil): return await listSubscriptions(request, registration: registration, sender: sender, resource)
        case ("GET", let topic?):
            return await getSubscription(topic, registration: registration, sender: sender, resource)
        case ("PATCH", let topic?):
            if let refusal = Self.topicSubscriptionBodyProblem(request.body, name: "\(resource)/\(topic)") {
                return refusal.reply
            }
            let allowMissing = request.parameter("allow_missing", "allowMissing") == "true"
            let found = await getSubscription(topic, registration: registration, sender: sender, resource)
            guard found.status == 404, allowMissing else { return found }
            return await changeSubscription(.add, topic, registration: registration, sender: sender, resource)
        case ("DELETE", let topic?):
            let allowMissing = request.parameter("allow_missing", "allowMissing") == "true"
            return await changeSubscription(
                .remove, topic, registration: registration, sender: sender, resource, allowMissing: allowMissing)
        default:
            if let refusal = Self.topicSubscriptionBodyProblem(request.body) { return refusal.reply }
            guard let topic = request.parameter("topic_name", "topicName"), !topic.isEmpty else {
                return V1Error.invalidArgument("topic_name is required: ?topic_name=NAME", field: "topic_name").reply
            }
            return await changeSubscription(.add, topic, registration: registration, sender: sender, resource)
        }
    }

    func changeSubscription(
        _ change: TopicOrder.Change, _ topic: String, registration: String, sender: SenderConfig, _ resource: String,
        allowMissing: Bool = false
    ) async -> HTTPReply {
        let order = TopicOrder(
            sender: sender.id, topic: topic, tokens: [registration], change: change, api: .v1,
            allowMissing: allowMissing)
        switch await device.topics(order) {
        case .serviceDown: return V1Error(DownstreamError.unavailable).reply
        case .refused(let why): return V1Error.invalidArgument(why).reply
        case .results(let results):
            if let error = results.first ?? nil {
                return Self.v1TopicError(error, token: registration, topic: order.topic).reply
            }
            guard change == .add else { return .json(200, "{}") }
            return .json(200, Self.subscription(TopicName.bare(topic), resource, created: clock()).json)
        }
    }

    func getSubscription(_ topic: String, registration: String, sender: SenderConfig, _ resource: String) async
        -> HTTPReply
    {
        let name = TopicName.bare(topic)
        switch await device.subscriptions(registration, sender.id) {
        case .failure(let error): return Self.v1TopicError(error, token: registration, topic: name).reply
        case .success(let topics):
            guard topics.contains(name) else {
                return Self.v1TopicError(.notFound, token: registration, topic: name).reply
            }
            return .json(200, Self.subscription(name, resource).json)
        }
    }

    /// `list`: the registration's topics in name order, `pageSize` at a time (100 unless
    /// it says, at most 1,000); `nextPageToken` resumes after the page's last topic.
    func listSubscriptions(
        _ request: HTTPRequestParts, registration: String, sender: SenderConfig, _ resource: String
    ) async -> HTTPReply {
        var size = 100
        if let text = request.parameter("pageSize", "page_size") {
            guard let asked = Int32(text) else {
                return V1Error.invalidArgument(
                    "Invalid value at 'page_size' (TYPE_INT32), \"\(text)\"", field: "page_size"
                )
                .reply
            }
            if asked > 0 { size = min(Int(asked), 1_000) }
        }
        let after = request.parameter("pageToken", "page_token") ?? ""
        switch await device.subscriptions(registration, sender.id) {
        case .failure(let error): return Self.v1TopicError(error, token: registration, topic: "").reply
        case .success(let topics):
            let rest = after.isEmpty ? topics[...] : topics.drop { $0 <= after }
            let page = rest.prefix(size)
            var members: [(key: String, value: JSONValue)] = [
                (key: "topicSubscriptions", value: .array(page.map { Self.subscription($0, resource) }))
            ]
            if rest.count > size, let last = page.last { members.append((key: "nextPageToken", value: .string(last))) }
            return .json(200, JSONValue.object(JSONObject(members)).json)
        }
    }

    /// A `TopicSubscription` as Google's JSON writes it (lowerCamelCase); `createTime`
    /// only where the subscription was made by this call (the device keeps no time).
    static func subscription(_ topic: String, _ resource: String, created: Date? = nil) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            (key: "name", value: .string("\(resource)/\(topic)")), (key: "topicName", value: .string(topic)),
        ]
        if let created {
            members.append((key: "createTime", value: .string(ISO8601DateFormatter().string(from: created))))
        }
        return .object(JSONObject(members))
    }

    /// What is wrong with a `topicSubscriptions.create` body (a `TopicSubscription`,
    /// by Google's schema; empty is none), if anything.
    static func topicSubscriptionBodyProblem(_ body: [UInt8], name: String? = nil) -> V1Error? {
        guard body.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
        switch LegacyFields.object(body) {
        case .failure(let problem): return .invalidArgument("Invalid JSON payload received. \(problem)")
        case .success(let object):
            do {
                try V1SchemaCheck.validate(object, against: "TopicSubscription")
                if let name, case .string(let given)? = object["name"], given != name {
                    return .invalidArgument("the body names \(given), not \(name)", field: "name")
                }
                return nil
            } catch let error as V1Error {
                return error
            } catch {
                return .invalidArgument("\(error)")
            }
        }
    }

    /// The status of the IID API's one-token call for an error (the engine's table).
    static func iidStatus(_ error: TopicError) -> Int { ErrorTable.iidStatus(error) }

    static func v1TopicError(_ error: TopicError, token: String, topic: String) -> V1Error {
        let shown = TokenText.short(token)
        let message =
            switch error {
            case .notFound where topic.isEmpty: "\(shown) is no longer a valid registration token"
            case .notFound: "no subscription of \(shown) to \(topic), or the token is no longer valid"
            case .invalidArgument: "\(shown) is not a registration token or installation ID of this project"
            case .alreadyExists: "\(shown) is already subscribed to \(topic)"
            case .tooManyTopics:
                "the app instance is subscribed to \(ServiceLimits.maxTopicsPerInstance) topics already"
            case .internalError, .resourceExhausted: "a fault made on purpose (\(shown), \(topic))"
            }
        return V1Error(ErrorTable.v1(error), message: message)
    }
}
