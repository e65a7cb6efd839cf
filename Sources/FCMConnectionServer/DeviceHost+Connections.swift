import FCMControlAPI
import FCMEngine
import FCMHTTPAPI
import FCMXMPP
import NIOCore

/// App-server connections coming and going, what they send, and what the engine
/// asks to be written to them. Translation only: the rules are the engine's.
extension DeviceHost {
    /// Hands the engine something that happened on a connection.
    func input(_ input: AppServerInput) {
        loop.preconditionInEventLoop()
        submit { _, time in [.input(.appServer(input), at: time)] }
    }

    func opened(_ connection: CCSConnection) {
        connections[connection.number] = connection
        input(.opened(connection.number))
    }

    func closed(_ connection: CCSConnection) {
        guard connections.removeValue(forKey: connection.number) != nil else { return }
        input(.closed(connection.number))
    }

    /// Writes what the engine asked for, then flushes each connection written to once.
    func perform(_ effects: [LinkEffect]) {
        guard !effects.isEmpty else { return }
        var touched: [CCSConnection] = []
        for effect in effects {
            switch effect {
            case .write(let id, let stanza):
                guard let connection = connections[id] else { continue }
                connection.write(CCSOutbound.render(stanza, domain: connection.domain), flush: false)
                if touched.last !== connection { touched.append(connection) }
            case .refuseLogin(let id, let detail):
                connections[id]?.refuseLogin(detail)
            case .streamError(let id, let condition, let text):
                connections[id]?.endStream(condition: condition, text: text)
            case .endStream(let id):
                connections[id]?.endStream()
            case .mcs(let id, let stanza):
                receivers[id]?.write(stanza)
            }
        }
        for connection in touched { connection.flush() }
    }

    /// Downstream messages from the HTTP APIs, through the front door on the calling
    /// thread (no hop to the loop and back per request).
    public func send(_ orders: [SendOrder]) -> SendOutcome {
        submit { _, time in [.input(.send(orders), at: time)] }.reply.sendOutcome ?? .serviceDown
    }

    /// The control API's way to the engine: an action becomes its inputs against the
    /// device as it stands (a push resolves its target), through the front door,
    /// answered once on disk.
    public var controlGateway: ControlGateway {
        ControlGateway(
            reader: box,
            perform: { [self] action in
                let produced = submit { engine, time in action.inputs(on: engine, at: time) }
                await box.durable()
                return produced.events.enumerated().map {
                    EventLog.Entry(seq: produced.firstSeq + Int64($0), event: $1)
                }
            },
            appServers: { [box] in box.appServerSenders })
    }

    /// The HTTP APIs' way to the engine: each reply waits until what it accepted is on disk.
    public var gateway: DeviceGateway {
        DeviceGateway(
            sendNow: { [self] orders in Durable(send(orders), point: box.durablePoint) },
            faultsNow: { [self] path in
                let effects = submit { _, time in [.input(.httpFaults(path: path), at: time)] }.reply.faultEffects
                return Durable(effects, point: box.durablePoint)
            },
            durable: { [box] point in await box.durable(point) },
            topics: { [self] order in
                let reply = submit { _, time in [.input(.topics(order), at: time)] }.reply
                await box.durable()
                return reply.topicOutcome ?? .serviceDown
            },
            subscriptions: { [box] registration, sender in
                box.read { $0.subscriptions(ofRegistration: registration, sender: sender) }
            },
            groups: { [self] order in
                let reply = submit { _, time in [.input(.group(order), at: time)] }.reply
                await box.durable()
                return reply.groupOutcome ?? .serviceDown
            },
            groupKey: { [box] sender, name in box.read { $0.groupKey(sender: sender, name: name) } },
            webPush: { [self] request in
                let reply = submit { _, time in [.input(.webPush(request), at: time)] }.reply
                await box.durable()
                return reply.webPushAnswer ?? WebPushAnswer(status: 503, body: "the push service is not running\n")
            },
            receiver: { [self] request in
                let reply = submit { _, time in [.input(.receiver(request), at: time)] }.reply
                await box.durable()
                return reply.receiverAnswer ?? .text(status: 503, "the registration service is not running\n")
            },
            hasFaults: { [box] in box.hasFaults },
            appServers: { [box] in box.appServerSenders }, findSender: { [box] in box.findSender($0) },
            now: { [clock] in clock.now })
    }
}

extension CCSOutbound {
    /// The XML of a stanza the engine asked for, on a connection of `domain`.
    static func render(_ stanza: CCSStanza, domain: String) -> String {
        switch stanza {
        case .ack(let id, let token): ack(messageID: id, from: token)
        case .nack(let id, let token, let error, let description):
            nack(messageID: id, from: token, error: error, description: description)
        case .upstream(let message, let token, let category):
            upstream(
                sender: message.sender, domain: domain, token: token, messageID: message.id, category: category,
                data: message.data, timeToLive: message.timeToLive)
        case .receipt(let owed, let category):
            CCSOutbound.receipt(
                originalID: owed.originalID, token: owed.token, category: category, sentAt: owed.sentAt,
                domain: domain, sender: owed.sender)
        case .draining: draining
        case .stanzaError(let id, let original, let text): stanzaError(id: id, original: original, text: text)
        }
    }
}
