/// The names the platform's own messaging library gives its callbacks, so the
/// transcript reads like the app's code.
public struct CallbackNames: Sendable, Equatable, Codable {
    /// A new registration token.
    public var newToken: EventName
    /// Upstream messages accepted by the connection server (batched).
    public var messageSent: EventName
    /// An upstream message that could not be sent.
    public var sendError: EventName
    /// iOS GCM only: the library processed an upstream message and will send it.
    public var willSend: EventName?
    /// A downstream message handed to the app's code.
    public var messageReceived: EventName
    /// Stored messages were discarded by the server.
    public var deletedMessages: EventName
    /// A web app's message while no tab is visible (`onBackgroundMessage`); the other
    /// platforms use `messageReceived` in both states.
    public var backgroundMessage: EventName?

    public init(platform: Platform, sdk: SDK) {
        switch (platform, sdk) {
        case (.android, _):
            newToken = .onNewToken
            messageSent = .onMessageSent
            sendError = .onSendError
            willSend = nil
            messageReceived = .onMessageReceived
            deletedMessages = .onDeletedMessages
        case (.ios, .fcm):
            newToken = .didReceiveRegistrationToken
            messageSent = .sendDataMessageSuccess
            sendError = .sendDataMessageFailure
            willSend = nil
            messageReceived = .didReceiveRemoteNotification
            deletedMessages = .messagesDeleted
        case (.ios, .gcm):
            newToken = .didReceiveRegistrationToken
            messageSent = .didSendDataMessageWithID
            sendError = .willSendDataMessageWithID
            willSend = .willSendDataMessageWithID
            messageReceived = .didReceiveRemoteNotification
            deletedMessages = .messagesDeleted
        case (.web, _):
            // The JavaScript SDK has no upstream and no deleted-messages callback: those
            // names are never emitted for a web app (its sends are refused).
            newToken = .getToken
            messageSent = .onMessageSent
            sendError = .onSendError
            willSend = nil
            messageReceived = .onMessage
            deletedMessages = .onDeletedMessages
            backgroundMessage = .onBackgroundMessage
        }
    }
}
