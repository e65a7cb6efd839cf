/// One entry of a profile's `devices:` list: a phone, or with `count` a fleet of
/// phones alike (named `NAME-1` … `NAME-N`, seeds `SEED+1` … `SEED+N`).
public struct DeviceSpec: Sendable, Equatable, Codable {
    public var settings: DeviceSettings
    /// The sender IDs the phone registers with; nil for every sender of the profile.
    public var senders: [String]?
    public var count: Int

    public init(_ settings: DeviceSettings, senders: [String]? = nil, count: Int = 1) {
        self.settings = settings
        self.senders = senders
        self.count = count
    }

    /// The phones this entry stands for, in order.
    public var expanded: [DeviceSettings] {
        guard count != 1 else { return [settings] }
        return (0..<max(count, 0)).map { n in
            var one = settings
            one.name = "\(settings.name)-\(n + 1)"
            one.seed = settings.seed &+ UInt64(n + 1)
            return one
        }
    }
}

extension DeviceSpec {
    /// What is wrong with a new phone's name, or nil: a phone needs a name, and one
    /// of its own (`isTaken` says whether another phone has it).
    /// A name fits the TUI's header beside the platform and app.
    public static let maxNameLength = 40

    public static func nameProblem(_ name: String, isTaken: (String) -> Bool) -> String? {
        if name.isEmpty { return "a device needs a name" }
        if name.count > maxNameLength {
            return "a device name is at most \(maxNameLength) characters; \"\(name.prefix(20))…\" has \(name.count)"
        }
        if isTaken(name) { return "a device is already named \(name)" }
        return nil
    }
}

extension EngineConfiguration {
    /// Every phone the configuration starts, each with the senders it registers with.
    public var startingDevices: [(settings: DeviceSettings, senders: [SenderConfig])] {
        guard !devices.isEmpty else { return [(device, senders)] }
        return devices.flatMap { spec in
            let chosen = spec.senders.map { ids in senders.filter { ids.contains($0.id) } } ?? senders
            return spec.expanded.map { (settings: $0, senders: chosen) }
        }
    }
}
