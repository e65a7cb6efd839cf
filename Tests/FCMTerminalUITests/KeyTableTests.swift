import FCMDoor
import FCMEngine
import FCMProfiles
import Foundation
import Testing

@testable import FCMTerminalUI

/// Every key a person can press, walked against what `?` lists: a key is handled
/// exactly when the help lists it, on the main screen and in play mode.
@Suite("Keys declared once")
struct KeyTableTests {
    /// Every key the backend can hand the model: printable ASCII, the named keys and
    /// Ctrl with a letter.
    static let everyKey: [Key] =
        (0x20...0x7E).map { Key.character(Character(UnicodeScalar($0))) }
        + [
            .enter, .escape, .backspace, .delete, .tab, .backTab, .up, .down, .left, .right, .pageUp, .pageDown,
            .home, .end,
        ] + (0x61...0x7A).map { Key.control(Character(UnicodeScalar($0))) }

    /// A model with something to move through: the events pane in focus, scrolled back
    /// part of the way over enough events that each scroll key moves it (in play mode,
    /// a few steps in, so that stepping back and restarting move it too).
    static func busy(_ model: TUIModel, stepped: Bool = false) -> TUIModel {
        var model = model
        if stepped {
            // Play mode steps its timeline (a key that acts would fork it).
            Scenes.press(&model, Array(repeating: .character("."), count: 4), from: 500)
        } else {
            for _ in 0..<8 { Scenes.press(&model, [.character("f"), .character("b")], from: 600) }
        }
        model.focus = .events
        model.eventScroll = model.visibleEvents.count / 2
        return model
    }

    /// Whether pressing `key` did anything a person would see or the runner would do:
    /// the screen changed (beyond "does nothing here") or effects came of it.
    static func handles(_ key: Key, on model: TUIModel) -> Bool {
        var pressed = model
        let before = screen(model)
        let effects = pressed.handle(key, at: 5_000)
        if pressed.status?.contains("does nothing here") == true { return false }
        return !effects.isEmpty || screen(pressed) != before
    }

    /// The screen a person sees, with its styles (a pane in focus is told by its title's).
    static func screen(_ model: TUIModel) -> String {
        let grid = View.render(model, width: 200, height: 50)
        return grid.text + Snapshot.styles(grid)
    }

    static func helpScreen(_ model: TUIModel) -> String {
        var model = model
        Scenes.press(&model, [.character("?")], from: 4_000)
        return View.render(model, width: 200, height: 50).text
    }

    @Test("on the main screen, a key is handled exactly when ? lists it")
    func mainKeysAreListedExactlyWhenHandled() {
        let model = Self.busy(Scenes.fresh())
        let help = Self.helpScreen(model)
        var listedByHelp: [String] = []
        for line in KeyTable.mainHelp {
            let column = KeyTable.keyColumn(line)
            #expect(help.contains(column + " "), "the help does not show \(column)")
            listedByHelp += line.entries.flatMap(KeyTable.keys(of:))
        }
        for key in Self.everyKey {
            let handled = Self.handles(key, on: model)
            let binding = KeyTable.main.first { $0.key == key }
            if let binding {
                #expect(handled, "\(key.label) is listed but does nothing")
                // A key said in the text rather than the key column (Ctrl-C).
                #expect(
                    binding.listed ? listedByHelp.contains(key.label) : help.contains(key.label),
                    "\(key.label) is handled but ? does not list it")
            } else {
                #expect(!handled, "\(key.label) does something but ? does not list it")
            }
        }
        // Every action has a line, and every line's actions a key.
        for binding in KeyTable.main {
            #expect(KeyTable.mainHelp.contains { $0.entries.contains(.main(binding.action)) }, "\(binding.key.label)")
        }
    }

    @Test("in play mode, every key that works is listed: the timeline's, and the live keys that look or act")
    func playKeysAreListedExactlyWhenHandled() {
        let model = Self.busy(PlayModeTests.playing(), stepped: true)
        let help = Self.helpScreen(model)
        // The note of the keys that act on the device, unwrapped.
        let flat = Self.panelText(help, titled: "Keys in play mode")
        for line in KeyTable.playHelp {
            #expect(help.contains(KeyTable.keyColumn(line) + " "), "the help does not show \(KeyTable.keyColumn(line))")
        }
        let listed = Set(KeyTable.playHelp.flatMap { $0.entries.flatMap(KeyTable.keys(of:)) })
        for key in Self.everyKey {
            let handled = Self.handles(key, on: model)
            let isPlayKey = KeyTable.playAction(for: key) != nil
            let mainAction = KeyTable.mainAction(for: key)
            if isPlayKey || mainAction != nil {
                #expect(handled, "\(key.label) is listed but does nothing in play mode")
                // A key that acts is said in the note as "KEYS word" ("f/b/x app state").
                let inNote = mainAction.flatMap(\.deviceWord).map { word in
                    Self.groups(saying: word, in: flat).contains { $0.contains(key.label) }
                }
                let said = listed.contains(key.label) || inNote == true || key == .control("c")
                #expect(said, "\(key.label) works in play mode but its ? does not list it")
            } else {
                #expect(!handled, "\(key.label) does something in play mode but ? does not list it")
            }
        }
    }

    /// The text inside the panel whose title is `title`, its lines joined by spaces (the
    /// panes around it left out).
    static func panelText(_ screen: String, titled title: String) -> String {
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) }
        guard let top = lines.firstIndex(where: { String($0).contains(title) }),
            let left = lines[top].firstIndex(of: "┌"), let right = lines[top].lastIndex(of: "┐")
        else { return "" }
        var inside: [String] = []
        for line in lines[(top + 1)...] {
            guard line.count > right, line[left] == "│" else { break }
            inside.append(String(line[(left + 1)..<right]))
        }
        return inside.joined(separator: " ").split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The key groups the note says before `word`: "f/b/x app state" gives ["f", "b", "x"].
    static func groups(saying word: String, in text: String) -> [[String]] {
        let pattern = try! Regex("([^ (,]+) " + word + "[,)]")
        return text.matches(of: pattern).compactMap { match in
            match.output[1].substring.map { $0.split(separator: "/").map(String.init) }
        }
    }

    @Test("each footer key does what its label says: pressed, it does the action the label names")
    func footersShowBoundKeys() {
        let expected: [(label: String, keys: [Key])] = [
            ("send", [.character("s")]), ("push", [.character("p")]), ("net", [.character("n")]),
            ("outage", [.character("o")]), ("doze", [.character("z")]),
            ("state", [.character("f"), .character("b"), .character("x")]), ("tap", [.character("t")]),
            ("phones", [.character("v")]), ("clock", [.character("1"), .character("2"), .character("3")]),
            ("pane", [.tab]),
        ]
        let footer = View.footerKeys(for: .android)
        #expect(footer.map(\.1) == expected.map(\.label))
        for ((keys, label), wanted) in zip(footer, expected) {
            #expect(keys == wanted.keys.map(\.label).joined(separator: "/"), "\(label): \(keys)")
            #expect(!keys.isEmpty, "\(label) shows no key")
        }
        let play = View.playFooterKeys
        #expect(play.map(\.0) == ["Space", ".", ",", "+/-", "g", "Home", "w", "Tab"])
        #expect(KeyTable.playAction(for: .character(" ")) == .playPause)
        #expect(KeyTable.playAction(for: .home) == .restart)
    }

    /// The keys in the first column of each key table of docs/tui.md (the live keys'
    /// table, then play mode's).
    static func documentedKeys() throws -> [Set<String>] {
        let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../docs/tui.md")
        let text = try String(contentsOf: doc, encoding: .utf8)
        var tables: [Set<String>] = []
        var inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "| key | does |" {
                tables.append([])
                inTable = true
            } else if inTable, line.hasPrefix("| `") {
                let column = line.dropFirst(2).prefix { $0 != "|" }
                let keys = column.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
                    $0.offset % 2 == 1
                }.map {
                    String($0.element)
                }
                tables[tables.count - 1].formUnion(keys)
            } else if !line.hasPrefix("| ---") {
                inTable = false
            }
        }
        return tables
    }

    @Test("docs/tui.md's key tables list every key of the tables, and no key they do not bind")
    func theDocumentedKeysAreTheTables() throws {
        let tables = try Self.documentedKeys()
        try #require(tables.count == 2, "docs/tui.md should have the live keys' table and play mode's")
        let live = Set(KeyTable.main.map(\.key.label))
        let play = Set(KeyTable.play.map(\.key.label))
        #expect(
            tables[0] == live,
            "documented but not bound: \(tables[0].subtracting(live)); bound but not documented: \(live.subtracting(tables[0]))"
        )
        // Play mode's table tells its own keys and `w`; the rest are the live keys.
        let playDocumented = tables[1].subtracting(["w"])
        #expect(
            playDocumented == play,
            "documented but not bound: \(playDocumented.subtracting(play)); bound but not documented: \(play.subtracting(playDocumented))"
        )
    }
}

@Suite("The status line's kinds")
struct StatusLineTests {
    @Test("a refusal is told by its kind, not its words: red whatever it says; a note is not")
    func refusalsAndNotesAreTypedValues() {
        // A browser has no upstream: `s` is refused before a form opens.
        var web = Scenes.fresh(Scenes.web)
        Scenes.press(&web, [.character("s")])
        #expect(web.statusLine?.kind == .refusal)
        // A push the server rejects is a failure (red), though its words say neither
        // "error" nor "refused".
        var android = Scenes.fresh()
        Scenes.press(&android, [.character("u"), .character("p"), .enter])
        #expect(android.statusLine?.kind == .failure, "\(android.status ?? "")")
        #expect(android.status?.hasPrefix("downstreamRejected") == true, "\(android.status ?? "")")
        let rejected = View.render(android, width: 80, height: 24)
        // A note is not red.
        Scenes.press(&android, [.character("1")], from: 9_000)
        #expect(android.statusLine == StatusLine(text: "clock moved on 1 minute", kind: .note))
        // The kind decides the colour of the status row (the second last).
        let statusStyle = { (grid: Grid) in Snapshot.styles(grid).split(separator: "\n")[22].dropFirst().first }
        #expect(statusStyle(rejected) != statusStyle(View.render(android, width: 80, height: 24)))
        android.report("could not write /x: Permission denied")
        #expect(android.statusLine?.kind == .failure)
    }
}

/// A session's door that counts everything the TUI asks of it.
final class CountingDoor: DeviceDoor, @unchecked Sendable {
    let session: SessionDoor
    private(set) var calls: [String] = []

    init(_ profile: Profile) { session = SessionDoor.own(starting: profile.configuration) }

    private func noted<T>(_ name: String, _ answer: T) -> T {
        calls.append(name)
        return answer
    }

    var summary: String? { noted("summary", session.summary) }
    func submit(_ command: Input) -> [Event] { noted("submit", session.submit(command)) }
    func view() -> DeviceView { noted("view", session.view()) }
    func takeEvents() -> [Event] { noted("takeEvents", session.takeEvents()) }
    func moveClock(by span: Millis) { noted("moveClock", session.moveClock(by: span)) }
    var keepsItsOwnClock: Bool { noted("keepsItsOwnClock", session.keepsItsOwnClock) }
    func tick(now time: Millis) -> Bool { noted("tick", session.tick(now: time)) }
    var now: Millis { noted("now", session.now) }
    var nextWake: Millis? { noted("nextWake", session.nextWake) }
    var resumed: Bool { noted("resumed", session.resumed) }
    func recording() -> [JournalEntry] { noted("recording", session.recording()) }
    var clock: SessionClock? { noted("clock", session.clock) }
}

@Suite("The TUI's update")
struct PureUpdateTests {
    @Test("a key changes the model and asks for effects; the session is touched only when they are performed")
    func theUpdateCallsNoDoor() {
        let door = CountingDoor(Scenes.android)
        var model = TUIModel(profile: Scenes.android, door: door)
        let opened = door.calls.count
        // Network off, a clock key, a push through the form.
        var effects: [Effect] = []
        for key in [Key.character("n"), .character("2"), .character("p"), .enter] {
            effects += model.handle(key, at: 1_000)
        }
        #expect(door.calls.count == opened, "the update called the door: \(door.calls.dropFirst(opened))")
        #expect(effects.count == 4, "\(effects)")
        guard case .submit(.on(device: _, .setNetwork(.offline)), catchUpTo: 1_000)? = effects.first else {
            Issue.record("the first effect should hand the session the network change: \(effects)")
            return
        }
        #expect(effects.contains(.moveSessionClock(by: Span.hour)))
        #expect(effects.contains(.moveClock(by: Span.hour)))
        // Performed in order, as the runner does: the session changes, the model sees it.
        for effect in effects { _ = model.performOnSession(effect) }
        #expect(door.calls.filter { $0 == "submit" }.count == 2)
        #expect(door.calls.contains("moveClock"))
        #expect(model.shown.network == .offline)
        #expect(model.device.heldMessages(ofPhoneAt: 0).count == 1, "the push waits for the phone offline")
    }
}
