import FCMEngine

/// A saved device: how it starts and a timeline of what happens to it. Replayed,
/// it is an executable scenario.
public struct Profile: Sendable {
    public var file: String
    public var description: String?
    public var configuration: EngineConfiguration
    /// Where replay stops; when nil, once nothing more is scheduled.
    public var end: Millis?
    public var steps: [Step]
    /// Whether the profile names a seed (reproducible tokens and ids); without one
    /// the shells draw a seed from the system's CSPRNG.
    public var hasSeed = false

    public init(
        file: String, description: String? = nil, configuration: EngineConfiguration, end: Millis? = nil,
        steps: [Step]
    ) {
        self.file = file
        self.description = description
        self.configuration = configuration
        self.end = end
        self.steps = steps
    }

    /// The profile with a seed from the system's CSPRNG if it names none, so tokens
    /// cannot be guessed; the seed used is part of the configuration (a saved
    /// session writes it, and replays to the same tokens). `hasSeed` still says
    /// whether the profile itself named one.
    public func seeded() -> Profile {
        guard !hasSeed else { return self }
        var copy = self
        let base = UInt64.random(in: 0...UInt64(Int64.max))
        copy.configuration.device.seed = base
        // Several phones keep their seeds apart: each moves by the same amount.
        for index in copy.configuration.devices.indices {
            copy.configuration.devices[index].settings.seed &+= base
        }
        if !copy.configuration.devices.isEmpty {
            copy.configuration.device = copy.configuration.firstStartingDevice
        }
        return copy
    }

    public var expectationCount: Int {
        steps.count {
            if case .expect = $0.action { true } else if case .expectNone = $0.action { true } else { false }
        }
    }
}

/// One timeline entry: an action at a time since start.
public struct Step: Sendable {
    public var at: Millis
    public var action: StepAction
    public var location: SourceLocation
    /// A caption for whoever watches the profile play (`note:`), shown while the
    /// step is the current one.
    public var note: String?

    public init(at: Millis, action: StepAction, location: SourceLocation, note: String? = nil) {
        self.at = at
        self.action = action
        self.location = location
        self.note = note
    }
}

/// What a step does. Boxed, so a step is cheap to copy as the runner reads it.
public indirect enum StepAction: Sendable {
    case command(Input)
    /// A downstream message; its target token is resolved when it runs.
    case push(PushStep)
    case expect(Expectation)
    case expectNone(Expectation)
}

extension StepAction {
    /// The phone the step names, if it names one (`device:`, a push's `devices:`, an
    /// expectation's `device`): play mode shows that phone.
    public var phoneName: String? {
        switch self {
        case .command(.on(let name, _)): name
        case .push(let push): push.devices.first
        case .expect(let expectation), .expectNone(let expectation):
            expectation.fields.first { $0.name == "device" }.flatMap { field in
                if case .scalar(let name) = field.value { name } else { nil }
            }
        default: nil
        }
    }

    /// The control API's door for the step: a phone's (`devices/NAME/actions`) for what
    /// happens to one phone (its network, its app, its senders, a push to its own
    /// token), the fleet's (`actions`) for the rest (a phone joining, the service, a
    /// drain, an app server's topic or group call, a push to a topic, a condition, a
    /// group, a token named outright, or a list of phones).
    public var door: StepDoor {
        switch self {
        case .command(.on): .phone
        case .command: .fleet
        case .push(let push):
            // As written: to the phone's own token, or to phones it names, a topic, a
            // condition, a group or a token named outright.
            push.target.picksAPhonesToken && push.devices.isEmpty ? .phone : .fleet
        case .expect, .expectNone: .fleet
        }
    }

    /// The one way a step acts on the device, for a profile's runner and the control
    /// API alike: the engine inputs it makes at `time` against the device as it
    /// stands (a command is applied; a push becomes its messages, `PushStep.commands`).
    /// Expectations make none (`ExpectationJudge` judges them).
    public func inputs(on engine: DeviceEngine, at time: Millis) -> [JournalEntry] {
        switch self {
        case .command(let command): [.input(command, at: time)]
        case .push(let push): push.inputs(on: engine, at: time)
        case .expect, .expectNone: []
        }
    }
}

/// Which of the control API's doors takes a step (`StepAction.door`).
public enum StepDoor: Sendable, Equatable {
    /// `POST devices/NAME/actions`: what happens to that phone.
    case phone
    /// `POST actions`: the fleet's and its connection server's steps.
    case fleet
}

/// A downstream message from a profile, before its target is known.
public struct PushStep: Sendable, CustomReflectable {
    /// The step's fields, in one box its copies share until one changes: replay reads
    /// every push step by value, and six fields meant six references retained.
    private var box: SharedBox<Content>

    struct Content: Sendable {
        var request: DownstreamRequest
        var target: PushTarget
        var tokenOwner: String
        var connection: ConnectionID?
        var devices: [String] = []
        var overrides: PlatformOverrides?
    }

    public var request: DownstreamRequest {
        get { box.value.request }
        set { box.value.request = newValue }
    }
    public var target: PushTarget {
        get { box.value.target }
        set { box.value.target = newValue }
    }
    /// Whose token `target` picks (the pushing sender unless `token_of` says).
    public var tokenOwner: String {
        get { box.value.tokenOwner }
        set { box.value.tokenOwner = newValue }
    }
    /// The app-server connection it comes on (CCS), or nil for the service's own API.
    public var connection: ConnectionID? {
        get { box.value.connection }
        set { box.value.connection = newValue }
    }
    /// The phones whose tokens `target` picks, in order: one message to each, as a
    /// multicast (`registration_ids`) sends them. Empty for the first phone.
    public var devices: [String] {
        get { box.value.devices }
        set { box.value.devices = newValue }
    }
    /// An HTTP v1 message's platform blocks (`platforms:`, as a saved session writes
    /// them): the push goes as that message did, each copy shaped by its block.
    public var overrides: PlatformOverrides? {
        get { box.value.overrides }
        set { box.value.overrides = newValue }
    }

    /// The fields, not the box, in a test's failure or a debugger.
    public var customMirror: Mirror { Mirror(reflecting: box.value) }

    public init(
        request: DownstreamRequest, target: PushTarget = .latest, tokenOwner: String, connection: ConnectionID? = nil
    ) {
        box = SharedBox(Content(request: request, target: target, tokenOwner: tokenOwner, connection: connection))
    }

    /// The inputs this step makes at `time`: one message per phone it names.
    public func inputs(on engine: DeviceEngine, at time: Millis) -> [JournalEntry] {
        commands(on: engine).map { input($0, at: time) }
    }

    /// The input one of this step's commands is: the command, or with platform blocks
    /// the HTTP v1 message it was.
    func input(_ command: Input, at time: Millis) -> JournalEntry {
        guard let overrides, case .push(let request) = command else { return .input(command, at: time) }
        return .input(.send([SendOrder(request, overrides: overrides)]), at: time)
    }

    /// Plays the step on `engine` at `time`: its inputs, handled in order. A push to
    /// one phone (nearly every one) makes no list: replay plays this for every push.
    func play(on engine: inout DeviceEngine, at time: Millis, into out: inout [Event]) {
        if devices.isEmpty, overrides == nil, let only = engine.unnamedPhone {
            engine.handle(.input(command(on: engine, phoneAt: only), at: time), into: &out)
            return
        }
        guard devices.count <= 1 else {
            for input in inputs(on: engine, at: time) { engine.handle(input, into: &out) }
            return
        }
        let made: Input
        switch target {
        case .latest, .previous:
            let index = devices.first.map { try? engine.phoneIndex(named: $0).get() } ?? engine.unnamedPhone
            let resolved = command(on: engine, phoneAt: index)
            // A phone that is not there: the engine refuses it, naming the phones there are.
            made = index == nil ? resolved.aimed(at: devices.first ?? DeviceEngine.onlyPhoneName) : resolved
        case .literal, .topic, .condition, .group: made = command(on: engine, phoneAt: nil)
        }
        engine.handle(input(made, at: time), into: &out)
    }

    /// The commands this step makes, one per phone whose token it picks, each target
    /// resolved among the tokens `engine` has issued so far. A step that names no
    /// phone picks the only phone's (`DeviceEngine.onlyPhoneName`); a phone that is
    /// not there (a fleet's, or one a reset took away) makes a command the engine
    /// refuses, naming the phones there are.
    public func commands(on engine: DeviceEngine) -> [Input] {
        guard target.picksAPhonesToken else { return [command(on: engine, phoneAt: nil)] }
        return (devices.isEmpty ? [DeviceEngine.onlyPhoneName] : devices).map { name in
            switch engine.phoneIndex(named: name) {
            case .success(let index): command(on: engine, phoneAt: index)
            case .failure: command(on: engine, phoneAt: nil).aimed(at: name)
            }
        }
    }

    /// The push with its target resolved; `index` is the phone whose token it picks.
    @inline(__always)
    func command(on engine: DeviceEngine, phoneAt index: Int?) -> Input {
        var request = request
        switch target {
        case .latest: request.to = index.flatMap { engine.issuedToken(of: tokenOwner, onPhoneAt: $0) }
        case .previous: request.to = index.flatMap { engine.issuedToken(of: tokenOwner, onPhoneAt: $0, back: 1) }
        case .literal(let text): request.to = text
        case .topic(let name): request.to = TopicName.prefix + name
        case .condition(let text):
            request.to = nil
            request.condition = text
        case .group(let name): request.to = engine.groupKey(sender: request.sender, name: name) ?? name
        }
        guard let connection else { return .push(request) }
        return .appServer(.received(connection, .downstream(request, messageID: request.messageID ?? "")))
    }
}

/// Which token a profile's push goes to.
public enum PushTarget: Sendable, Equatable {
    /// Whether the target is a token a phone was issued (`latest`, `previous`), picked
    /// on the phone the step names; the others name their target outright.
    var picksAPhonesToken: Bool {
        switch self {
        case .latest, .previous: true
        case .literal, .topic, .condition, .group: false
        }
    }

    /// The newest token the sender was given (still valid or not), as an app
    /// server that last heard from the device would hold it.
    case latest
    /// The token before the newest.
    case previous
    /// Exactly this text.
    case literal(String)
    /// Every subscriber of this topic (`topic:`).
    case topic(String)
    /// Every app instance whose topics match (`condition:`).
    case condition(String)
    /// Every member of the sender's device group of this name (`group:`).
    case group(String)
}

extension Input {
    /// A push aimed at the token of a phone no phone's name names: the engine refuses
    /// it, naming the phones there are (on a connection or not, it is refused alike).
    fileprivate func aimed(at phone: String) -> Input {
        switch self {
        case .push, .appServer(.received(_, .downstream)): .pushToUnknownPhone(phone)
        default: self
        }
    }
}
