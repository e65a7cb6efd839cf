import FCMDoor
import FCMEngine
import FCMProfiles

/// Everything the TUI shows and remembers: the device as the session shows it, the
/// event log, focus, scroll positions and the open overlay. What the user does goes
/// through the session's front door (`DeviceDoor`); the model keeps no engine it
/// runs, but in play mode, where stepping back replays the profile.
public struct TUIModel: Sendable {
    /// Where the device is: the session's (live), a profile playing on a virtual
    /// clock, or a played profile the user took over (a fork, its own session).
    public enum Mode: Sendable {
        case live(any DeviceDoor)
        case playing(PlayState)
        case forked(any DeviceDoor, ForkPoint)
    }

    public internal(set) var mode: Mode
    /// The device as last shown: read-only, refreshed from the session after every
    /// key and tick (or from the playback in play mode).
    /// (Set only through `see(_:)`, which keeps the shown phone one that exists.)
    public internal(set) var device: DeviceView
    public internal(set) var log: [Event] = []
    public let profile: Profile
    public internal(set) var focus: Pane = .events
    /// The phone the panes show, by its name (the first unless the devices list
    /// chose another): phones are named, and their places change when a reset or a
    /// step back drops some.
    public internal(set) var shownName = ""
    public internal(set) var overlay: Overlay?
    /// Rows scrolled up from the newest event (0 follows the log).
    public internal(set) var eventScroll = 0
    /// Rows scrolled up from the newest server line (0 follows it).
    public internal(set) var serverScroll = 0
    public internal(set) var eventFilter = ""
    public internal(set) var selection: [Pane: Int] = [:]
    public internal(set) var serverRaw = false
    /// What the status line says, and whether it is a refusal or a failure (red).
    public internal(set) var statusLine: StatusLine?
    /// The session's effects a key asked for, handed to the runner with the key's own.
    var outbox: [Effect] = []
    /// A phone the TUI asked to add, shown once the session has it.
    var joining: String?
    /// What the status line says once the session has taken the command asked for,
    /// unless it was refused.
    var afterSubmit: String?
    /// Whether the session keeps its own clock (read once, from the door it opened with).
    var sessionKeepsItsClock = false
    /// The status line's text.
    public var status: String? { statusLine?.text }
    /// The first phone of a device resumed from its state, as it stood when the TUI
    /// opened it: a saved session starts from its tokens (and, a device of one, its
    /// conditions), so its pushes reach the same tokens and find the same phone.
    public internal(set) var resumedFrom: Phone?
    public internal(set) var messageCounter = 0
    public internal(set) var senderCounter = 0
    public internal(set) var pushCounter = 0
    /// Where the network listeners are; nil when the TUI runs none.
    public internal(set) var networkSummary: String?
    /// Events appended since the start (the log itself is trimmed).
    public internal(set) var appendedTotal = 0
    /// The session clock's reading at the last tick, in play mode and after a fork
    /// (the device's clock then moves by the real time between ticks).
    var lastTick: Millis?
    /// How many messages the shown phone's inbox held at the last update: a selection
    /// on the newest of them follows the messages that arrive after.
    var inboxSeen = 0
    /// Where `w` offers to save a session (the shell names it; the current folder otherwise).
    public internal(set) var saveFolder = "."
    /// The path the user agreed to replace (asked when a save found a file there).
    var replaceConfirmed: String?
    /// The only sender `d` was pressed on once: the next key, `d` again, removes it.
    var removalAsked: String?
    /// The step play mode showed last (the panes follow a step's phone when it moves).
    var shownStep = -1
    /// The app server's report card over every event the TUI has seen (`R`).
    var card = ReportCard()
    /// The terminal's height at the last frame (PgUp and PgDn page by what shows).
    public internal(set) var screenHeight = 24

    /// At least this many of the newest events are kept for the screen (fewer than twice).
    public static let logLimit = 10_000

    /// A model on a device the TUI runs itself (no listeners), started at +0.
    public init(profile: Profile) {
        self.init(profile: profile, door: SessionDoor.own(starting: profile.configuration))
    }

    /// A model on a session's device (`DeviceDoor`): its first events come from it.
    public init(profile: Profile, door: any DeviceDoor) {
        self.profile = profile
        mode = .live(door)
        device = door.view()
        networkSummary = door.summary
        sessionKeepsItsClock = door.keepsItsOwnClock
        // A resumed device was there before the TUI: a saved session starts from it.
        if door.resumed { resumedFrom = device.devices.first }
        // The device's first events: a session the TUI runs has started; a served
        // one names its tokens.
        absorb(refresh: true)
    }

    /// A model that plays `profile`'s timeline (play mode), paused at +0.
    public init(playing profile: Profile) {
        self.profile = profile
        let state = PlayState(profile: profile)
        device = DeviceView(state.playback.engine)
        mode = .playing(state)
        showPlayback()
    }

    /// What every door did since the TUI opened, as the inputs the device took.
    public var recording: [JournalEntry] { door?.recording() ?? [] }

    /// The session's door, outside play mode.
    var door: (any DeviceDoor)? {
        switch mode {
        case .live(let door), .forked(let door, _): door
        case .playing: nil
        }
    }

    /// Play mode's state, while a profile plays.
    public internal(set) var play: PlayState? {
        get { if case .playing(let state) = mode { state } else { nil } }
        set { if let newValue { mode = .playing(newValue) } }
    }

    /// Where a played profile became the user's, after a fork.
    public var fork: ForkPoint? {
        if case .forked(_, let point) = mode { point } else { nil }
    }

    /// The phone the device panes show: every device pane reads this.
    public var shown: Phone {
        device.devices[shownIndex]
    }

    /// The index of the phone the panes show (`keepShownPhone` makes sure it exists).
    var shownIndex: Int { device.deviceNumber(named: shownName) ?? 0 }

    /// When the phone shown is gone (a reset, a step back in play mode), the panes
    /// show the first phone, and the status line says so: no key acts on another
    /// phone than the one shown.
    mutating func see(_ view: DeviceView) {
        device = view
        keepShownPhone()
    }

    mutating func keepShownPhone() {
        guard device.deviceNumber(named: shownName) == nil, let first = device.devices.first else { return }
        if !shownName.isEmpty { say("\(shownName) is gone; showing \(first.name)") }
        shownName = first.name
    }

    /// The shown browser's push subscription and the Web Push the push service holds
    /// for it: what a web phone's second pane lists (a browser has no upstream queue).
    var shownPushLines: [String] {
        guard let subscription = device.server.webPush.subscription(ofPhone: shownIndex) else { return [] }
        let keys = subscription.publicKeys
        var lines = [
            "endpoint " + subscription.endpoint,
            "key " + (subscription.applicationServerKey ?? "default (the FCM SDK's)"),
            "p256dh " + keys.p256dh, "auth " + keys.auth,
        ]
        for held in device.server.webPush.held where held.subscription == subscription.id {
            let topic = held.request.topic.map { "  topic \($0)" } ?? ""
            lines.append("held \(held.id)  ttl \(View.countdown(max(0, held.expiresAt - now)))" + topic)
        }
        return lines
    }

    /// What the connection server holds for the shown phone, oldest first.
    var shownHeld: [HeldMessage] { device.heldMessages(ofPhoneAt: shownIndex) }

    /// The session's time: the profile's in play mode, else the session's own (a
    /// served session's clock runs on between events).
    public var now: Millis { play?.playback.time ?? door.map { max($0.now, device.now) } ?? device.now }

    /// Whether the device's clock is the model's own (play mode and what follows a
    /// fork) rather than the session clock itself.
    public var hasVirtualClock: Bool {
        if case .live = mode { false } else { true }
    }

    /// Whether play mode is running the profile's clock.
    public var isPlaying: Bool { play?.playing == true }

    /// Lets time catch up with the session's clock (`SessionClock`: the real clock
    /// plus what the clock keys added, read by the runner): a session the TUI runs
    /// moves on to it; a served one keeps its own time, and its events are taken in.
    public mutating func tick(now target: Millis) -> Bool {
        if hasVirtualClock { return tickVirtual(now: target) }
        let moved = door?.tick(now: target) ?? false
        return absorb(refresh: moved) || moved
    }

    /// When the session next has something to do, in session time (nil when it
    /// keeps its own clock).
    public var nextWake: Millis? { door?.nextWake }

    /// Takes in the events every door caused since the last look and, when there
    /// were any (or `refresh`, after the TUI's own call), the device as it stands now;
    /// true when there were any. (Nothing changes the device without an event.)
    @discardableResult
    mutating func absorb(refresh: Bool = false) -> Bool {
        guard let door else { return false }
        let events = door.takeEvents()
        guard refresh || !events.isEmpty else { return false }
        see(door.view())
        append(events)
        return !events.isEmpty
    }

    /// Hands a phone's command to the session for the phone the panes show, named: no
    /// door falls back to a phone.
    @discardableResult
    mutating func run(_ command: PhoneCommand, at time: Millis) -> Bool {
        run(.on(device: shown.settings.name, command), at: time)
    }

    /// Asks for a command to be handed to the session, at its time (an effect the
    /// runner performs); `took` says in the status line why, when the device refused it
    /// or an error came of it. False when nothing was asked: in play mode, a command
    /// the played device refuses leaves the profile playing.
    @discardableResult
    mutating func run(_ command: Input, at time: Millis) -> Bool {
        // In play mode a key the device refuses (a tap on an empty tray) says why and
        // leaves the profile playing: only an action that happens makes a fork.
        if let playback = play?.playback {
            var trial = playback.engine
            var tried: [Event] = []
            // A refused command does nothing (what else happened is the clock's).
            if trial.handle(.input(command, at: max(time, trial.now)), into: &tried) == .refused,
                let refusal = tried.first(where: { $0.kind == .commandRefused })
            {
                say("commandRefused: " + (refusal.string("detail") ?? "") + " (the profile plays on)", .refusal)
                return false
            }
        }
        forkIfPlaying()
        guard door != nil else { return false }
        // A session the TUI runs on the real clock catches up with the key's time first.
        outbox.append(.submit(command, catchUpTo: hasVirtualClock ? nil : time))
        return true
    }

    /// Takes in what the session made of an input the TUI submitted: the device as it
    /// now stands and, when the input was refused or failed, why in the status line.
    mutating func took(_ events: [Event]) {
        absorb(refresh: true)
        let note = afterSubmit
        afterSubmit = nil
        if let error = events.last(where: \.isError) ?? events.last(where: { $0.kind == .commandRefused }) {
            let said = [error.string("error"), error.string("detail")].compactMap { $0 }.filter { !$0.isEmpty }
            say("\(error.name): " + said.joined(separator: " "), error.kind == .commandRefused ? .refusal : .failure)
        } else if let note {
            say(note)
        }
        if let name = joining {
            joining = nil
            if let index = device.deviceNumber(named: name) { show(device: index) }
        }
        // A tap may have taken the notification selected: the tray's selection stays on one.
        selection[.tray] = max(0, min(selected(.tray), shown.tray.count - 1))
    }

    /// A key as the runner takes it: handled, its effects on the session performed in
    /// order; answers the rest, the runner's own (the screen, files, quitting).
    public mutating func press(_ key: Key, at time: Millis) -> [Effect] {
        handle(key, at: time).filter { !performOnSession($0) }
    }

    /// Performs an effect on the session through the model's door (`submit`,
    /// `moveSessionClock`) and takes in what came of it; false for an effect that is
    /// the runner's own (the screen, files, its clock, quitting), left to it. The runner
    /// calls this for each effect `handle` gave, in order.
    public mutating func performOnSession(_ effect: Effect) -> Bool {
        switch effect {
        case .submit(let input, let time):
            guard let door else { return true }
            if let time { _ = door.tick(now: time) }
            took(door.submit(input))
        case .moveSessionClock(let span):
            door?.moveClock(by: span)
            absorb(refresh: true)
        case .copyToClipboard, .writeFile, .saveProfile, .moveClock, .quit:
            return false
        }
        return true
    }

    /// Shows a failure in the status line (the shell reports failed effects here).
    public mutating func report(_ message: String) {
        say(message, .failure)
    }

    /// Shows a note in the status line (the shell says what a person should know as
    /// the screen opens, such as a listener it could not open).
    public mutating func note(_ message: String) {
        say(message)
    }

    /// Says `text` in the status line, as a note, a refusal or a failure.
    mutating func say(_ text: String, _ kind: StatusLine.Kind = .note) {
        statusLine = StatusLine(text: text, kind: kind)
    }

    mutating func append(_ events: [Event]) {
        appendedTotal += events.count
        for event in events { card.observe(event) }
        log += events
        if log.count >= 2 * Self.logLimit { log.removeFirst(log.count - Self.logLimit) }
        // Scrolled back, a log pane keeps showing the same lines as new ones arrive
        // below; its title counts them.
        if eventScroll > 0 { eventScroll += eventFilter.isEmpty ? events.count : events.count(where: matchesFilter) }
        if serverScroll > 0 { serverScroll += events.count { $0.side == .server } }
        // The inbox follows new messages unless another one is selected.
        let inbox = shown.inbox.count
        if selected(.inbox) >= inboxSeen - 1 { selection[.inbox] = max(0, inbox - 1) }
        inboxSeen = inbox
    }

    /// Events the events pane shows: all of them, or those matching the filter.
    public var visibleEvents: [Event] {
        eventFilter.isEmpty ? log : log.filter(matchesFilter)
    }

    /// Whether an event's one-line summary contains the filter text, in any case.
    func matchesFilter(_ event: Event) -> Bool {
        TranscriptFormatter.summary(event).lowercased().contains(eventFilter.lowercased())
    }

    public var serverEvents: [Event] { log.filter { $0.side == .server } }

    /// The newest `count` events a log pane shows, skipping the `skip` newest (its
    /// scroll), oldest first. It walks back from the newest event, so a frame costs
    /// the rows on screen, not the length of the log.
    public func tail(of pane: Pane, count: Int, skip: Int) -> [Event] {
        let wanted: (Event) -> Bool
        switch pane {
        case .server: wanted = { $0.side == .server }
        case _ where eventFilter.isEmpty:
            let end = max(0, log.count - skip)
            return Array(log[max(0, end - count)..<end])
        default: wanted = matchesFilter
        }
        var found: [Event] = []
        var skipped = 0
        for event in log.reversed() where wanted(event) {
            if skipped < skip {
                skipped += 1
                continue
            }
            found.append(event)
            if found.count == count { break }
        }
        return found.reversed()
    }

    func selected(_ pane: Pane) -> Int { selection[pane] ?? 0 }

    /// The sender the senders pane points at.
    public var selectedSender: SenderConfig? {
        let senders = shown.senders
        guard !senders.isEmpty else { return nil }
        return senders[min(selected(.senders), senders.count - 1)]
    }

    /// An app-server message id for the push form: `p-1`, `p-2`, …, past any the
    /// phone shown still holds (a resumed device kept those of an earlier session, and
    /// a journey reads messages by id). A form cancelled uses up no id.
    func suggestPushID() -> String {
        let phone = shown
        let held = Set(shownHeld.map(\.id))
        var next = pushCounter
        repeat {
            next += 1
        } while phone.inbox.contains { $0.id == "p-\(next)" }
            || phone.tray.contains { $0.id == "p-\(next)" } || held.contains("p-\(next)")
        return "p-\(next)"
    }

    /// A message id not used yet: `m-1`, `m-2`, …
    func suggestMessageID() -> String {
        // A resumed device may have used the first ones in an earlier session.
        var next = messageCounter
        repeat { next += 1 } while device.hasUsedMessageID("m-\(next)", onPhoneAt: shownIndex)
        return "m-\(next)"
    }

    /// Moves the suggestions on past an id that was sent as suggested.
    mutating func used(suggested id: String) {
        if id == suggestPushID(), let n = Int(id.dropFirst(2)) { pushCounter = n }
        if id == suggestMessageID(), let n = Int(id.dropFirst(2)) { messageCounter = n }
    }
}
