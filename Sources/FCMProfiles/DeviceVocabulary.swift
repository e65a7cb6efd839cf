import FCMEngine

/// One `device:` key of a profile, declared once: how its value is read into a
/// phone's settings and how those settings write it back (nil: not written, a
/// setting left at its default or another platform's).
struct DeviceKey: Sendable {
    let key: String
    let read: @Sendable (YAMLNode, inout DeviceSettings) throws(ProfileError) -> Void
    let write: @Sendable (DeviceSettings) -> String?
}

/// Every `device:` key, in the order a profile lists them: the parser reads by
/// this table and the writer writes by it.
enum DeviceVocabulary {
    typealias W = ProfileWriter

    static let keys: [DeviceKey] = [
        DeviceKey(
            key: "name",
            read: { node, device throws(ProfileError) in
                device.name = try node.scalarText()
                if let problem = DeviceSpec.nameProblem(device.name, isTaken: { _ in false }) {
                    throw node.error(problem)
                }
            }, write: { W.quoted($0.name) }),
        DeviceKey(
            key: "platform",
            read: { node, device throws(ProfileError) in device.platform = try node.oneOf(Platform.self) },
            write: { $0.platform.rawValue }),
        DeviceKey(
            key: "sdk", read: { node, device throws(ProfileError) in device.sdk = try node.oneOf(SDK.self) },
            write: { $0.sdk.rawValue }),
        DeviceKey(
            key: "app",
            read: { node, device throws(ProfileError) in
                device.app = try node.string()
                if device.app.isEmpty { throw node.error("the app id must not be empty") }
            }, write: { W.quoted($0.app) }),
        DeviceKey(
            key: "state", read: { node, device throws(ProfileError) in device.state = try node.oneOf(AppState.self) },
            write: { $0.state.rawValue }),
        DeviceKey(
            key: "network",
            read: { node, device throws(ProfileError) in device.network = try node.oneOf(Network.self) },
            write: { $0.network.rawValue }),
        DeviceKey(
            key: "doze", read: { node, device throws(ProfileError) in device.doze = try node.bool() },
            write: { "\($0.doze)" }),
        DeviceKey(
            key: "seed",
            read: { node, device throws(ProfileError) in device.seed = UInt64(try node.int(in: 0...Int64.max)) },
            write: { "\($0.seed)" }),
        DeviceKey(
            key: "permission",
            read: { node, device throws(ProfileError) in
                // Read after platform: the choices listed are the platform's.
                device.permission = try node.oneOf(
                    NotificationPermission.self, listing: NotificationPermission.values(on: device.platform))
            }, write: { $0.permission?.rawValue }),
        DeviceKey(
            key: "api_level",
            read: { node, device throws(ProfileError) in
                let levels = DeviceSettings.apiLevels
                device.apiLevel = Int(try node.int(in: Int64(levels.lowerBound)...Int64(levels.upperBound)))
            }, write: { $0.apiLevel.map { "\($0)" } }),
        DeviceKey(
            key: "channels",
            read: { node, device throws(ProfileError) in
                device.channels = try node.sequence().map { item throws(ProfileError) in
                    let name = try item.scalarText()
                    if name.isEmpty { throw item.error("a channel id is not empty") }
                    return name
                }
            }, write: { $0.channels.map { "[" + $0.map(W.quoted).joined(separator: ", ") + "]" } }),
        DeviceKey(
            key: "default_channel",
            read: { node, device throws(ProfileError) in device.defaultChannel = try node.scalarText() },
            write: { $0.defaultChannel.map(W.quoted) }),
        DeviceKey(
            key: "push_handler",
            read: { node, device throws(ProfileError) in
                device.pushHandler = try node.oneOf(DeviceSettings.PushHandler.self)
            }, write: { $0.pushHandler?.rawValue }),
    ]

    /// Every key, in order.
    static let names = keys.map(\.key)

    /// The settings' keys and values, as YAML, for the ones written.
    static func written(_ settings: DeviceSettings) -> [(key: String, value: String)] {
        let fitted = settings.fitted
        return keys.compactMap { entry in entry.write(fitted).map { (entry.key, $0) } }
    }
}
