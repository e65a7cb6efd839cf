import FCMEngine
import FCMHTTPAPI
import FCMProfiles
import FCMStore
import FCMXMPP
import NIOCore

/// The one emulated device and its connection server, shared by every app-server
/// connection. It lives on one event loop: every method runs there. It turns the
/// engine's events into stanzas on the right connections and keeps the engine's
/// timers scheduled on the real clock.
public final class DeviceHost: @unchecked Sendable {
    public let loop: any EventLoop
    /// The device's engine, shared with the TUI when it runs the listeners.
    public let box: EngineBox
    /// The engine, read and changed in place under the box's lock.
    public internal(set) var engine: DeviceEngine {
        _read {
            box.lock.lock()
            defer { box.lock.unlock() }
            yield box.engine
        }
        _modify {
            box.lock.lock()
            defer {
                box.journal()
                box.lock.unlock()
            }
            yield &box.engine
        }
    }
    let started: NIODeadline
    /// Time added on top of the real clock (the TUI's clock keys).
    public var clockOffset: Millis {
        get { box.lock.withLock { box.clockOffset } }
        set { box.lock.withLock { box.clockOffset = newValue } }
    }
    /// Every event the emulator produces, for the `serve` log and the TUI.
    let log: @Sendable (Event) -> Void
    var connections: [CCSConnection] = []
    var nextConnection = 0
    var timer: Scheduled<Void>?
    /// The deadline the timer is armed for (read by other threads under the box's lock).
    var armedDeadline: Millis? {
        get { box.lock.withLock { box.armedDeadline } }
        set { box.lock.withLock { box.armedDeadline = newValue } }
    }
    /// Wait after the session result before upstream goes out (some clients only
    /// listen once their login call has returned).
    public static let upstreamDelay = TimeAmount.milliseconds(150)

    /// Whether the engine came from a state file (its tokens exist already).
    let resumed: Bool

    public init(
        engine: DeviceEngine, loop: any EventLoop, store: DeviceStore? = nil, resumed: Bool = false,
        log: @escaping @Sendable (Event) -> Void
    ) {
        box = EngineBox(engine, store: store)
        // A resumed device's clock goes on from where it stopped.
        box.clockOffset = engine.now
        self.loop = loop
        self.log = log
        self.resumed = resumed
        started = .now()
    }

    public var now: Millis { (NIODeadline.now() - started).nanoseconds / 1_000_000 + clockOffset }

    /// Starts the device: its first tokens; or, resumed from its state, says so and
    /// names its tokens, and sends on what it held.
    public func start() {
        loop.preconditionInEventLoop()
        var events: [Event] = []
        if resumed {
            let engine = self.engine
            note(
                "stateResumed",
                [
                    Field("state", .string(box.store?.path ?? "")), Field("clock", .int(engine.now)),
                    Field("pending", .int(Int64(engine.pending.count))),
                    Field("awaitingAck", .int(Int64(engine.awaitingAck.count))),
                    Field("stored", .int(Int64(engine.stored.count))),
                ])
            for sender in engine.senders {
                guard let token = engine.tokens[sender.id] else { continue }
                log(
                    Event(
                        at: now, side: .device, name: "tokenResumed",
                        fields: [Field("sender", .string(sender.id)), Field("token", .string(token))]))
            }
            // App servers connected when the device stopped are gone now.
            for sender in engine.realAppServers.sorted() {
                self.engine.apply(.setAppServerPresent(sender: sender, present: false), at: now, into: &events)
            }
        } else {
            engine.start(at: 0, into: &events)
        }
        dispatch(events)
    }

    public func apply(_ command: Command) {
        loop.preconditionInEventLoop()
        var events: [Event] = []
        engine.apply(command, at: now, into: &events)
        dispatch(events)
    }

    func note(_ name: String, _ fields: [Field]) {
        log(Event(at: now, side: .server, name: name, fields: fields))
    }

    /// Acts on events another shell (the TUI) produced and logged itself: upstream,
    /// receipts and drains go out, and the timer follows the engine.
    public func react(to events: [Event]) {
        loop.preconditionInEventLoop()
        dispatch(events, logging: false)
    }

    /// Logs events and sends what they mean to app servers, then re-arms the timer.
    func dispatch(_ events: [Event], logging: Bool = true) {
        for event in events {
            if logging { log(event) }
            switch event.name {
            case "upstreamForwarded", "upstreamRetry":
                if let sender = event.string("sender"), let id = event.string("id") {
                    sendUpstream(sender: sender, id: id)
                }
            case "receipt":
                if let sender = event.string("sender"), let id = event.string("original_id") {
                    sendReceipt(sender: sender, originalID: id)
                }
            case "drainRequested":
                drainAll()
            default: break
            }
        }
        armTimer()
    }

    func armTimer() {
        let deadline = engine.nextDeadline
        if deadline == armedDeadline, timer != nil || deadline == nil { return }
        timer?.cancel()
        timer = nil
        armedDeadline = deadline
        guard let deadline else { return }
        let wait = TimeAmount.milliseconds(max(0, deadline - now))
        timer = loop.scheduleTask(in: wait) { [self] in
            timer = nil
            armedDeadline = nil
            var events: [Event] = []
            engine.advance(to: now, into: &events)
            dispatch(events)
        }
    }

    /// Connections one sender may hold at once.
    public static let connectionsPerSender = 1_000

    /// A connection able to take upstream for this sender, in turn: established,
    /// not draining, under its limit of unacknowledged upstream.
    func pick(sender: String) -> CCSConnection? {
        let ready = connections.filter {
            $0.sender == sender && $0.acceptsUpstream && $0.unackedUpstream.count < CCSConnection.unackedUpstreamLimit
        }
        guard !ready.isEmpty else { return nil }
        nextConnection += 1
        return ready[nextConnection % ready.count]
    }

    func sendUpstream(sender: String, id: String) {
        // A connection with room first: in a retry storm most find none, and the
        // message lookup below walks the held messages.
        guard let connection = pick(sender: sender),
            let held = engine.awaitingAck.first(where: { $0.message.sender == sender && $0.message.id == id })
        else { return }
        connection.sendUpstream(
            held.message, token: engine.tokens[sender] ?? "", category: engine.configuration.device.app)
    }

    /// Receipts go on an established connection of the sender (the one that sent
    /// the message is one); with none, the next one to be established takes them. The
    /// engine owes each until an app server acknowledges it.
    func sendReceipt(sender: String, originalID: String) {
        guard let connection = connections.first(where: { $0.sender == sender && $0.isReady }),
            let receipt = engine.owedReceipts.last(where: { $0.sender == sender && $0.originalID == originalID })
        else { return }
        write(receipt, on: connection)
    }

    func write(_ receipt: OwedReceipt, on connection: CCSConnection) {
        connection.write(
            CCSOutbound.receipt(
                originalID: receipt.originalID, token: receipt.token, category: engine.configuration.device.app,
                sentAt: receipt.sentAt, domain: connection.domain, sender: receipt.sender))
    }

    /// Plays a profile's timeline on the real clock: each step at its time since
    /// start. Expectations are left to `replay`.
    public func play(_ steps: [Step]) {
        // A resumed device has played the steps up to where it stopped.
        let resumedAt = resumed ? engine.now : -1
        for step in steps where step.at > resumedAt {
            loop.scheduleTask(deadline: started + .milliseconds(step.at - max(0, resumedAt))) { [self] in
                switch step.action {
                case .command(let command): apply(command)
                case .push(let push):
                    var request = push.request
                    request.to = Replayer.target(push.target, sender: push.tokenOwner, engine: engine)
                    apply(.push(request))
                case .expect, .expectNone: break
                }
            }
        }
    }
}
