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
        (0..<phoneCount).map(phone(at:))
    }

    /// How many phones this entry stands for.
    public var phoneCount: Int { max(count, 0) }

    /// The entry's phone at `offset` (from 0), made alone: a fleet of a million is
    /// never listed to find one.
    public func phone(at offset: Int) -> DeviceSettings {
        guard count != 1 else { return settings }
        var one = settings
        one.name = "\(settings.name)-\(offset + 1)"
        one.seed = settings.seed &+ UInt64(offset + 1)
        return one
    }

    /// Where the phone called `name` is among this entry's (from 0), or nil.
    public func offset(of name: String) -> Int? {
        guard count != 1 else { return name == settings.name ? 0 : nil }
        guard name.hasPrefix(settings.name + "-") else { return nil }
        let number = name.dropFirst(settings.name.count + 1)
        // "phone-07" is no phone's name: the numbers have no leading zeros.
        guard let n = Int(number), n >= 1, n <= count, String(n) == number else { return nil }
        return n - 1
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
        var all: [(settings: DeviceSettings, senders: [SenderConfig])] = []
        all.reserveCapacity(startingDeviceCount)
        forEachStartingDevice { all.append(($0, $1)) }
        return all
    }

    /// How many phones the configuration starts.
    public var startingDeviceCount: Int {
        devices.isEmpty ? 1 : devices.reduce(0) { $0 + $1.phoneCount }
    }

    /// The first phone the configuration starts.
    public var firstStartingDevice: DeviceSettings {
        startingDevice(at: 0) ?? device
    }

    /// Each kind of phone the configuration starts (its settings as the first of an
    /// entry has them) and how many phones are of it, by entry: a fleet of a million
    /// alike is one entry.
    public var startingEntries: [(settings: DeviceSettings, count: Int)] {
        devices.isEmpty ? [(device, 1)] : devices.map { ($0.phone(at: 0), $0.phoneCount) }
    }

    /// Each phone the configuration starts, in order, with the senders it registers
    /// with, made one at a time (no list of a million settings on the way).
    public func forEachStartingDevice(_ body: (DeviceSettings, [SenderConfig]) throws -> Void) rethrows {
        guard !devices.isEmpty else { return try body(device, senders) }
        for spec in devices {
            let chosen = startingSenders(of: spec)
            for offset in 0..<spec.phoneCount { try body(spec.phone(at: offset), chosen) }
        }
    }

    /// The phone the configuration starts at `index` (from 0), or nil.
    public func startingDevice(at index: Int) -> DeviceSettings? {
        guard !devices.isEmpty else { return index == 0 ? device : nil }
        var rest = index
        for spec in devices {
            if rest < spec.phoneCount { return rest >= 0 ? spec.phone(at: rest) : nil }
            rest -= spec.phoneCount
        }
        return nil
    }

    /// Where the phone called `name` is among those the configuration starts, or nil.
    public func startingIndex(of name: String) -> Int? {
        guard !devices.isEmpty else { return name == device.name ? 0 : nil }
        var before = 0
        for spec in devices {
            if let offset = spec.offset(of: name) { return before + offset }
            before += spec.phoneCount
        }
        return nil
    }

    func startingSenders(of spec: DeviceSpec) -> [SenderConfig] {
        spec.senders.map { ids in senders.filter { ids.contains($0.id) } } ?? senders
    }
}
