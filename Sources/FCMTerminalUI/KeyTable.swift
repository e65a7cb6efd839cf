import FCMEngine

/// What a key does on the main screen, live or in play mode (where a key that acts on
/// the device forks the session first).
enum MainAction: Sendable, Hashable {
    case send, push, network, outage, permission, doze
    case foreground, background, stopApp, uninstall, reinstallAs
    case refreshToken, addSender, removeSender, topics
    case devicesList, previousDevice, nextDevice
    case details, tap, held, journey, report, drain
    /// Moves the session's clock on by this span.
    case clock(Millis)
    case filter, saveProfile, nextPane, previousPane
    /// Moves the selection or the scroll by this many lines.
    case scroll(Int)
    /// The pane's first line (in a fork: back to the profile at +0) or its last.
    case top, bottom
    case help, quit

    /// How play mode's help names it among the keys that act on the device (in play
    /// mode, such a key makes the session a fork); nil for a key that only looks.
    var deviceWord: String? {
        switch self {
        case .send: "send"
        case .push: "push"
        case .network: "network"
        case .outage: "outage"
        case .permission: "permission"
        case .doze: "doze"
        case .foreground, .background, .stopApp: "app state"
        case .uninstall: "uninstall"
        case .reinstallAs: "reinstall as"
        case .refreshToken: "refresh"
        case .addSender, .removeSender: "senders"
        case .topics: "topics"
        case .tap: "tap"
        case .drain: "drain"
        case .clock: "clock"
        default: nil
        }
    }
}

/// What a play-mode key does to the profile's timeline.
enum PlayAction: Sendable, Equatable {
    case playPause, stepForward, stepBack, faster, slower, restart, toEnd, goToTime
}

/// A key bound to an action; `listed` false for a second key said in the text
/// instead (Ctrl-C beside q).
struct KeyBinding<Action: Sendable & Equatable>: Sendable {
    let key: Key
    let action: Action
    var listed = true
}

/// One line of a help panel: the actions it tells of, and what it says. Its keys are
/// read from the binding tables.
struct HelpLine: Sendable {
    enum Entry: Sendable, Equatable {
        case main(MainAction)
        case play(PlayAction)
    }

    let entries: [Entry]
    let says: String
}

/// The keys of the main screen and of play mode, declared once: the handlers look a
/// key up here, and `?` and the footers are made from the same tables (a test walks
/// them), so a key is handled exactly when it is listed.
enum KeyTable {
    static let main: [KeyBinding<MainAction>] = [
        .init(key: .character("s"), action: .send), .init(key: .character("p"), action: .push),
        .init(key: .character("n"), action: .network), .init(key: .character("o"), action: .outage),
        .init(key: .character("P"), action: .permission), .init(key: .character("z"), action: .doze),
        .init(key: .character("f"), action: .foreground), .init(key: .character("b"), action: .background),
        .init(key: .character("x"), action: .stopApp), .init(key: .character("u"), action: .uninstall),
        .init(key: .character("i"), action: .reinstallAs), .init(key: .character("r"), action: .refreshToken),
        .init(key: .character("a"), action: .addSender), .init(key: .character("d"), action: .removeSender),
        .init(key: .character("T"), action: .topics), .init(key: .character("v"), action: .devicesList),
        .init(key: .character("["), action: .previousDevice), .init(key: .character("]"), action: .nextDevice),
        .init(key: .enter, action: .details), .init(key: .character("t"), action: .tap),
        .init(key: .character("h"), action: .held), .init(key: .character("j"), action: .journey),
        .init(key: .character("R"), action: .report), .init(key: .character("D"), action: .drain),
        .init(key: .character("1"), action: .clock(Span.minute)),
        .init(key: .character("2"), action: .clock(Span.hour)),
        .init(key: .character("3"), action: .clock(Span.day)), .init(key: .character("/"), action: .filter),
        .init(key: .character("w"), action: .saveProfile), .init(key: .tab, action: .nextPane),
        .init(key: .backTab, action: .previousPane), .init(key: .up, action: .scroll(-1)),
        .init(key: .down, action: .scroll(1)), .init(key: .pageUp, action: .scroll(-10)),
        .init(key: .pageDown, action: .scroll(10)), .init(key: .home, action: .top), .init(key: .end, action: .bottom),
        .init(key: .character("?"), action: .help), .init(key: .character("q"), action: .quit),
        .init(key: .control("c"), action: .quit, listed: false),
    ]

    static let play: [KeyBinding<PlayAction>] = [
        .init(key: .character(" "), action: .playPause),
        .init(key: .character("."), action: .stepForward), .init(key: .right, action: .stepForward),
        .init(key: .character(","), action: .stepBack), .init(key: .left, action: .stepBack),
        .init(key: .character("+"), action: .faster), .init(key: .character("="), action: .faster),
        .init(key: .character("-"), action: .slower), .init(key: .character("g"), action: .goToTime),
        .init(key: .home, action: .restart), .init(key: .end, action: .toEnd),
    ]

    /// The main screen's `?`, each line said in at most 50 columns so that the panel
    /// holds them all at 80x24 (a test checks it).
    static let mainHelp: [HelpLine] = [
        line([.send], "send an upstream message (form)"),
        line([.push], "push a message, as an app server would (form)"),
        line([.network, .outage], "network online / offline; service outage"),
        line([.permission], "notification permission: the next value"),
        line([.doze], "doze on / off (an iPhone: asleep)"),
        line([.foreground, .background, .stopApp], "app to foreground / background / stopped"),
        line([.uninstall, .reinstallAs], "uninstall or reinstall (i: another platform)"),
        line([.refreshToken], "refresh the selected sender's token"),
        line([.addSender, .removeSender, .topics], "add / remove a sender; T: topic subscriptions"),
        line([.devicesList, .previousDevice, .nextDevice], "the devices list; the previous / next device"),
        line([.details, .tap], "details and why; t taps the selected notice"),
        line([.held, .journey], "held on the server / a message's journey"),
        line([.report, .drain], "report card; D asks connections to drain"),
        line(
            [.clock(Span.minute), .clock(Span.hour), .clock(Span.day)], "move the clock on 1 minute / 1 hour / 1 day"),
        line([.filter, .saveProfile], "filter the events; w saves a profile"),
        line([.nextPane, .previousPane], "next / previous pane"),
        line([.scroll(-1), .scroll(1), .scroll(-10), .scroll(10)], "select or scroll in the pane"),
        line([.top, .bottom], "first / last line (a fork: Home goes back)"),
        line([.help, .quit], "this help / quit (Ctrl-C too)"),
    ]

    /// Play mode's `?`: the timeline's keys, then the main keys that look without
    /// acting (the rest are said in `playHelpNote`).
    static let playHelp: [HelpLine] = [
        HelpLine(entries: [.play(.playPause)], says: "play / pause the profile's timeline"),
        HelpLine(entries: [.play(.stepForward)], says: "step to the next step (and what happens by its time)"),
        HelpLine(entries: [.play(.stepBack)], says: "step back to the previous step"),
        HelpLine(entries: [.play(.faster), .play(.slower)], says: "speed: 1×, 10×, 60× or jump (a step a second)"),
        HelpLine(entries: [.play(.goToTime)], says: "go to a time (+00:02:05, 2:05, 90s, 3d)"),
        HelpLine(entries: [.play(.restart), .play(.toEnd)], says: "play the profile again from +0 / play to the end"),
        HelpLine(entries: [.main(.saveProfile)], says: "save what played (and what you did) as a profile"),
        HelpLine(
            entries: [.main(.details), .main(.held), .main(.journey)],
            says: "details with why, held on the server, a journey"),
        HelpLine(entries: [.main(.report), .main(.filter)], says: "the app server's report card / filter the events"),
        HelpLine(entries: [.main(.nextPane), .main(.previousPane)], says: "next / previous pane"),
        HelpLine(
            entries: [.main(.devicesList), .main(.previousDevice), .main(.nextDevice)],
            says: "the devices list; the previous / next device"),
        HelpLine(
            entries: [.main(.scroll(-1)), .main(.scroll(1)), .main(.scroll(-10)), .main(.scroll(10))],
            says: "select or scroll in the pane"),
        HelpLine(entries: [.main(.help), .main(.quit)], says: "this help / quit"),
    ]

    /// What play mode's `?` says of the keys that act on the device, made from the main
    /// table: "s send, p push, …, f/b/x app state, …".
    static var playHelpNote: String {
        var said: [(keys: [String], word: String)] = []
        for binding in main where binding.listed {
            guard let word = binding.action.deviceWord else { continue }
            if let index = said.firstIndex(where: { $0.word == word }) {
                said[index].keys.append(binding.key.label)
            } else {
                said.append(([binding.key.label], word))
            }
        }
        let list = said.map { $0.keys.joined(separator: "/") + " " + $0.word }.joined(separator: ", ")
        return "Any other key acts on the device as in a live session (\(list)): the timeline then "
            + "stops and the session is yours from that step on (a fork); w saves it, Home plays the profile again."
    }

    /// The main footer: what each says, by action; its keys are read from the table.
    static let mainFooter: [(actions: [MainAction], label: String)] = [
        ([.send], "send"), ([.push], "push"), ([.network], "net"), ([.outage], "outage"), ([.doze], "doze"),
        ([.foreground, .background, .stopApp], "state"), ([.tap], "tap"), ([.devicesList], "phones"),
        ([.clock(Span.minute), .clock(Span.hour), .clock(Span.day)], "clock"), ([.nextPane], "pane"),
    ]

    static let playFooter: [(entries: [HelpLine.Entry], label: String)] = [
        ([.play(.playPause)], "play"), ([.play(.stepForward)], "step"), ([.play(.stepBack)], "back"),
        ([.play(.faster), .play(.slower)], "speed"), ([.play(.goToTime)], "go to"), ([.play(.restart)], "restart"),
        ([.main(.saveProfile)], "save"), ([.main(.nextPane)], "pane"),
    ]

    /// The action a key does on the main screen, if any.
    static func mainAction(for key: Key) -> MainAction? { main.first { $0.key == key }?.action }

    /// The action a key does to the timeline in play mode, if any.
    static func playAction(for key: Key) -> PlayAction? { play.first { $0.key == key }?.action }

    /// The listed keys of an entry, as a help line or footer shows them.
    static func keys(of entry: HelpLine.Entry) -> [String] {
        switch entry {
        case .main(let action): main.filter { $0.action == action && $0.listed }.map(\.key.label)
        case .play(let action): play.filter { $0.action == action && $0.listed }.map(\.key.label)
        }
    }

    /// A footer's keys: the first key of each entry, joined by "/" ("f/b/x").
    static func footerKeys(_ entries: [HelpLine.Entry]) -> String {
        entries.compactMap { keys(of: $0).first }.joined(separator: "/")
    }

    /// A line's key column: its keys, two spaces apart, or one where two would not
    /// leave a space before the text (the column is 16 wide).
    static func keyColumn(_ line: HelpLine) -> String {
        let keys = line.entries.flatMap(keys(of:))
        let spaced = keys.joined(separator: "  ")
        return spaced.count < 16 ? spaced : keys.joined(separator: " ")
    }

    private static func line(_ actions: [MainAction], _ says: String) -> HelpLine {
        HelpLine(entries: actions.map { .main($0) }, says: says)
    }
}

extension Key {
    /// The key as help and footers name it.
    var label: String {
        switch self {
        case .character(" "): "Space"
        case .character(let c): String(c)
        case .enter: "Enter"
        case .escape: "Esc"
        case .backspace: "Backspace"
        case .delete: "Del"
        case .tab: "Tab"
        case .backTab: "S-Tab"
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .home: "Home"
        case .end: "End"
        case .control(let c): "Ctrl-" + String(c).uppercased()
        }
    }
}
