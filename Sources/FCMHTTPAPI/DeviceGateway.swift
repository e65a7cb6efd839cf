import FCMEngine

/// How the send APIs reach the device: a call that runs the orders on its engine
/// (the server runs them at once, under the engine's lock).
public typealias DeviceGateway = @Sendable ([SendOrder]) async -> SendOutcome

/// How the topic-management APIs reach the device: a call that runs one order on
/// its engine.
public typealias TopicGateway = @Sendable (TopicOrder) async -> TopicOutcome
