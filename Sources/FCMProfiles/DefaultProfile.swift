/// The built-in default device: one sender, online, in the foreground, with the
/// echo app server. Used when no profile is given.
public enum DefaultProfile {
    public static let file = "<built-in default>"

    public static let yaml = """
        version: 1
        description: The built-in default device, sending and receiving once.
        device:
          name: Emulated Pixel
          platform: android
          sdk: fcm
          app: com.example.app
          state: foreground
          network: online
        senders:
          - id: "123456789012"
            key: demo-server-key
            project: demo-project
        upstream:
          batch: { window: 2s, max: 10 }
        app_server: echo
        timeline:
          - at: 1s
            send: { sender: "123456789012", id: m-1, data: { hello: world } }
          - at: 2s
            push: { sender: "123456789012", notification: { title: Hello, body: from the app server } }
          - at: 3s
            expect: { event: onMessageSent, ids: [m-1] }
          - at: 3s
            expect: { event: onMessageReceived }
        """

    public static func load() -> Profile {
        // The built-in text is part of the product and always valid.
        do {
            return try ProfileParser.parse(yaml, file: file)
        } catch {
            preconditionFailure("the built-in default profile is invalid: \(error)")
        }
    }
}
