/// An app server's call to subscribe tokens to a topic or to unsubscribe them: the
/// Instance ID batch API (`iid/v1:batchAdd`, `:batchRemove`) or the v1 per-token
/// `topicSubscriptions` API, decoded by a shell.
public struct TopicOrder: Sendable, Equatable, Codable {
    public enum Change: String, Sendable, Codable, CaseIterable { case add, remove }
    public enum API: String, Sendable, Codable, CaseIterable { case iid, v1 }

    /// The sender the app server authenticated as.
    public var sender: String
    /// The topic as the request wrote it (with or without `/topics/`).
    public var topic: String
    public var tokens: [String]
    public var change: Change
    public var api: API
    /// v1 `DELETE …?allow_missing=true`: removing a subscription that does not exist succeeds.
    public var allowMissing: Bool

    public init(
        sender: String, topic: String, tokens: [String], change: Change, api: API, allowMissing: Bool = false
    ) {
        self.sender = sender
        self.topic = topic
        self.tokens = tokens
        self.change = change
        self.api = api
        self.allowMissing = allowMissing
    }
}

/// Why one token of a topic call failed, by the IID API's names.
public enum TopicError: String, Sendable, Equatable, Error, Codable {
    /// The token was deleted: the app was uninstalled or the token refreshed.
    case notFound = "NOT_FOUND"
    /// Not a token of this sender.
    case invalidArgument = "INVALID_ARGUMENT"
    /// The app instance already has the most topics it may.
    case tooManyTopics = "TOO_MANY_TOPICS"
    /// v1 create: the subscription exists already.
    case alreadyExists = "ALREADY_EXISTS"
    /// The service failed on this token (only from a fault made on purpose).
    case internalError = "INTERNAL"
    /// Too many subscription changes (only from a fault made on purpose).
    case resourceExhausted = "RESOURCE_EXHAUSTED"
}

/// What the connection server made of a topic call.
public enum TopicOutcome: Sendable, Equatable {
    /// The messaging service is down: nothing was changed.
    case serviceDown
    /// The whole call is refused (bad topic name, too many tokens): why.
    case refused(String)
    /// One entry per token, in order: nil for success.
    case results([TopicError?])
}
