import FCMEngine
import FCMJSON
import Foundation

/// Writes a device and what was done to it in a session, through every door, as a
/// profile that `replay` reproduces.
public enum ProfileWriter {
    /// With `resumedFrom` (the first phone of a device resumed from its state, as it
    /// stood when the session opened), each sender's first token is fixed to the one
    /// it had, so the saved steps reach the same tokens, and a device of one starts in
    /// the conditions it had (app state, network, doze, permission).
    /// With `played` (a profile played in the TUI until the user took over), the
    /// session starts with those steps, notes and expectations included.
    /// `inputs` are what the device took, through every door, in order: keys,
    /// control-API actions, app servers' messages and topic and group calls.
    /// `webPush` reads an app server's Web Push request as a `web_push` step (the
    /// engine, which holds the browsers' keys, decrypts it); without it such a
    /// request is left out, with a comment.
    public static func yaml(
        profile: Profile, played: [Step] = [], inputs: [JournalEntry], resumedFrom: Phone? = nil,
        webPush: (WebPushRequest) -> (phone: String, step: WebPushStep)? = { _ in nil }
    ) -> String {
        let config = profile.configuration
        let device = config.devices.isEmpty ? resumedFrom?.standing ?? config.device : config.device
        let startingTokens = resumedFrom?.tokens
        var description =
            resumedFrom == nil
            ? "Saved from an fcm-device session of \(device.name)"
            : "Saved from an fcm-device session of \(device.name), resumed from its state: it starts with the tokens "
                + (config.devices.isEmpty ? "and conditions " : "") + "it had then; messages it held from before are "
                + "not part of this profile"
        if !played.isEmpty {
            description =
                "\(profile.file) played to step \(played.count) of \(profile.steps.count), then continued by hand"
                + (profile.description.map { ". \($0)" } ?? "")
        }
        var lines = ["version: 1", "description: " + quoted(description)]
        if config.devices.isEmpty {
            lines.append("device:")
            lines += DeviceVocabulary.written(device).map { "  \($0.key): \($0.value)" }
        } else {
            lines.append("devices:")
            for spec in config.devices { lines.append("  - " + deviceSpecText(spec)) }
        }
        lines.append("senders:")
        for sender in config.senders {
            var line = "  - { id: \(quoted(sender.id)), key: \(quoted(sender.key))"
            if let project = sender.project { line += ", project: \(quoted(project))" }
            if let token = startingTokens?[sender.id] ?? sender.token { line += ", token: \(quoted(token))" }
            lines.append(line + " }")
        }
        lines.append("upstream:")
        lines.append("  batch: { window: \(config.batch.window)ms, max: \(config.batch.max) }")
        lines.append("app_server: \(config.appServer.rawValue)")
        lines.append(
            "server: { store_limit: \(config.store.nonCollapsibleLimit), collapse_keys: \(config.store.collapseKeyLimit), collapse_evict: \(config.store.eviction.rawValue), device_limits: \(config.store.deviceLimits)"
                + (config.store.fanOutBatch == StorePolicy.defaultFanOutBatch
                    ? "" : ", fan_out_batch: \(config.store.fanOutBatch)") + " }"
        )
        lines.append("timeline:")
        for played in played {
            guard let text = step(played.action) else { continue }
            lines.append("  - at: \(played.at)ms")
            lines.append("    " + text)
            if let note = played.note { lines.append("    note: " + quoted(note)) }
        }
        var wrote = !played.isEmpty
        var last = played.last?.at ?? 0
        for input in inputs {
            for text in steps(input, webPush: webPush) {
                // Doors on other threads may stamp a call a moment before the one
                // ahead of it in the device's order; a timeline runs forward.
                if let at = input.time { last = max(last, at) }
                if text.hasPrefix("#") {
                    lines.append("  " + text)
                    continue
                }
                lines.append("  - at: \(last)ms")
                lines.append("    " + text)
                wrote = true
            }
        }
        if !wrote, let index = lines.lastIndex(of: "timeline:") { lines[index] = "timeline: []" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The steps one input is saved as: a command as its step, an app server's
    /// message as a push to the token it named, a topic or group call as its step.
    /// What a profile cannot say is left out, with a comment (`# …`) where it matters.
    static func steps(
        _ input: JournalEntry, webPush: (WebPushRequest) -> (phone: String, step: WebPushStep)? = { _ in nil }
    ) -> [String] {
        switch input {
        case .input(.webPush(let request), _):
            guard let (phone, step) = webPush(request) else {
                return [
                    "# a Web Push to a subscription no emulated browser holds now (gone, or a real client's) is not saved"
                ]
            }
            return self.step(.on(device: phone, .webPush(step))).map { [$0] } ?? []
        case .input(.appServer(.received(let id, .downstream(var request, let messageID))), _)
        where !ConnectionRules.scenarioConnections.contains(id):
            // A real app server's connection is not the profile's: its message is saved
            // as the message it was.
            request.messageID = messageID
            return step(.push(request)).map { [$0] } ?? []
        case .input(.appServer(let connectionInput), _) where !connectionInput.isOnScenarioConnection:
            return []
        case .input(.receiver(.registration), _):
            return [
                "# a real client joined (firebase-messaging over MCS): a profile has no real client, so it is not saved"
            ]
        case .input(let command, _) where command.isPushWithoutTarget:
            return ["# a push that named no token (there was none to name) is not saved"]
        case .input(.send(let orders), _):
            return orders.map { order in
                guard !order.byInstallation else {
                    return "# a message to installation \(order.request.to ?? "") is not saved: a profile names tokens"
                }
                guard let overrides = order.overrides else { return step(.push(order.request)) ?? "" }
                // The message as a profile's push to the target it named, with its blocks.
                var request = order.request
                let target: PushTarget = request.condition.map { .condition($0) } ?? .literal(request.to ?? "")
                request.to = nil
                request.condition = nil
                var push = PushStep(request: request, target: target, tokenOwner: request.sender)
                push.overrides = overrides
                return step(.push(push)) ?? ""
            }
        case .input(let command, _): return step(command).map { [$0] } ?? []
        case .start, .advance, .resume, .stop, .fanOut: return []
        }
    }

    /// An HTTP v1 message's platform blocks as JSON (a flow mapping YAML reads).
    static func platformsJSON(_ overrides: PlatformOverrides) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(overrides)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// A profile's own step as it was written (a push keeps its target), by the
    /// step vocabulary (`StepVocabulary`).
    public static func step(_ action: StepAction) -> String? { StepVocabulary.text(action) }

    /// One command as a profile step, or nil for commands a profile cannot express.
    static func step(_ command: Input) -> String? { StepVocabulary.text(.command(command)) }

    /// A push step's value: a profile's push with its target, or the message a
    /// command or a scenario connection carries.
    /// A `web_push` step's value: the text alone when nothing else differs from the
    /// defaults, else a map of what does.
    static func webPushValue(_ step: WebPushStep) -> String {
        let defaults = WebPushStep(data: step.data)
        guard step != defaults else { return quoted(step.data) }
        var parts = ["data: \(quoted(step.data))"]
        if step.ttl != defaults.ttl { parts.append("ttl: " + (step.ttl.map(String.init) ?? "none")) }
        if let topic = step.topic { parts.append("topic: \(quoted(topic))") }
        if let urgency = step.urgency { parts.append("urgency: \(quoted(urgency))") }
        if step.encoding != defaults.encoding { parts.append("encoding: \(step.encoding.rawValue)") }
        if step.vapid != defaults.vapid { parts.append("vapid: \(step.vapid.rawValue)") }
        if step.brokenBody { parts.append("body: broken") }
        return "{ " + parts.joined(separator: ", ") + " }"
    }

    static func pushValue(_ action: StepAction) -> String? {
        switch action {
        case .push(let push):
            var parts = pushParts(push.request)
            switch push.target {
            case .latest: break
            case .previous: parts.insert("to: previous", at: 1)
            case .literal(let token): parts.insert("to: \(quoted(token))", at: 1)
            case .topic(let name): parts.insert("topic: \(quoted(name))", at: 1)
            case .condition(let text): parts.insert("condition: \(quoted(text))", at: 1)
            case .group(let name): parts.insert("group: \(quoted(name))", at: 1)
            }
            if push.tokenOwner != push.request.sender { parts.append("token_of: \(quoted(push.tokenOwner))") }
            if let connection = push.connection { parts.append("connection: \(connection)") }
            if !push.devices.isEmpty {
                parts.append("devices: [" + push.devices.map(quoted).joined(separator: ", ") + "]")
            }
            if let overrides = push.overrides, let json = platformsJSON(overrides) {
                parts.append("platforms: \(json)")
            }
            return "{ \(parts.joined(separator: ", ")) }"
        case .command(.push(let request)): return "{ \(pushParts(request).joined(separator: ", ")) }"
        case .command(.appServer(.received(let id, .downstream(var request, let messageID)))):
            request.messageID = messageID
            return "{ \(pushParts(request).joined(separator: ", ")), connection: \(id) }"
        default: return nil
        }
    }

    static func expectationText(_ expectation: Expectation) -> String {
        var parts = ["event: \(quoted(expectation.event))"]
        if let side = expectation.side { parts.append("side: \(side.rawValue)") }
        for field in expectation.fields {
            let value =
                switch field.value {
                case .scalar(let text): quoted(text)
                case .list(let items): "[" + items.map(quoted).joined(separator: ", ") + "]"
                case .map(let pairs): map(pairs)
                }
            parts.append("\(quoted(field.name)): \(value)")
        }
        return "{ " + parts.joined(separator: ", ") + " }"
    }

    /// The phones (`devices`) and tokens (`tokens`) an app server's call names.
    static func members(phones: [String], tokens: [String]) -> [String] {
        var parts: [String] = []
        if !phones.isEmpty { parts.append("devices: [" + phones.map(quoted).joined(separator: ", ") + "]") }
        if !tokens.isEmpty { parts.append("tokens: [" + tokens.map(quoted).joined(separator: ", ") + "]") }
        return parts
    }

    /// A phone as a flow mapping: the `device:` keys, its senders and count.
    static func deviceSpecText(_ spec: DeviceSpec) -> String {
        var parts = DeviceVocabulary.written(spec.settings).map { "\($0.key): \($0.value)" }
        if let senders = spec.senders { parts.append("senders: [" + senders.map(quoted).joined(separator: ", ") + "]") }
        if spec.count != 1 { parts.append("count: \(spec.count)") }
        return "{ " + parts.joined(separator: ", ") + " }"
    }

    static func faultText(_ fault: Fault) -> String {
        var parts: [String] = []
        for (name, value) in [
            ("path", fault.path), ("token", fault.token), ("sender", fault.sender), ("topic", fault.topic),
        ] {
            if let value { parts.append("\(name): \(quoted(value))") }
        }
        switch fault.kind {
        case .status(let status, let retryAfter):
            parts.append("status: \(status)")
            if let retryAfter { parts.append("retry_after: \(retryAfter)") }
        case .error(let name): parts.append("error: \(quoted(name))")
        case .latency(let delay, let jitter):
            parts.append("latency: \(delay)ms")
            if jitter > 0 { parts.append("jitter: \(jitter)ms") }
        case .reset: parts.append("reset: true")
        case .goaway: parts.append("goaway: true")
        case .drain: parts.append("drain: true")
        case .rate(let limit, let per): parts.append("rate: \(limit)/\(per)ms")
        }
        if let count = fault.count { parts.append("count: \(count)") }
        if let duration = fault.duration { parts.append("duration: \(duration)ms") }
        return "{ " + parts.joined(separator: ", ") + " }"
    }

    /// A topic step's value: the topic, or the topic and its sender.
    static func topicValue(_ topic: String, _ sender: String?) -> String {
        guard let sender else { return quoted(topic) }
        return "{ topic: \(quoted(topic)), sender: \(quoted(sender)) }"
    }

    /// A downstream request's keys as a push step writes them.
    static func pushParts(_ request: DownstreamRequest) -> [String] {
        var parts = ["sender: \(quoted(request.sender))"]
        if let to = request.to { parts.append("to: \(quoted(to))") }
        if let condition = request.condition { parts.append("condition: \(quoted(condition))") }
        if let id = request.messageID { parts.append("id: \(quoted(id))") }
        if !request.data.isEmpty { parts.append("data: \(map(request.data))") }
        if let notification = request.notification { parts.append("notification: \(map(notification))") }
        if let key = request.collapseKey { parts.append("collapse_key: \(quoted(key))") }
        if let priority = request.priority { parts.append("priority: \(quoted(priority))") }
        if let ttl = request.timeToLive { parts.append("time_to_live: \(ttl)") }
        if request.deliveryReceiptRequested { parts.append("delivery_receipt_requested: true") }
        if request.dryRun { parts.append("dry_run: true") }
        if request.contentAvailable { parts.append("content_available: true") }
        if request.mutableContent { parts.append("mutable_content: true") }
        if let package = request.details?.restrictedPackageName {
            parts.append("restricted_package_name: \(quoted(package))")
        }
        return parts
    }

    static func map(_ pairs: [KeyValue]) -> String {
        "{ " + pairs.map { "\(quoted($0.key)): \(quoted($0.value))" }.joined(separator: ", ") + " }"
    }

    /// A double-quoted YAML string (JSON's string escapes are valid YAML).
    static func quoted(_ text: String) -> String {
        var out = ""
        JSONText.appendString(text, to: &out)
        return out
    }
}

extension Input {
    /// A push that names neither a token nor a condition (a form sent with no token
    /// to send to): a profile's push without a target means "the newest token".
    var isPushWithoutTarget: Bool {
        switch self {
        case .push(let request): request.to == nil && request.condition == nil
        default: false
        }
    }
}
