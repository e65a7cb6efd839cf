/// What a store needs to save a fleet a phone at a time: the connection server's
/// part without the phones, a phone by itself, and a fleet put back together from
/// phones made again from the configuration and phones read back one by one.
extension DeviceEngine {
    /// Set to `true` in an encoder's or decoder's `userInfo`: the engine is coded
    /// without its phones (`withoutPhones`), which are saved beside it.
    public static let phonesApart = CodingUserInfoKey(rawValue: "fcm-device.phonesApart")!

    /// The engine without its phones and the maps over them: what a store saves
    /// beside the phones. Holding it keeps no reference to the fleet, so the engine
    /// it came from changes its phones in place.
    public var withoutPhones: DeviceEngine {
        var image = self
        image.devices = []
        image.deviceIndex = [:]
        image.tokenDevices = PhoneMap()
        image.server.topicIndex = TopicIndex()
        image.phoneDeadlines = DeadlineHeap()
        image.inputs = InputRecord()
        return image
    }
}

/// A saved fleet made again a phone at a time: the fleet as its start configuration
/// makes it (with the journal's inputs up to the saved rows handled on it), each saved
/// phone laid over its place as it is read. An engine saved without its phones takes
/// it whole (`DeviceEngine(server:fleet:)`); nothing else is done to an engine from
/// outside but through `handle`.
public struct SavedFleet: Sendable {
    var engine: DeviceEngine

    /// The fleet `saved` (an engine saved without its phones) started as.
    public init(rebuilding saved: DeviceEngine) {
        engine = DeviceEngine(saved.startConfiguration)
    }

    /// An input of the journal that made the fleet as saved (its events are not made).
    public mutating func handle(_ input: JournalEntry) { engine.handleSilently(input) }

    /// How many phones the fleet holds.
    public var count: Int { engine.devices.count }

    /// The phone at `index`, if the fleet has one there.
    public func phone(at index: Int) -> Phone? {
        index < engine.devices.count ? engine.devices[index] : nil
    }

    /// Lays a saved phone over the phone at `index`, or adds it when `index` is the
    /// next one, and brings the name, token and deadline maps up to date for it
    /// alone (its topics too). False when `index` leaves a gap. The senders registered
    /// are counted again when an engine takes the fleet.
    public mutating func lay(_ phone: Phone, at index: Int) -> Bool {
        engine.restorePhone(phone, at: index)
    }
}

extension DeviceEngine {
    /// The engine saved without its phones (`withoutPhones`) with the fleet made again
    /// from its rows, and the maps over its phones: a million phones are not indexed
    /// twice.
    public init(server: consuming DeviceEngine, fleet: consuming SavedFleet) {
        self = server
        let rebuilt = fleet.engine
        devices = rebuilt.devices
        deviceIndex = rebuilt.deviceIndex
        tokenDevices = rebuilt.tokenDevices
        self.server.topicIndex = rebuilt.server.topicIndex
        phoneDeadlines = rebuilt.phoneDeadlines
        // In the order a reading of every phone first meets them, as `indexDevices` has it.
        countRegisteredSenders()
    }

    /// Lays a saved phone over the phone at `index` (`SavedFleet.lay`).
    mutating func restorePhone(_ phone: Phone, at index: Int) -> Bool {
        if index < devices.count {
            let old = devices[index]
            devices[index] = phone
            server.topicIndex.update(phone: index, from: old.topics, to: phone.topics)
            // Taken out whatever the new name (names compare as bytes); put back below.
            if deviceIndex[old.name] == index { deviceIndex[old.name] = nil }
            old.forEachToken { token in
                if tokenDevices[token] == index, phone.owner(of: token) == nil { tokenDevices[token] = nil }
            }
        } else if index == devices.count {
            devices.append(phone)
            server.topicIndex.update(phone: index, from: [:], to: phone.topics)
        } else {
            return false
        }
        deviceIndex[phone.name] = index
        phone.forEachToken { tokenDevices[$0] = index }
        noteDeadline(of: index)
        return true
    }
}
