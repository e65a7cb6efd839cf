/// Topic subscriptions: made by the app (the SDK's subscribeToTopic) or by an app
/// server for a token; at most `ServiceLimits.maxTopicsPerInstance` per app
/// instance. They belong to the installation: an uninstall drops them, a token
/// refresh keeps them.
extension DeviceEngine {
    /// The app subscribes or unsubscribes (the default sender unless one is named).
    /// While the device cannot reach the service the SDK keeps the change and makes
    /// it on reconnection.
    mutating func changeTopic(_ topic: String, subscribe: Bool, sender: String?, on p: Int, into out: inout [Event]) {
        let command = subscribe ? "subscribe" : "unsubscribe"
        guard self[p].installed else { return refuse(command, "the app is not installed", on: p, into: &out) }
        let name = TopicName.bare(topic)
        if let problem = TopicName.problem(name) { return refuse(command, problem, on: p, into: &out) }
        guard let sender = sender ?? self[p].senders.first?.id, self[p].senders.contains(where: { $0.id == sender })
        else {
            return refuse(command, "no sender \(sender ?? "") is registered", on: p, into: &out)
        }
        let change = TopicChange(sender: sender, topic: name, subscribe: subscribe)
        guard connected(p) else {
            self[p].pendingTopicChanges.append(change)
            emit(
                .device, .topicQueued,
                [.text("sender", sender), .text("topic", name), .text("change", command)], on: p, into: &out)
            return
        }
        make(change, on: p, into: &out)
    }

    /// Makes the changes the app asked for while the device was unreachable, in order.
    mutating func flushTopicChanges(on p: Int, into out: inout [Event]) {
        let waiting = self[p].pendingTopicChanges
        self[p].pendingTopicChanges.removeAll()
        for change in waiting where self[p].senders.contains(where: { $0.id == change.sender }) {
            make(change, on: p, into: &out)
        }
    }

    mutating func make(_ change: TopicChange, on p: Int, into out: inout [Event]) {
        let token = self[p].tokens[change.sender] ?? ""
        if change.subscribe {
            if let error = subscribe(change.sender, to: change.topic, on: p) {
                emit(
                    .device, .topicRefused,
                    [
                        .text("sender", change.sender), .text("topic", change.topic), .text("error", error.rawValue),
                        .text("detail", tooManyTopicsDetail),
                    ], on: p, into: &out)
                return
            }
            emit(
                .device, .topicSubscribed,
                [.text("sender", change.sender), .text("topic", change.topic), .text("token", token)], on: p, into: &out
            )
        } else {
            self[p].topics[change.sender]?.remove(change.topic)
            emit(
                .device, .topicUnsubscribed,
                [.text("sender", change.sender), .text("topic", change.topic), .text("token", token)], on: p, into: &out
            )
        }
    }

    var tooManyTopicsDetail: String {
        "an app instance can be subscribed to at most \(ServiceLimits.maxTopicsPerInstance) topics"
    }

    /// Adds a subscription unless the instance is full; already subscribed is fine.
    mutating func subscribe(_ sender: String, to topic: String, on p: Int) -> TopicError? {
        if self[p].topics[sender]?.contains(topic) == true { return nil }
        if self[p].topicCount >= ServiceLimits.maxTopicsPerInstance { return .tooManyTopics }
        self[p].topics[sender, default: []].insert(topic)
        return nil
    }

    /// An app server's topic call, one result per token in order.
    /// A topic call naming phones (a profile's `topics:` step): their tokens of the
    /// order's sender join it.
    mutating func changeTopics(_ order: TopicOrder, phones: [String], into out: inout [Event]) -> TopicOutcome? {
        var order = order
        guard let tokens = currentTokens(of: phones, sender: order.sender, for: "topics", into: &out) else {
            return nil
        }
        order.tokens += tokens
        return changeTopics(order, into: &out)
    }

    mutating func changeTopics(_ order: TopicOrder, into out: inout [Event]) -> TopicOutcome {
        guard server.serviceUp else { return .serviceDown }
        let name = TopicName.bare(order.topic)
        if let problem = TopicName.problem(name) { return refuseTopicCall(order, problem, into: &out) }
        if order.tokens.isEmpty { return refuseTopicCall(order, "the call names no registration tokens", into: &out) }
        if order.tokens.count > ServiceLimits.maxTopicBatch {
            return refuseTopicCall(
                order,
                "the call names \(order.tokens.count) tokens; at most \(ServiceLimits.maxTopicBatch) per call",
                into: &out)
        }
        var results: [TopicError?] = []
        results.reserveCapacity(order.tokens.count)
        for named in order.tokens {
            let token = order.api == .v1 ? self.token(ofRegistration: named, sender: order.sender) ?? named : named
            results.append(manageTopic(of: token, order, name, into: &out))
        }
        return .results(results)
    }

    /// A registration as the v1 `topicSubscriptions` API names it: a token, or an
    /// installation's FID (the part of the sender's token before `:`). Nil when it
    /// names neither a token the sender was issued nor a current one by FID.
    public func token(ofRegistration registration: String, sender: String) -> String? {
        if everOwner(of: registration) != nil { return registration }
        return devices.lazy.compactMap { $0.tokens[sender] }.first { $0.hasPrefix(registration + ":") }
    }

    /// The topics a registration (token or FID) of `sender` is subscribed to, sorted,
    /// as `topicSubscriptions.get` and `list` read them: an old or deleted token is
    /// `notFound`, another sender's or no token at all `invalidArgument`, as a change
    /// would be.
    public func subscriptions(ofRegistration registration: String, sender: String) -> Result<[String], TopicError> {
        let token = self.token(ofRegistration: registration, sender: sender) ?? registration
        guard let owner = activeOwner(of: token), let index = device(holding: token) else {
            return .failure(everOwner(of: token) == sender ? .notFound : .invalidArgument)
        }
        guard owner == sender else { return .failure(.invalidArgument) }
        return .success(phone(index) { $0.topics(of: sender) })
    }

    /// One token of an app server's topic call, with its event.
    mutating func manageTopic(of token: String, _ order: TopicOrder, _ name: String, into out: inout [Event])
        -> TopicError?
    {
        // The events name the phone the token was issued on.
        let holder = candidate(holding: token)
        let result =
            server.injectedTopicError(
                token: token, order: order, topic: name, naming: eventName(ofPhone: holder), stamp, into: &out)
            ?? changeSubscription(of: token, onPhoneAt: holder, order: order, topic: name)
        var fields: [Field] = [
            .text("sender", order.sender), .text("topic", name), .text("token", token),
            .text("by", order.api.rawValue),
        ]
        if let result {
            fields.append(.text("error", result.rawValue))
            fields.append(.text("change", order.change.rawValue))
            emit(.server, .topicRefused, fields, on: holder, into: &out)
        } else {
            emit(.server, order.change == .add ? .topicSubscribed : .topicUnsubscribed, fields, on: holder, into: &out)
        }
        return result
    }

    mutating func refuseTopicCall(_ order: TopicOrder, _ detail: String, into out: inout [Event]) -> TopicOutcome {
        emit(
            .server, .topicRefused,
            [
                .text("sender", order.sender), .text("topic", order.topic), .text("by", order.api.rawValue),
                .text("error", TopicError.invalidArgument.rawValue), .text("detail", detail),
            ], on: nil, into: &out)
        return .refused(detail)
    }

    /// One token of a topic call: it must be this sender's current token on the phone
    /// that may hold it (`holder`, found once by the caller).
    mutating func changeSubscription(of token: String, onPhoneAt holder: Int?, order: TopicOrder, topic: String)
        -> TopicError?
    {
        guard let p = holder else { return .invalidArgument }
        guard let owner = activeOwner(of: token, onPhoneAt: p) else {
            return everOwner(of: token, onPhoneAt: p) == order.sender ? .notFound : .invalidArgument
        }
        guard owner == order.sender else { return .invalidArgument }
        // An expired token is gone for topic calls as it is for sends.
        if tokenExpired(token, phoneAt: p) { return .notFound }
        switch order.change {
        case .add:
            if order.api == .v1, self[p].topics[owner]?.contains(topic) == true { return .alreadyExists }
            return subscribe(owner, to: topic, on: p)
        case .remove:
            let removed = self[p].topics[owner]?.remove(topic)
            if removed == nil, order.api == .v1, !order.allowMissing { return .notFound }
            return nil
        }
    }
}

/// A subscription change the app asked for, kept until the device can make it.
public struct TopicChange: Sendable, Equatable, Codable {
    public var sender: String
    public var topic: String
    public var subscribe: Bool
}
