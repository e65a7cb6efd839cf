import FCMEngine
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

    func topicSubscription(
        _ request: HTTPRequestParts, project: String, token: String, topic: String?, sender: SenderConfig
    ) async -> HTTPReply {
        let order: TopicOrder
        if let topic {
            let allowMissing = request.parameter("allow_missing", "allowMissing") == "true"
            order = TopicOrder(
                sender: sender.id, topic: topic, tokens: [token], change: .remove, api: .v1, allowMissing: allowMissing)
        } else {
            if let refusal = Self.topicSubscriptionBodyProblem(request.body) { return refusal.reply }
            guard let topic = request.parameter("topic_name", "topicName"), !topic.isEmpty else {
                return V1Error.invalidArgument("topic_name is required: ?topic_name=NAME").reply
            }
            order = TopicOrder(sender: sender.id, topic: topic, tokens: [token], change: .add, api: .v1)
        }
        switch await device.topics(order) {
        case .serviceDown: return V1Error(DownstreamError.unavailable).reply
        case .refused(let why): return V1Error.invalidArgument(why).reply
        case .results(let results):
            if let error = results.first ?? nil {
                return Self.v1TopicError(error, token: token, topic: order.topic).reply
            }
            guard order.change == .add else { return .json(200, "{}") }
            let name = TopicName.bare(order.topic)
            let resource = JSONValue.members([
                "name": .string("projects/\(project)/registrations/\(token)/topicSubscriptions/\(name)"),
                "topic_name": .string(name),
                "create_time": .string(ISO8601DateFormatter().string(from: clock())),
            ])
            return .json(200, resource.json)
        }
    }

    /// What is wrong with a `topicSubscriptions.create` body (a `TopicSubscription`,
    /// by Google's schema; empty is none), if anything.
    static func topicSubscriptionBodyProblem(_ body: [UInt8]) -> V1Error? {
        guard body.contains(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) else { return nil }
        switch LegacyFields.object(body) {
        case .failure(let problem): return .invalidArgument("Invalid JSON payload received. \(problem)")
        case .success(let object):
            do {
                try V1SchemaCheck.validate(object, against: "TopicSubscription")
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
            case .notFound: "no subscription of \(shown) to \(topic), or the token is no longer valid"
            case .invalidArgument: "\(shown) is not a registration token of this project"
            case .alreadyExists: "\(shown) is already subscribed to \(topic)"
            case .tooManyTopics:
                "the app instance is subscribed to \(ServiceLimits.maxTopicsPerInstance) topics already"
            case .internalError, .resourceExhausted: "a fault made on purpose (\(shown), \(topic))"
            }
        return V1Error(ErrorTable.v1(error), message: message)
    }
}
