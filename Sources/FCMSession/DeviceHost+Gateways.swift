import FCMControlAPI
import FCMDoor
import FCMEngine
import FCMHTTPAPI

/// The session as the HTTP send APIs and the control API reach it: their gateways
/// hand it inputs through its front door and read it in place. Made by the
/// composition root, which joins the session to the doors.
extension DeviceHost {
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
            appServers: { [box] in box.appServerSenders }, now: { [clock] in clock.now })
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

/// The control API reads the device in place, under the box's lock.
extension EngineBox: EngineReader {}
