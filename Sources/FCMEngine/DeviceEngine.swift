/// The rules of one FCM/GCM client app instance and of the connection server that
/// serves it, as a value: commands and the time go in, events come out. No clock,
/// no I/O: the replay, the TUI and the network servers are shells around it.
public struct DeviceEngine: Sendable, Codable {
    public internal(set) var configuration: EngineConfiguration
    /// The configuration the device started with, for a reset.
    public internal(set) var startConfiguration: EngineConfiguration
    /// The phones, in the order they were made; the first is the default target of
    /// every device command and the one a single-device profile has.
    public internal(set) var devices: [Phone]
    /// Device name → its index in `devices`.
    var deviceIndex = PhoneMap()
    /// Every token ever issued → the index of the phone it was issued on.
    var tokenDevices = PhoneMap()
    /// Every sender some phone registers with (`appServerSenders`); rebuilt with the
    /// other maps over phones.
    var registeredSenders = AppServerSenders() {
        didSet { appServerSendersRevision &+= 1 }
    }
    /// Moves on whenever `appServerSenders` may have changed, so a shell that publishes
    /// the answer to other threads knows when to publish it again.
    public internal(set) var appServerSendersRevision = 0
    /// The time of the last command or timer handled.
    public internal(set) var now: Millis = 0
    /// The engine's reading of the UNIX time (`Input.setWallClock`).
    public internal(set) var wallClock = WallClock.replayDefault

    /// The connection server: what it holds beside the phones.
    public internal(set) var server = Server()
    /// Each phone's earliest timer (`Phone.earliestDeadline`), by index, so
    /// that a fleet's next deadline is found without reading every phone. Not saved:
    /// rebuilt with the other maps over phones.
    var phoneDeadlines = DeadlineHeap<PhoneDeadlineTable>()

    public static let inboxLimit = 500
    public static let owedReceiptLimit = 10_000
    /// The calls made on this engine since a shell last took them, while recording
    /// (`recording(_:)`, `takeRecorded()`).
    var inputs = InputRecord()
    /// Set while handling an input whose events nobody reads (`handleSilently`): the
    /// rules run as ever, and no event is made. Not saved.
    var silent = false
    /// How many commands were refused so far (a reply says whether the last one was;
    /// counted whether or not events are made). Not saved.
    var refusals = 0
    /// Where the downstream message being taken now came from on an app server's
    /// wire (nil: a profile's or the TUI's push); its events say so. Not saved.
    var arriving: WireOrigin?

    public init(_ configuration: EngineConfiguration) {
        self.configuration = configuration
        startConfiguration = configuration
        var phones: [Phone] = []
        phones.reserveCapacity(configuration.startingDeviceCount)
        configuration.forEachStartingDevice { settings, senders in
            phones.append(Phone(settings, senders: senders, index: phones.count))
        }
        devices = phones
        indexDevices()
    }

    /// Whether the phone at `p` can talk to the connection server. Inlined: a call
    /// would copy the whole engine to pass it.
    @inline(__always) func connected(_ p: Int) -> Bool {
        // A field at a time: work inside `phone`'s closure copies the whole phone.
        phone(p) { $0.installed } && phone(p) { $0.network } == .online && server.serviceUp
    }

    /// Registers every sender on every phone: the first `onNewToken` of each.
    mutating func start(at time: Millis = 0, into out: inout [Event]) {
        now = time
        issueFirstTokens(into: &out)
        // The fleet as started is made again from the configuration and this input:
        // no phone is changed from it yet.
        inputs.changedPhones.removeAll()
    }

    mutating func issueFirstTokens(into out: inout [Event]) {
        tokenDevices.reserveCapacity(
            tokenDevices.count + devices.indices.reduce(0) { $0 + phone($1) { $0.senders.count } })
        for p in devices.indices {
            for sender in phone(p, { $0.senders }) {
                issueToken(for: sender, on: p, into: &out)
            }
            if !connected(p) { self[p].unreachableSince = now }
        }
    }

    /// Handles one command at `time` (clamped so time never runs backwards), after
    /// every timer due by then.
    @discardableResult
    mutating func apply(_ command: Input, at time: Millis, into out: inout [Event]) -> EngineReply {
        runTimers(to: time, into: &out)
        let reply = perform(command, into: &out)
        runTimers(to: now, into: &out)
        return reply
    }

    /// A command for the fleet or its connection server; a phone's command runs on the
    /// phone it names. The reply of a topic or group call is its outcome; any other
    /// command's is `done` (whether it was refused, its events say).
    mutating func perform(_ command: Input, into out: inout [Event]) -> EngineReply {
        switch command {
        case .on(let name, let command):
            let index: Int
            if let name {
                switch phoneIndex(named: name) {
                case .success(let found): index = found
                case .failure(let error):
                    refuse(command.stepName, error.description, on: nil, into: &out)
                    return .done
                }
            } else {
                // A command that names no phone: the only one, or refused.
                guard let only = unnamedPhone else {
                    refuse(command.stepName, nameAPhone, on: nil, into: &out)
                    return .done
                }
                index = only
            }
            perform(command, on: index, into: &out)
        case .addDevice(let spec): addDevice(spec, into: &out)
        case .setService(let up): setService(up: up, into: &out)
        case .push(let request): _ = take(request, into: &out)
        case .send(let orders): return .sent(send(orders, into: &out))
        case .webPush(let request): return .webPush(receiveWebPush(request, into: &out))
        case .receiver(let request): return .receiver(register(request, into: &out))
        case .mcs(let input): mcs(input, into: &out)
        case .requestRejected(let request): emit(.server, .requestRejected, request.fields, on: nil, into: &out)
        case .requestAbandoned(let request): emit(.server, .requestAbandoned, request.fields, on: nil, into: &out)
        case .credentialsUnverified(let account, let key, let project):
            emit(
                .server, .credentialsUnverified,
                [.text("account", account), .text("key", key), .text("project", project)], on: nil, into: &out)
        case .httpFaults(let path):
            guard let effects = server.httpFaults(path: path, seed: configuration.device.seed, stamp, into: &out) else {
                return .unchanged
            }
            return .faults(effects)
        case .pushToUnknownPhone(let name):
            switch phoneIndex(named: name) {
            case .failure(let error): refuse("push", error.description, on: nil, into: &out)
            // Named since: the step's token was read before the phone was there.
            case .success: refuse("push", "\(name) had no token when the step was read", on: nil, into: &out)
            }
        case .group(let order, let phones):
            return changeGroup(order, phones: phones, into: &out).map { .group($0) } ?? .done
        case .topics(let order, let phones):
            return changeTopics(order, phones: phones, into: &out).map { .topics($0) } ?? .done
        case .ackUpstream(let sender, let id): takeAck(sender: sender, id: id, into: &out)
        case .drain: drain(into: &out)
        case .ackReceipt(let sender, let id): server.ackReceipt(sender: sender, id: id, stamp, into: &out)
        case .setAppServerPresent(let sender, let present):
            if present { server.realAppServers.insert(sender) } else { server.realAppServers.remove(sender) }
        case .appServer(let input): appServer(input, into: &out)
        case .addFault(let fault):
            if let problem = server.addFault(fault, stamp, into: &out) {
                refuse("fault", problem, side: .server, on: nil, into: &out)
            }
        case .clearFaults: server.clearFaults(stamp, into: &out)
        case .setWallClock(let unixMillis): setWallClock(unixMillis: unixMillis)
        case .setAppServerMode(let mode): configuration.appServer = mode
        case .setDeviceLimits(let on): configuration.store.deviceLimits = on
        case .setLoginTimeout(let span): server.links.loginTimeout = span
        case .reset: reset(into: &out)
        }
        return .done
    }

    /// A command for the phone at `p`.
    mutating func perform(_ command: PhoneCommand, on p: Int, into out: inout [Event]) {
        if let refusal = Self.refusal(command, on: phone(p, { $0.platform })) {
            return refuse(command.stepName, refusal, on: p, into: &out)
        }
        if server.hasReceivers, server.isReceiver(p) {
            if let refusal = Self.receiverRefusal(command) {
                return refuse(command.stepName, refusal, on: p, into: &out)
            }
            if case .setNetwork = command { return disconnectReceiver(p, into: &out) }
        }
        switch command {
        case .setNetwork(let value): setNetwork(value, on: p, into: &out)
        case .setDoze(let value): setDoze(value, on: p, into: &out)
        case .setAppState(let value): setAppState(value, on: p, into: &out)
        case .uninstall: uninstall(on: p, into: &out)
        case .reinstall: reinstall(on: p, into: &out)
        case .reinstallAs(let platform, let sdk): reinstall(as: platform, sdk: sdk, on: p, into: &out)
        case .refreshToken(let sender): refreshToken(sender: sender, on: p, into: &out)
        case .addSender(let sender): addSender(sender, on: p, into: &out)
        case .removeSender(let id): removeSender(id, on: p, into: &out)
        case .send(let request): send(request, on: p, into: &out)
        case .tap(let target): tap(target, on: p, into: &out)
        case .subscribe(let topic, let sender): changeTopic(topic, subscribe: true, sender: sender, on: p, into: &out)
        case .unsubscribe(let topic, let sender):
            changeTopic(topic, subscribe: false, sender: sender, on: p, into: &out)
        case .getToken(let sender, let vapidKey): getToken(sender: sender, vapidKey: vapidKey, on: p, into: &out)
        case .webPush(let step): appServerWebPush(step, on: p, into: &out)
        case .deleteToken(let sender): deleteToken(sender: sender, on: p, into: &out)
        case .setPermission(let permission): setPermission(permission, on: p, into: &out)
        }
    }

    /// An event now; one about the phone at `p` names it first, when there are several.
    /// Mutating though it changes nothing: a rule's call reads the phone in its
    /// arguments (`self[p].names…`), and a non-mutating call would copy the whole
    /// engine first to keep it still while they are read.
    mutating func emit(
        _ side: Side, _ kind: EventName, _ fields: consuming [Field], on p: Int?, into out: inout [Event]
    ) {
        // Nobody hears it (a fleet made again): not even the phone's name is read.
        if silent { return }
        stamp.emit(side, kind, fields, naming: eventName(ofPhone: p), into: &out)
    }

    /// What the server's own rules stamp their events with: the time, and whether
    /// anyone hears them.
    var stamp: EventStamp { EventStamp(now: now, silent: silent) }

    /// The name an event about the phone at `p` carries: none on a device of one.
    func eventName(ofPhone p: Int?) -> String? {
        guard let p, devices.count > 1 else { return nil }
        return phone(p) { $0.name }
    }

    /// A command refused, and why (about the phone at `p`, if it was one's).
    mutating func refuse(
        _ command: String, _ detail: String, side: Side = .device, on p: Int?, into out: inout [Event]
    ) {
        refusals &+= 1
        emit(side, .commandRefused, [.text("command", command), .text("detail", detail)], on: p, into: &out)
    }
}
