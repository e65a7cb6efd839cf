import FCMEngine

/// One kind of timeline step, declared once: its key, how its value is read, and how
/// an action of its kind is written back. The profile parser, the control API's
/// actions, `w` and play mode's captions all go by this table.
struct StepKind: Sendable {
    let key: String
    /// The action a step's value makes (reading may learn of senders, phones or a
    /// new platform, which later steps are checked against).
    let read: @Sendable (YAMLNode, inout StepContext) throws(ProfileError) -> StepAction
    /// The value of a step of this kind that does `action`, or nil when `action` is
    /// another kind's (or none a profile can say).
    let write: @Sendable (StepAction) -> String?
}

/// Every kind of step, in the order messages list them.
enum StepVocabulary {
    typealias P = ProfileParser
    typealias W = ProfileWriter

    static let kinds: [StepKind] = [
        StepKind(
            key: "send",
            read: { node, context throws(ProfileError) in
                .command(.on(.send(try P.parseSend(node, context: context))))
            },
            write: { action in
                guard case .command(.on(_, .send(let request))) = action else { return nil }
                var text = "{ to: \(W.quoted(request.to)), id: \(W.quoted(request.messageID))"
                if let ttl = request.timeToLive { text += ", ttl: \(ttl)" }
                let data = request.data.compactMap { item -> String? in
                    if case .string(let value) = item.value { return "\(W.quoted(item.key)): \(W.quoted(value))" }
                    return nil
                }
                if !data.isEmpty { text += ", data: { \(data.joined(separator: ", ")) }" }
                return text + " }"
            }),
        StepKind(
            key: "push",
            read: { node, context throws(ProfileError) in
                .push(try P.parsePush(node, context: context))
            }, write: W.pushValue),
        StepKind(
            key: "network",
            read: { node, _ throws(ProfileError) in
                .command(.on(.setNetwork(try node.oneOf(Network.self))))
            },
            write: { action in
                guard case .command(.on(_, .setNetwork(let value))) = action else { return nil }
                return value.rawValue
            }),
        StepKind(
            key: "state",
            read: { node, _ throws(ProfileError) in
                .command(.on(.setAppState(try node.oneOf(AppState.self))))
            },
            write: { action in
                guard case .command(.on(_, .setAppState(let value))) = action else { return nil }
                return value.rawValue
            }),
        StepKind(
            key: "doze",
            read: { node, _ throws(ProfileError) in
                .command(.on(.setDoze(try node.bool())))
            },
            write: { action in
                guard case .command(.on(_, .setDoze(let value))) = action else { return nil }
                return "\(value)"
            }),
        StepKind(
            key: "service",
            read: { node, _ throws(ProfileError) in
                .command(.setService(up: try node.oneOf(P.ServiceState.self) == .up))
            },
            write: { action in
                guard case .command(.setService(let up)) = action else { return nil }
                return up ? "up" : "down"
            }),
        StepKind(
            key: "refresh_token",
            read: { node, context throws(ProfileError) in
                .command(.on(.refreshToken(sender: try P.senderOrAll(node, context: context))))
            },
            write: { action in
                guard case .command(.on(_, .refreshToken(let sender))) = action else { return nil }
                return sender.map(W.quoted) ?? "true"
            }),
        flag("uninstall", .on(.uninstall)),
        StepKind(
            key: "reinstall",
            read: { node, context throws(ProfileError) in
                try P.parseReinstall(node, context: &context)
            },
            write: { action in
                switch action {
                case .command(.on(_, .reinstall)): "true"
                case .command(.on(_, .reinstallAs(let platform, let sdk))):
                    "{ platform: \(platform.rawValue), sdk: \(sdk.rawValue) }"
                default: nil
                }
            }),
        StepKind(
            key: "tap",
            read: { node, _ throws(ProfileError) in
                .command(.on(.tap(try P.parseTap(node))))
            },
            write: { action in
                guard case .command(.on(_, .tap(let target))) = action else { return nil }
                switch target {
                case .last: return "last"
                case .index(let n): return "\(n)"
                case .id(let id): return W.quoted(id)
                }
            }),
        StepKind(
            key: "expect",
            read: { node, context throws(ProfileError) in
                .expect(try P.parseExpectation(node, context: context))
            },
            write: { action in
                guard case .expect(let expectation) = action else { return nil }
                return W.expectationText(expectation)
            }),
        StepKind(
            key: "expect_none",
            read: { node, context throws(ProfileError) in
                .expectNone(try P.parseExpectation(node, context: context))
            },
            write: { action in
                guard case .expectNone(let expectation) = action else { return nil }
                return W.expectationText(expectation)
            }),
        flag("drain", .drain),
        StepKind(
            key: "add_sender",
            read: { node, context throws(ProfileError) in
                let sender = try P.parseSender(node)
                context.senders.insert(sender.id)
                return .command(.on(.addSender(sender)))
            },
            write: { action in
                guard case .command(.on(_, .addSender(let sender))) = action else { return nil }
                var text = "{ id: \(W.quoted(sender.id)), key: \(W.quoted(sender.key))"
                if let project = sender.project { text += ", project: \(W.quoted(project))" }
                return text + " }"
            }),
        StepKind(
            key: "remove_sender",
            read: { node, context throws(ProfileError) in
                .command(.on(.removeSender(try P.knownSender(node, context: context))))
            },
            write: { action in
                guard case .command(.on(_, .removeSender(let id))) = action else { return nil }
                return W.quoted(id)
            }),
        StepKind(
            key: "ack",
            read: { node, context throws(ProfileError) in
                .command(try P.parseAck(node, context: context))
            },
            write: { action in
                switch action {
                case .command(.ackUpstream(let sender, let id)): "{ sender: \(W.quoted(sender)), id: \(W.quoted(id)) }"
                case .command(.appServer(.received(let connection, .ack(let id)))):
                    "{ connection: \(connection), id: \(W.quoted(id)) }"
                default: nil
                }
            }),
        StepKind(
            key: "connect",
            read: { node, context throws(ProfileError) in
                let fields = try node.mapping(allowed: ["connection", "sender"])
                let connection = try P.parseConnection(try fields.required("connection"))
                let sender = try P.knownSender(try fields.required("sender"), context: context)
                return .command(.appServer(.connected(connection, sender: sender)))
            },
            write: { action in
                guard case .command(.appServer(.connected(let id, let sender))) = action else { return nil }
                return "{ connection: \(id), sender: \(W.quoted(sender)) }"
            }),
        StepKind(
            key: "disconnect",
            read: { node, _ throws(ProfileError) in
                .command(.appServer(.closed(try P.parseConnection(node))))
            },
            write: { action in
                guard case .command(.appServer(.closed(let id))) = action else { return nil }
                return "\(id)"
            }),
        StepKind(
            key: "subscribe",
            read: { node, context throws(ProfileError) in
                let (topic, sender) = try P.parseTopicStep(node, context: context)
                return .command(.on(.subscribe(topic: topic, sender: sender)))
            },
            write: { action in
                guard case .command(.on(_, .subscribe(let topic, let sender))) = action else { return nil }
                return W.topicValue(topic, sender)
            }),
        StepKind(
            key: "unsubscribe",
            read: { node, context throws(ProfileError) in
                let (topic, sender) = try P.parseTopicStep(node, context: context)
                return .command(.on(.unsubscribe(topic: topic, sender: sender)))
            },
            write: { action in
                guard case .command(.on(_, .unsubscribe(let topic, let sender))) = action else { return nil }
                return W.topicValue(topic, sender)
            }),
        StepKind(
            key: "fault",
            read: { node, context throws(ProfileError) in
                .command(.addFault(try P.parseFault(node, context: context)))
            },
            write: { action in
                guard case .command(.addFault(let fault)) = action else { return nil }
                return W.faultText(fault)
            }),
        flag("clear_faults", .clearFaults),
        StepKind(
            key: "add_device",
            read: { node, context throws(ProfileError) in
                let spec = try P.parseDeviceSpec(node, senders: context.senders)
                for settings in spec.expanded {
                    if let problem = DeviceSpec.nameProblem(settings.name, isTaken: { context.phone($0) != nil }) {
                        throw node.error(problem)
                    }
                    context.add(settings)
                }
                return .command(.addDevice(spec))
            },
            write: { action in
                guard case .command(.addDevice(let spec)) = action else { return nil }
                return W.deviceSpecText(spec)
            }),
        StepKind(
            key: "group",
            read: { node, context throws(ProfileError) in
                .command(try P.parseGroup(node, context: context))
            },
            write: { action in
                guard case .command(.group(let order, let phones)) = action else { return nil }
                var parts = ["sender: \(W.quoted(order.sender))", "operation: \(order.operation.rawValue)"]
                if let name = order.name { parts.append("name: \(W.quoted(name))") }
                if let key = order.key { parts.append("key: \(W.quoted(key))") }
                parts += W.members(phones: phones, tokens: order.tokens)
                return "{ " + parts.joined(separator: ", ") + " }"
            }),
        StepKind(
            key: "topics",
            read: { node, context throws(ProfileError) in
                .command(try P.parseTopics(node, context: context))
            },
            write: { action in
                guard case .command(.topics(let order, let phones)) = action else { return nil }
                var parts = ["sender: \(W.quoted(order.sender))", "topic: \(W.quoted(order.topic))"]
                parts += W.members(phones: phones, tokens: order.tokens)
                parts += ["change: \(order.change.rawValue)", "api: \(order.api.rawValue)"]
                return "{ " + parts.joined(separator: ", ") + " }"
            }),
        StepKind(
            key: "get_token",
            read: { node, context throws(ProfileError) in
                try P.parseGetToken(node, context: context)
            },
            write: { action in
                guard case .command(.on(_, .getToken(let sender, let vapidKey))) = action else { return nil }
                guard let vapidKey else { return sender.map(W.quoted) ?? "true" }
                return "{ " + (sender.map { "sender: \(W.quoted($0)), " } ?? "") + "vapid_key: \(W.quoted(vapidKey)) }"
            }),
        StepKind(
            key: "delete_token",
            read: { node, context throws(ProfileError) in
                .command(.on(.deleteToken(sender: try P.senderOrAll(node, context: context))))
            },
            write: { action in
                guard case .command(.on(_, .deleteToken(let sender))) = action else { return nil }
                return sender.map(W.quoted) ?? "true"
            }),
        StepKind(
            key: "web_push",
            read: { node, _ throws(ProfileError) in .command(.on(.webPush(try P.parseWebPush(node)))) },
            write: { action in
                guard case .command(.on(_, .webPush(let step))) = action else { return nil }
                return W.webPushValue(step)
            }),
        StepKind(
            key: "permission",
            read: { node, context throws(ProfileError) in
                let listing = NotificationPermission.values(on: context.platform)
                return .command(.on(.setPermission(try node.oneOf(NotificationPermission.self, listing: listing))))
            },
            write: { action in
                guard case .command(.on(_, .setPermission(let permission))) = action else { return nil }
                return permission.rawValue
            }),
    ]

    /// `KEY: true`: a command that takes no value.
    static func flag(_ key: String, _ command: Input) -> StepKind {
        StepKind(
            key: key,
            read: { node, _ throws(ProfileError) in
                guard try node.bool() else { throw node.error("write true, or leave the step out") }
                return .command(command)
            },
            write: { action in
                guard case .command(let written) = action, written == command else { return nil }
                return "true"
            })
    }

    /// Every key, in order.
    static let keys = kinds.map(\.key)

    /// The kind a key names.
    static func kind(_ key: String) -> StepKind? { kinds.first { $0.key == key } }

    /// An action as the text of its step: `KEY: VALUE`, or nil for an action no step
    /// says (a phone's name, `device:`, goes on a line of its own before it).
    static func text(_ action: StepAction) -> String? {
        if case .command(.on(let name?, let inner)) = action {
            // The step's second key; the timeline indents each key by four spaces.
            return text(.command(.on(inner))).map { "device: \(W.quoted(name))\n    " + $0 }
        }
        for kind in kinds {
            if let value = kind.write(action) { return "\(kind.key): \(value)" }
        }
        return nil
    }
}
