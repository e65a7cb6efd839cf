import FCMEngine
import FCMProfiles
import FCMTerminalUI

/// Models in known states, built by pressing keys at fixed times, for snapshots
/// and key tests.
enum Scenes {
    static func profile(_ yaml: String) -> Profile {
        do {
            return try ProfileParser.parse(yaml, file: "scene.yaml")
        } catch {
            fatalError("scene profile invalid: \(error)")
        }
    }

    static let android = profile(
        """
        version: 1
        device: { name: Pixel 8, platform: android, app: com.example.chat, seed: 3 }
        senders:
          - { id: "123456789012", key: k1, project: demo }
          - { id: "210987654321", key: k2 }
        """)

    static let ios = profile(
        """
        version: 1
        device: { name: iPhone 15, platform: ios, sdk: gcm, app: com.example.ios, state: background, seed: 4 }
        senders:
          - { id: "123456789012", key: k1 }
        """)

    static let web = profile(
        """
        version: 1
        device: { name: Chrome, platform: web, app: "https://app.example.com", state: background, seed: 6 }
        senders:
          - { id: "123456789012", key: k1 }
        """)

    static let threePhones = profile(
        """
        version: 1
        devices:
          - { name: pixel, platform: android, app: com.example.chat, seed: 3 }
          - { name: iphone, platform: ios, app: com.example.ios }
          - { name: tablet, platform: android, app: com.example.chat, network: offline }
        senders:
          - { id: "123456789012", key: k1, project: demo }
        """)

    static func fresh(_ profile: Profile = android) -> TUIModel { TUIModel(profile: profile) }

    /// Presses keys in order, each 100 ms after the last, starting at `from`.
    @discardableResult
    static func press(_ model: inout TUIModel, _ keys: [Key], from: Millis = 1_000) -> [Effect] {
        var effects: [Effect] = []
        for (index, key) in keys.enumerated() {
            // As the runner does: the session's effects performed, the rest kept.
            effects += model.press(key, at: from + Millis(index) * 100)
        }
        return effects
    }

    static func type(_ text: String) -> [Key] { text.map { Key.character($0) } }

    /// A busy device: sends, an outage with a full queue and TooManyMessages, a
    /// background push in the tray, a foreground push in the inbox.
    static func busy() -> TUIModel {
        var model = fresh()
        press(&model, [.character("s"), .enter])
        press(&model, [.character("n")], from: 3_000)
        for n in 0..<21 { press(&model, [.character("s"), .enter], from: 4_000 + Millis(n) * 300) }
        press(&model, [.character("n"), .character("b")], from: 12_000)
        press(
            &model,
            [.character("p")] + Array(repeating: .down, count: 10) + type("room") + [.down] + type("PT-DK") + [.enter],
            from: 13_000)
        press(&model, [.character("f"), .character("p"), .enter], from: 20_000)
        return model
    }
}
