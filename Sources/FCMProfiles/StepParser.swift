import FCMEngine
import FCMEventGuide
import FCMJSON
import FCMWebPush
import Foundation

/// What the timeline parser knows of one phone: the callback names `expect` steps
/// are checked against, and the SDK a `send` addresses.
struct PhoneContext: Hashable {
    var sdk: SDK
    var platform: Platform
    var callbacks: CallbackNames { CallbackNames(platform: platform, sdk: sdk) }

    init(sdk: SDK, platform: Platform) {
        self.sdk = sdk
        self.platform = platform
    }

    init(_ settings: DeviceSettings) {
        self.init(sdk: settings.sdk, platform: settings.platform)
    }
}

/// The phones steps start with, looked up one at a time: a fleet may have a
/// million, and a step reads one.
struct StartingPhones {
    let count: Int
    let at: (Int) -> DeviceSettings
    let index: (String) -> Int?
    /// Each kind of phone there is and how many phones are of it.
    let kinds: () -> [(phone: PhoneContext, count: Int)]

    /// The phones a configuration starts.
    init(_ configuration: EngineConfiguration) {
        count = configuration.startingDeviceCount
        at = { configuration.startingDevice(at: $0) ?? configuration.device }
        index = configuration.startingIndex(of:)
        kinds = { configuration.startingEntries.map { (PhoneContext($0.settings), $0.count) } }
    }

    /// The phones an engine has now.
    init(_ engine: DeviceEngine) {
        count = engine.devices.count
        at = { engine.devices[$0].settings }
        index = engine.deviceNumber(named:)
        kinds = { engine.devices.map { (PhoneContext($0.settings), 1) } }
    }
}

/// What the timeline parser knows while it reads steps in order.
struct StepContext {
    var senders: Set<String>
    let starting: StartingPhones
    /// Phones steps added (`add_device`) or installed anew on another platform or
    /// SDK, by name; the rest are as they started.
    private var changed: [String: PhoneContext] = [:]
    private var added: [String] = []
    /// The phone the step being read acts on.
    var current: String
    var lastAt: Millis = 0
    /// Whether the step being read names its phone (`device:`).
    var stepNamesPhone = false

    init(senders: Set<String>, starting: StartingPhones) {
        self.senders = senders
        self.starting = starting
        current = starting.count > 0 ? starting.at(0).name : ""
    }

    /// The first phone's name: steps without `device:` act on it.
    var firstName: String { starting.count > 0 ? starting.at(0).name : added.first ?? "" }

    var phoneCount: Int { starting.count + added.count }

    func phone(_ name: String) -> PhoneContext? {
        changed[name] ?? starting.index(name).map { PhoneContext(starting.at($0)) }
    }

    /// A phone joins (`add_device`).
    mutating func add(_ settings: DeviceSettings) {
        changed[settings.name] = PhoneContext(settings)
        added.append(settings.name)
    }

    /// Up to `limit` names, in order, for a message.
    func names(prefix limit: Int) -> [String] {
        let first = (0..<min(limit, starting.count)).map { starting.at($0).name }
        return first + added.prefix(limit - first.count)
    }

    /// Each kind of phone (platform and SDK) some phone is now, once, in the order
    /// first met: the starting ones by entry, then those steps made.
    func kindsOfPhone() -> [PhoneContext] {
        var counts: [PhoneContext: Int] = [:]
        var order: [PhoneContext] = []
        func meet(_ phone: PhoneContext, _ count: Int) {
            if counts[phone] == nil { order.append(phone) }
            counts[phone, default: 0] += count
        }
        for (phone, count) in starting.kinds() { meet(phone, count) }
        for name in changed.keys.sorted() {
            // A phone installed anew is no longer of the kind it started as.
            if let index = starting.index(name) { meet(PhoneContext(starting.at(index)), -1) }
            meet(changed[name]!, 1)
        }
        return order.filter { counts[$0, default: 0] > 0 }
    }

    var sdk: SDK {
        get { phone(current)?.sdk ?? .fcm }
        set { if var phone = phone(current) { phone.sdk = newValue; changed[current] = phone } }
    }
    var platform: Platform {
        get { phone(current)?.platform ?? .android }
        set { if var phone = phone(current) { phone.platform = newValue; changed[current] = phone } }
    }
    var callbacks: CallbackNames { CallbackNames(platform: platform, sdk: sdk) }
    var isFleet: Bool { phoneCount > 1 }
}

extension ProfileParser {
    /// Every step's key (`StepVocabulary`).
    static var actionKeys: [String] { StepVocabulary.keys }

    static func parseTimeline(_ node: YAMLNode, context: inout StepContext) throws(ProfileError) -> [Step] {
        var mistakes = ProfileMistakes()
        let steps = parseTimeline(node, context: &context, noting: &mistakes)
        try mistakes.throwIfAny()
        return steps
    }

    /// The steps that read, each mistaken one noted: a step's mistake does not hide the
    /// next step's.
    static func parseTimeline(_ node: YAMLNode, context: inout StepContext, noting mistakes: inout ProfileMistakes)
        -> [Step]
    {
        guard let items = mistakes.check({ () throws(ProfileError) in try node.sequence() }) else { return [] }
        var steps: [Step] = []
        for item in items {
            if let step = mistakes.check({ () throws(ProfileError) in try parseStep(item, context: &context) }) {
                steps.append(step)
            }
        }
        return steps
    }

    static func parseStep(_ node: YAMLNode, context: inout StepContext) throws(ProfileError) -> Step {
        let map = try node.mapping(allowed: ["at", "note", "device"] + actionKeys)
        let atNode = try map.required("at")
        let at = try atNode.duration()
        guard at >= context.lastAt else {
            throw atNode.error(
                "steps must be in time order; \(DurationText.stamp(at)) comes after \(DurationText.stamp(context.lastAt))"
            )
        }
        context.lastAt = at
        let actions = map.entries.filter { !["at", "note", "device"].contains($0.name) }
        guard actions.count == 1, let action = actions.first else {
            throw node.error(
                actions.isEmpty
                    ? "a step needs one action: \(actionKeys.joined(separator: ", "))"
                    : "a step takes one action; found \(actions.map(\.name).joined(separator: " and "))")
        }
        let phone = try map["device"].map { node throws(ProfileError) in try knownPhone(node, context: context) }
        let first = context.firstName
        context.current = phone ?? first
        context.stepNamesPhone = phone != nil
        defer {
            context.current = first
            context.stepNamesPhone = false
        }
        var parsed = try parseAction(action.name, action.value, context: &context)
        if let phone, let node = map["device"] {
            parsed = try aim(parsed, at: phone, node: node)
        } else if context.isFleet, let why = unnamedOnAFleet(parsed, context: context) {
            throw action.key.error(why)
        }
        return Step(at: at, action: parsed, location: node.location, note: try parseNote(map))
    }

    /// Why a step that names no phone cannot run on a fleet, if it cannot: a device
    /// command and a push to a phone's token need the phone named (nothing falls
    /// back to the first phone).
    static func unnamedOnAFleet(_ action: StepAction, context: StepContext) -> String? {
        let phones = DeviceEngine.phoneNames(context.names(prefix: 5), of: context.phoneCount)
        switch action {
        case .command(.on):
            return "this profile has \(context.phoneCount) devices: name the one this step acts on with "
                + "device: (\(phones))"
        case .push(let push) where push.devices.isEmpty:
            switch push.target {
            case .latest, .previous:
                return "this profile has \(context.phoneCount) devices: name the one whose token the push goes to "
                    + "with device: or devices: (\(phones))"
            case .literal, .topic, .condition, .group: return nil
            }
        default: return nil
        }
    }

    /// A phone the profile has, by name.
    static func knownPhone(_ node: YAMLNode, context: StepContext) throws(ProfileError) -> String {
        let name = try node.scalarText()
        guard context.phone(name) != nil else {
            throw node.error(
                "no device is named \"\(name)\"; the profile's devices are "
                    + context.names(prefix: 10).joined(separator: ", ")
                    + (context.phoneCount > 10 ? ", …" : ""))
        }
        return name
    }

    /// A step's action aimed at one phone (`device:`): a device command acts on it, a
    /// push goes to its token, an expectation looks at its events only.
    /// Unless `strict`, an action that names no phone's token (a service change, a
    /// topic push) is left as it is.
    static func aim(_ action: StepAction, at phone: String, node: YAMLNode, strict: Bool = true)
        throws(ProfileError) -> StepAction
    {
        switch action {
        case .command(.on(_, let command)):
            return .command(.on(device: phone, command))
        case .command:
            if !strict { return action }
            throw node.error("this step acts on the connection server, not on one device; leave out device:")
        case .push(var push):
            switch push.target {
            case .latest, .previous: break
            case .literal, .topic, .condition, .group:
                if !strict { return action }
                throw node.error(
                    "device: picks the device whose token a push goes to; a literal to, a topic or "
                        + "a condition takes none")
            }
            push.devices = [phone]
            return .push(push)
        case .expect(var expectation):
            expectation.fields.insert(ExpectedField(name: "device", value: .scalar(phone)), at: 0)
            return .expect(expectation)
        case .expectNone(var expectation):
            expectation.fields.insert(ExpectedField(name: "device", value: .scalar(phone)), at: 0)
            return .expectNone(expectation)
        }
    }

    /// One action, by its key.
    static func parseAction(_ name: String, _ value: YAMLNode, context: inout StepContext) throws(ProfileError)
        -> StepAction
    {
        guard let kind = StepVocabulary.kind(name) else {
            throw value.error("no step is called \(name); the steps are \(actionKeys.joined(separator: ", "))")
        }
        let parsed = try kind.read(value, &context)
        // What the engine would refuse a web app, the profile refuses where it is written.
        if case .command(.on(_, let command)) = parsed, let why = DeviceEngine.refusal(command, on: context.platform) {
            throw value.error("\(why); \(context.current) is \(context.platform.kindName)")
        }
        return parsed
    }

    /// A step's caption: one non-empty line of text, at most `noteLimit` characters.
    static func parseNote(_ map: YAMLMapping) throws(ProfileError) -> String? {
        guard let node = map["note"] else { return nil }
        let text = String(try node.string().drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        if text.isEmpty { throw node.error("note is empty; leave it out or say what the step shows") }
        if text.contains(where: \.isNewline) { throw node.error("note must be one line (it is shown as a caption)") }
        if text.count > noteLimit {
            throw node.error("note is \(text.count) characters; at most \(noteLimit) fit the caption")
        }
        return text
    }

    static let noteLimit = 300

    enum ServiceState: String, CaseIterable { case up, down }

    /// `ack: { sender: S, id: I }` acks without a connection (an app server the
    /// profile does not model); `ack: { connection: N, id: I }` acks on connection N
    /// (`dr2:…` ids ack receipts).
    static func parseAck(_ node: YAMLNode, context: StepContext) throws(ProfileError) -> Input {
        let fields = try node.mapping(allowed: ["sender", "id", "connection"])
        let id = try fields.required("id").scalarText()
        if let connectionNode = fields["connection"] {
            if let senderNode = fields["sender"] {
                throw senderNode.error("give either sender or connection, not both (a connection has its sender)")
            }
            return .appServer(.received(try parseConnection(connectionNode), .ack(messageID: id)))
        }
        let sender = try knownSender(try fields.required("sender"), context: context)
        return .ackUpstream(sender: sender, id: id)
    }

    static func parseConnection(_ node: YAMLNode) throws(ProfileError) -> ConnectionID {
        let range = ConnectionRules.scenarioConnections
        return ConnectionID(try node.int(in: Int64(range.lowerBound)...Int64(range.upperBound)))
    }

    /// `reinstall: true`, or `reinstall: { platform: ios, sdk: fcm }`: the app
    /// installed anew on another platform or SDK (later expectations are checked
    /// against its callback names).
    static func parseReinstall(_ node: YAMLNode, context: inout StepContext) throws(ProfileError) -> StepAction {
        guard case .mapping = node.node else { return try flagCommand(node, .on(.reinstall)) }
        let map = try node.mapping(allowed: ["platform", "sdk"])
        let platform = try map["platform"]?.oneOf(Platform.self) ?? context.platform
        let sdk = try map["sdk"]?.oneOf(SDK.self) ?? context.sdk
        context.platform = platform
        context.sdk = sdk
        return .command(.on(.reinstallAs(platform: platform, sdk: sdk)))
    }

    static let faultKeys = [
        "path", "token", "sender", "topic", "status", "retry_after", "error", "latency", "jitter", "reset", "goaway",
        "drain",
        "rate", "count", "duration",
    ]
    static let faultKinds = ["status", "error", "latency", "reset", "goaway", "drain", "rate"]

    /// `fault: { path: /fcm/send, status: 503, count: 1 }`: what fails, how, for how long.
    static func parseFault(_ node: YAMLNode, context: StepContext) throws(ProfileError) -> Fault {
        let map = try node.mapping(allowed: faultKeys)
        let kinds = faultKinds.filter { map[$0] != nil }
        guard kinds.count == 1 else {
            throw node.error(
                kinds.isEmpty
                    ? "a fault says what happens: status, error, latency, reset, goaway, drain or rate"
                    : "a fault does one thing; found \(kinds.joined(separator: " and "))")
        }
        let kind: Fault.Kind
        if let status = map["status"] {
            kind = .status(
                Int(try status.int(in: 100...599)),
                retryAfter: try map["retry_after"].map { node throws(ProfileError) in Int(try node.int(in: 0...3_600)) }
            )
        } else if let error = map["error"] {
            kind = .error(try error.scalarText())
        } else if let reset = map["reset"] {
            guard try reset.bool() else { throw reset.error("write reset: true, or leave it out") }
            kind = .reset
        } else if let goaway = map["goaway"] {
            guard try goaway.bool() else { throw goaway.error("write goaway: true, or leave it out") }
            kind = .goaway
        } else if let drain = map["drain"] {
            guard try drain.bool() else { throw drain.error("write drain: true, or leave it out") }
            kind = .drain
        } else if let rate = map["rate"] {
            kind = try parseRate(rate)
        } else {
            kind = .latency(try map.required("latency").duration(), jitter: try map["jitter"]?.duration() ?? 0)
        }
        let fault = Fault(
            path: try map["path"]?.scalarText(), token: try map["token"]?.scalarText(),
            sender: try map["sender"].map { node throws(ProfileError) in try knownSender(node, context: context) },
            topic: try map["topic"].map { node throws(ProfileError) in try topicName(node) }, kind: kind,
            count: try map["count"].map { node throws(ProfileError) in Int(try node.int(in: 1...1_000_000)) },
            duration: try map["duration"]?.duration())
        if let problem = fault.problem { throw node.error(problem) }
        return fault
    }

    /// `rate: 240/1m`: at most 240 messages in any window of a minute.
    static func parseRate(_ node: YAMLNode) throws(ProfileError) -> Fault.Kind {
        let text = try node.scalarText()
        let parts = text.filter { $0 != " " }.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let limit = Int(parts[0]), limit >= 1, let per = DurationText.parse(parts[1]), per > 0
        else {
            throw node.error("a rate is MESSAGES/DURATION, such as 240/1m or 5000/1h; found \"\(text)\"")
        }
        return .rate(limit: limit, per: per)
    }

    /// `subscribe: news` (the default sender) or `subscribe: { topic: news, sender: S }`.
    static func parseTopicStep(_ node: YAMLNode, context: StepContext) throws(ProfileError) -> (String, String?) {
        guard case .mapping = node.node else { return (try topicName(node), nil) }
        let map = try node.mapping(allowed: ["topic", "sender"])
        let topic = try topicName(try map.required("topic"))
        let sender = try map["sender"].map { node throws(ProfileError) in try knownSender(node, context: context) }
        return (topic, sender)
    }

    /// A topic name, with or without `/topics/`, checked as the service checks it.
    static func topicName(_ node: YAMLNode) throws(ProfileError) -> String {
        let name = TopicName.bare(try node.scalarText())
        if let problem = TopicName.problem(name) { throw node.error(problem) }
        return name
    }

    static func flagCommand(_ node: YAMLNode, _ command: Input) throws(ProfileError) -> StepAction {
        guard try node.bool() else { throw node.error("write true, or leave the step out") }
        return .command(command)
    }

    static func knownSender(_ node: YAMLNode, context: StepContext) throws(ProfileError) -> String {
        let id = try node.scalarText()
        guard context.senders.contains(id) else {
            throw node.error(
                "unknown sender \"\(id)\"; the profile's senders are \(context.senders.sorted().joined(separator: ", "))"
            )
        }
        return id
    }

    static func senderOrAll(_ node: YAMLNode, context: StepContext) throws(ProfileError) -> String? {
        if case .scalar(let scalar) = node.node, scalar.tagName == .bool {
            guard try node.bool() else { throw node.error("write true or a sender id") }
            return nil
        }
        return try knownSender(node, context: context)
    }

    /// `get_token: true`, a sender id, or `{ sender: ID, vapid_key: KEY }` (the key the
    /// web app passes getToken; without one, Firebase's default).
    static func parseGetToken(_ node: YAMLNode, context: StepContext) throws(ProfileError) -> StepAction {
        guard case .mapping = node.node else {
            return .command(.on(.getToken(sender: try senderOrAll(node, context: context))))
        }
        let map = try node.mapping(allowed: ["sender", "vapid_key"])
        let sender = try map["sender"].map { v throws(ProfileError) in try knownSender(v, context: context) }
        let key = try map["vapid_key"].map { v throws(ProfileError) in try v.string() }
        if let key, key.isEmpty, let v = map["vapid_key"] { throw v.error("a VAPID key is not empty") }
        return .command(.on(.getToken(sender: sender, vapidKey: key)))
    }

    /// `web_push: TEXT`, or `{ data, ttl, topic, urgency, encoding, vapid, body }`: the
    /// built-in app server's Web Push to the browser's subscription. `ttl: none` sends
    /// no TTL, `vapid: wrong` or `none` signs with another key or not at all, `body:
    /// broken` changes the body after it was encrypted (each refused or dropped, as
    /// production does).
    static func parseWebPush(_ node: YAMLNode) throws(ProfileError) -> WebPushStep {
        guard case .mapping = node.node else { return WebPushStep(data: try node.string()) }
        let map = try node.mapping(allowed: ["data", "ttl", "topic", "urgency", "encoding", "vapid", "body"])
        guard let data = map["data"] else { throw node.error("a web_push needs its data (the text the browser gets)") }
        var step = WebPushStep(data: try data.string())
        if let ttl = map["ttl"] {
            step.ttl = try ttl.scalarText() == "none" ? nil : ttl.seconds()
        }
        step.topic = try map["topic"].map { v throws(ProfileError) in try v.string() }
        step.urgency = try map["urgency"].map { v throws(ProfileError) in try v.string() }
        if let encoding = map["encoding"] {
            step.encoding = try encoding.oneOf(ContentEncoding.self)
        }
        if let vapid = map["vapid"] { step.vapid = try vapid.oneOf(WebPushStep.Signing.self) }
        if let body = map["body"] {
            guard try body.scalarText() == "broken" else { throw body.error("body: broken is the one choice") }
            step.brokenBody = true
        }
        return step
    }

    static func parseTap(_ node: YAMLNode) throws(ProfileError) -> TapTarget {
        let text = try node.scalarText()
        if text == "last" { return .last }
        if case .scalar(let scalar) = node.node, scalar.tagName == .int {
            let index = try node.int(in: 1...1_000)
            return .index(Int(index))
        }
        return .id(text)
    }

    static func parseSend(_ node: YAMLNode, context: StepContext) throws(ProfileError) -> UpstreamRequest {
        let map = try node.mapping(allowed: ["sender", "to", "id", "ttl", "data"])
        let to: String
        if let toNode = map["to"] {
            if map["sender"] != nil { throw toNode.error("give either sender or to, not both") }
            to = try toNode.scalarText()
        } else {
            let sender = try knownSender(try map.required("sender"), context: context)
            to = UpstreamRequest.address(sender: sender, sdk: context.sdk)
        }
        let id = try map.required("id").scalarText()
        let ttl = try map["ttl"]?.seconds()
        var data: [DataItem] = []
        if let dataNode = map["data"] {
            for entry in try dataNode.mapping(allowed: []).entries {
                data.append(DataItem(entry.name, dataValue(entry.value)))
            }
        }
        return UpstreamRequest(to: to, messageID: id, timeToLive: ttl, data: data)
    }

    /// Strings stay strings; anything else is kept only to be dropped visibly.
    static func dataValue(_ node: YAMLNode) -> DataValue {
        guard case .scalar(let scalar) = node.node else {
            if case .sequence = node.node { return .nonString(kind: "list") }
            return .nonString(kind: "mapping")
        }
        switch scalar.tagName {
        case .int, .float: return .nonString(kind: "number")
        case .bool: return .nonString(kind: "boolean")
        case .null where scalar.style == .plain: return .nonString(kind: "null")
        default: return .string(scalar.string)
        }
    }

    static let pushKeys = [
        "sender", "to", "token_of", "id", "data", "notification", "collapse_key", "priority", "time_to_live",
        "delivery_receipt_requested", "dry_run", "content_available", "mutable_content", "connection", "topic",
        "condition", "devices", "group", "restricted_package_name", "platforms",
    ]

    static func parsePush(_ node: YAMLNode, context: StepContext) throws(ProfileError) -> PushStep {
        let map = try node.mapping(allowed: pushKeys)
        let sender = try knownSender(try map.required("sender"), context: context)
        var request = DownstreamRequest(sender: sender, to: nil)
        var target = PushTarget.latest
        if let toNode = map["to"] {
            let text = try toNode.scalarText()
            target = text == "latest" ? .latest : text == "previous" ? .previous : .literal(text)
        }
        let targets = ["to", "topic", "condition", "group"].compactMap { map[$0] }
        if targets.count > 1 { throw targets[1].error("give one target: to, topic, condition or group") }
        if let groupNode = map["group"] { target = .group(try groupNode.scalarText()) }
        if let topicNode = map["topic"] { target = .topic(try topicName(topicNode)) }
        if let conditionNode = map["condition"] {
            let text = try conditionNode.scalarText()
            if case .failure(let error) = TopicCondition.parse(text) { throw conditionNode.error(error.description) }
            target = .condition(text)
        }
        var owner = sender
        if let ownerNode = map["token_of"] {
            switch target {
            case .literal, .topic, .condition, .group:
                throw ownerNode.error("token_of picks a token; a literal to, a topic or a condition takes none")
            case .latest, .previous: break
            }
            owner = try knownSender(ownerNode, context: context)
        }
        request.messageID = try map["id"]?.scalarText()
        if let v = map["data"] { request.data = try stringPairs(v) }
        if let v = map["notification"] { request.notification = try stringPairs(v) }
        request.collapseKey = try map["collapse_key"]?.scalarText()
        request.priority = try map["priority"]?.scalarText()
        request.timeToLive = try map["time_to_live"]?.seconds()
        request.deliveryReceiptRequested = try map["delivery_receipt_requested"]?.bool() ?? false
        request.dryRun = try map["dry_run"]?.bool() ?? false
        request.contentAvailable = try map["content_available"]?.bool() ?? false
        request.mutableContent = try map["mutable_content"]?.bool() ?? false
        if let package = try map["restricted_package_name"]?.scalarText() {
            request.details = MessageDetails(restrictedPackageName: package)
        }
        var connection: ConnectionID?
        if let connectionNode = map["connection"] {
            connection = try parseConnection(connectionNode)
            guard request.messageID != nil else {
                throw connectionNode.error("a push on a CCS connection needs an id (its message_id)")
            }
        }
        var push = PushStep(request: request, target: target, tokenOwner: owner, connection: connection)
        if let platformsNode = map["platforms"] {
            if connection != nil { throw platformsNode.error("platforms are an HTTP v1 message's; CCS has none") }
            push.overrides = try platformBlocks(platformsNode)
        }
        if let devicesNode = map["devices"] {
            switch target {
            case .latest, .previous: break
            case .literal, .topic, .condition, .group:
                throw devicesNode.error("devices picks tokens; a literal to, a topic or a condition takes none")
            }
            let names = try devicesNode.sequence().map { node throws(ProfileError) in
                try knownPhone(node, context: context)
            }
            if names.isEmpty { throw devicesNode.error("devices is empty; name at least one device") }
            push.devices = names
        }
        return push
    }

    /// `platforms: {"android": {…}, "apns": {…}, "webpush": {…}}`: an HTTP v1
    /// message's platform blocks, as a saved session writes them.
    static func platformBlocks(_ node: YAMLNode) throws(ProfileError) -> PlatformOverrides {
        let text = try node.jsonValue().json
        do {
            return try JSONDecoder().decode(PlatformOverrides.self, from: Data(text.utf8))
        } catch {
            throw node.error("platforms must be platform blocks as a saved session writes them: \(error)")
        }
    }

    /// A mapping of keys to single values, each kept as text (the service turns
    /// other values into strings).
    static func stringPairs(_ node: YAMLNode) throws(ProfileError) -> [KeyValue] {
        var pairs: [KeyValue] = []
        for entry in try node.mapping(allowed: []).entries {
            pairs.append(KeyValue(entry.name, try entry.value.scalarText()))
        }
        return pairs
    }

    static func parseExpectation(_ node: YAMLNode, context: StepContext) throws(ProfileError) -> Expectation {
        let map = try node.mapping(allowed: [])
        let eventNode = try map.required("event")
        let event = try eventNode.string()
        try checkEventName(event, at: eventNode, context: context)
        let kind = EventName(rawValue: event)
        var side: Side?
        var fields: [ExpectedField] = []
        for entry in map.entries where entry.name != "event" {
            if entry.name == "side" {
                side = try entry.value.oneOf(SideChoice.self) == .device ? .device : .server
                continue
            }
            if let kind, !kind.carries(entry.name) {
                throw entry.key.error(kind.noSuchField(entry.name))
            }
            let value: ExpectedValue
            switch entry.value.node {
            case .sequence:
                value = .list(try entry.value.sequence().map { item throws(ProfileError) in try item.scalarText() })
            case .mapping: value = .map(try stringPairs(entry.value))
            default: value = .scalar(try entry.value.scalarText())
            }
            fields.append(ExpectedField(name: entry.name, value: value))
        }
        return Expectation(event: event, side: side, fields: fields)
    }

    enum SideChoice: String, CaseIterable { case device, server }

    /// An expected event must be one the emulator reports, and a callback must be
    /// the one this device's platform and SDK use (an iOS app never sees
    /// `onMessageReceived`).
    static func checkEventName(_ name: String, at node: YAMLNode, context: StepContext) throws(ProfileError) {
        guard let kind = EventName(rawValue: name) else { throw node.error(EventName.noSuchEvent(name)) }
        // A step that names no phone of several may expect any phone's callbacks.
        // Each kind of phone is tried once: a fleet of a million alike is one kind.
        let candidates =
            context.isFleet && !context.stepNamesPhone
            ? context.kindsOfPhone() : context.phone(context.current).map { [$0] } ?? []
        var problem: ProfileError?
        for phone in candidates {
            do {
                try checkCallback(kind, name, at: node, phone: phone)
                return
            } catch {
                problem = problem ?? error
            }
        }
        if let problem { throw problem }
    }

    static func checkCallback(_ kind: EventName, _ name: String, at node: YAMLNode, phone: PhoneContext)
        throws(ProfileError)
    {
        let callbacks = phone.callbacks
        let own: [EventName?] = [
            callbacks.newToken, callbacks.messageSent, callbacks.sendError, callbacks.willSend,
            callbacks.messageReceived, callbacks.deletedMessages,
        ]
        for platform in Platform.allCases {
            for sdk in SDK.allCases {
                let other = CallbackNames(platform: platform, sdk: sdk)
                let theirs: [EventName?] = [
                    other.newToken, other.messageSent, other.sendError, other.willSend, other.messageReceived,
                    other.deletedMessages,
                ]
                guard let index = theirs.firstIndex(of: kind), !own.contains(kind), let mine = own[index] else {
                    continue
                }
                throw node.error(
                    "this device (\(phone.platform.rawValue), \(phone.sdk.rawValue)) reports \(mine.rawValue), "
                        + "not \(kind.rawValue) (that is \(platform.rawValue) \(sdk.rawValue)'s name)")
            }
        }
    }
}
