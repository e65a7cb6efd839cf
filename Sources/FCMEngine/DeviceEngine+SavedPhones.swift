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
        image.tokenDevices = [:]
        image.topicIndex = TopicIndex()
        image.phoneDeadlines = DeadlineHeap()
        image.inputs = InputRecord()
        return image
    }

    /// The engine a saved fleet's phones are made again on: the fleet as its start
    /// configuration makes it, recording nothing.
    public static func rebuilding(from saved: DeviceEngine) -> DeviceEngine {
        DeviceEngine(saved.startConfiguration)
    }

    /// Lays a saved phone over the phone at `index`, or adds it when `index` is the
    /// next one, and brings the name, token and deadline maps up to date for it
    /// alone (its topics too). False when `index` leaves a gap. The senders registered are counted
    /// again in `adoptFleet`.
    public mutating func restorePhone(_ phone: Installation, at index: Int) -> Bool {
        if index < devices.count {
            let old = devices[index]
            devices[index] = phone
            topicIndex.update(phone: index, from: old.topics, to: phone.topics)
            if deviceIndex[old.name] == index, old.name != phone.name { deviceIndex[old.name] = nil }
            old.forEachToken { token in
                if tokenDevices[token] == index, phone.owner(of: token) == nil { tokenDevices[token] = nil }
            }
        } else if index == devices.count {
            devices.append(phone)
            topicIndex.update(phone: index, from: [:], to: phone.topics)
        } else {
            return false
        }
        deviceIndex[phone.name] = index
        phone.forEachToken { tokenDevices[$0] = index }
        noteDeadline(of: index)
        return true
    }

    /// Takes the fleet of `rebuilt` (made again, with saved phones laid over it) into
    /// this engine, saved without it, with the maps over its phones: a million phones
    /// are not indexed twice.
    public mutating func adoptFleet(of rebuilt: consuming DeviceEngine) {
        devices = rebuilt.devices
        deviceIndex = rebuilt.deviceIndex
        tokenDevices = rebuilt.tokenDevices
        topicIndex = rebuilt.topicIndex
        phoneDeadlines = rebuilt.phoneDeadlines
        // In the order a reading of every phone first meets them, as `indexDevices` has it.
        countRegisteredSenders()
    }
}
