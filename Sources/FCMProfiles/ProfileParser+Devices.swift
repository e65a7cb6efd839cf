import FCMEngine

/// Several phones: a profile's `devices:` list, its generator form, and the
/// `add_device` step.
extension ProfileParser {
    static let deviceSpecKeys = deviceKeys + ["senders", "count"]
    /// The most phones one profile may make.
    static let maxDevices: Int64 = 10_000_000

    /// `devices: [ {name: a, …}, {name: b, senders: [S]} ]`, or the generator form
    /// `devices: { count: N, like: { … } }` for a fleet of phones alike.
    static func parseDevices(_ node: YAMLNode, senders: Set<String>) throws(ProfileError) -> [DeviceSpec] {
        if case .mapping = node.node {
            let map = try node.mapping(allowed: ["count", "like"])
            let count = try map.required("count").int(in: 1...maxDevices)
            var spec =
                try map["like"].map { like throws(ProfileError) in
                    try parseDeviceSpec(like, senders: senders, counted: false)
                } ?? DeviceSpec(DeviceSettings(name: "device"))
            spec.count = Int(count)
            return [spec]
        }
        let items = try node.sequence()
        guard !items.isEmpty else { throw node.error("devices is empty; give at least one, or use device:") }
        var specs: [DeviceSpec] = []
        var names: Set<String> = []
        var total = 0
        for (index, item) in items.enumerated() {
            var spec = try parseDeviceSpec(item, senders: senders)
            let map = try item.mapping(allowed: deviceSpecKeys)
            if map["name"] == nil { spec.settings.name = "device-\(index + 1)" }
            // Phones without a seed of their own follow the first phone's, each apart.
            if map["seed"] == nil, index > 0 { spec.settings.seed = specs[0].settings.seed &+ UInt64(index) }
            for settings in spec.expanded {
                if let problem = DeviceSpec.nameProblem(settings.name, isTaken: names.contains) {
                    throw item.error(problem)
                }
                names.insert(settings.name)
            }
            total += spec.count
            if total > maxDevices { throw item.error("at most \(maxDevices) devices in one profile") }
            specs.append(spec)
        }
        return specs
    }

    /// Whether a `devices:` list names the first phone's seed (or the generator's).
    static func hasSeed(devices node: YAMLNode?) throws(ProfileError) -> Bool {
        guard let node else { return false }
        if case .mapping = node.node {
            guard let like = try node.mapping(allowed: ["count", "like"])["like"] else { return false }
            return try like.mapping(allowed: deviceSpecKeys)["seed"] != nil
        }
        guard let first = try node.sequence().first else { return false }
        return try first.mapping(allowed: deviceSpecKeys)["seed"] != nil
    }

    /// One phone (or with `count`, several alike): the `device:` keys, plus the
    /// senders it registers with.
    static func parseDeviceSpec(_ node: YAMLNode, senders: Set<String>, counted: Bool = true)
        throws(ProfileError) -> DeviceSpec
    {
        let map = try node.mapping(allowed: counted ? deviceSpecKeys : deviceSpecKeys.filter { $0 != "count" })
        var spec = DeviceSpec(try parseDevice(node, extraKeys: ["senders", "count"]))
        if map["name"] == nil { spec.settings.name = "device" }
        if spec.settings.name.isEmpty { throw node.error("a device's name must not be empty") }
        if let v = map["senders"] {
            let chosen = try v.sequence().map { item throws(ProfileError) in try item.scalarText() }
            if let unknown = chosen.first(where: { !senders.contains($0) }) {
                throw v.error(
                    "unknown sender \"\(unknown)\"; the profile's senders are \(senders.sorted().joined(separator: ", "))"
                )
            }
            spec.senders = chosen
        }
        if let v = map["count"] { spec.count = Int(try v.int(in: 1...maxDevices)) }
        return spec
    }

    /// `group: { sender: S, operation: create, name: family, devices: [a, b] }`: an
    /// app server's device-group call, its members named as phones (their current
    /// tokens) or as `tokens`.
    static func parseGroup(_ node: YAMLNode, context: StepContext) throws(ProfileError) -> Input {
        let map = try node.mapping(allowed: ["sender", "operation", "name", "key", "devices", "tokens"])
        let sender = try knownSender(try map.required("sender"), context: context)
        let operation = try map.required("operation").oneOf(GroupOrder.Operation.self)
        let name = try map["name"]?.scalarText()
        let key = try map["key"]?.scalarText()
        if operation == .create, name == nil { throw node.error("a group is created with a name") }
        if operation != .create, name == nil, key == nil { throw node.error("name the group: name or key") }
        let (phones, tokens) = try members(map, of: node, called: "members", context: context)
        return .group(
            GroupOrder(sender: sender, operation: operation, name: name, key: key, tokens: tokens), phones: phones)
    }

    /// `topics: { sender: S, topic: news, devices: [browser], change: add, api: v1 }`: an
    /// app server subscribes phones to a topic (or unsubscribes them: `change: remove`)
    /// with the IID or v1 API, as a web app's server must.
    static func parseTopics(_ node: YAMLNode, context: StepContext) throws(ProfileError) -> Input {
        let map = try node.mapping(allowed: ["sender", "topic", "devices", "tokens", "change", "api"])
        let sender = try knownSender(try map.required("sender"), context: context)
        let topicNode = try map.required("topic")
        let topic = TopicName.bare(try topicNode.scalarText())
        if let problem = TopicName.problem(topic) { throw topicNode.error(problem) }
        let (phones, tokens) = try members(map, of: node, called: "registrations", context: context)
        let change = try map["change"]?.oneOf(TopicOrder.Change.self) ?? .add
        let api = try map["api"]?.oneOf(TopicOrder.API.self) ?? .v1
        return .topics(
            TopicOrder(sender: sender, topic: topic, tokens: tokens, change: change, api: api), phones: phones)
    }

    /// The phones (`devices`) and tokens (`tokens`) an app server's call names: at
    /// least one of either.
    static func members(_ map: YAMLMapping, of node: YAMLNode, called what: String, context: StepContext)
        throws(ProfileError) -> (phones: [String], tokens: [String])
    {
        let phones =
            try map["devices"]?.sequence().map { item throws(ProfileError) in
                try knownPhone(item, context: context)
            } ?? []
        let tokens = try map["tokens"]?.sequence().map { item throws(ProfileError) in try item.scalarText() } ?? []
        if phones.isEmpty && tokens.isEmpty { throw node.error("name the \(what): devices or tokens") }
        return (phones, tokens)
    }
}
