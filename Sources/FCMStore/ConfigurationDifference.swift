import FCMEngine

/// What makes a saved device another device than the profile describes. The seed
/// (random unless the profile names one), the echo app server (`--no-echo`) and
/// the per-device limits (`--no-device-limits`) may change between runs; anything else may not.
enum ConfigurationDifference {
    static func between(saved: EngineConfiguration, current: EngineConfiguration, seedNamed: Bool) -> String? {
        var comparable = current.withRunSwitches(of: saved)
        if seedNamed && current.device.seed != saved.device.seed {
            return "seed \(saved.device.seed) was saved, the profile names \(current.device.seed)"
        }
        comparable.device.seed = saved.device.seed
        // A fleet's phones each drew their seed from the same random base: without a
        // named seed, theirs may change too (the saved ones are kept).
        if !seedNamed, comparable.devices.count == saved.devices.count {
            for index in comparable.devices.indices {
                comparable.devices[index].settings.seed = saved.devices[index].settings.seed
            }
        }
        guard comparable != saved else { return nil }
        if comparable.device != saved.device { return "the device section differs" }
        if comparable.devices != saved.devices {
            let savedNames = saved.devices.map(\.settings.name).joined(separator: ", ")
            let names = comparable.devices.map(\.settings.name).joined(separator: ", ")
            return "the phones differ (devices: \(savedNames) were saved, the profile has \(names))"
        }
        if comparable.senders.map(\.id) != saved.senders.map(\.id) {
            return "senders \(saved.senders.map(\.id).joined(separator: ",")) were saved, the profile has "
                + comparable.senders.map(\.id).joined(separator: ",")
        }
        if comparable.senders != saved.senders { return "a sender's settings differ" }
        return "the profile's settings differ"
    }
}
