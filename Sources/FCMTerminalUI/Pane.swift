import FCMDoor
import FCMEngine

/// The panes of the main screen, in focus order.
public enum Pane: String, Sendable, CaseIterable {
    case senders = "Senders"
    case queue = "Pending upstream"
    case events = "Callbacks and events"
    case tray = "Tray"
    case inbox = "Inbox"
    case server = "Server"
    /// What the connection server holds for the device; shown on wide screens only,
    /// and not focused (`h` opens the same list to select from).
    case held = "Held on the server"

    /// Rows one item of the pane takes (the inbox shows a message on two).
    var rowsPerItem: Int { self == .inbox ? 2 : 1 }

    func next(_ step: Int) -> Pane {
        let all = Pane.allCases.filter { $0 != .held }
        let index = all.firstIndex(of: self) ?? 0
        return all[(index + step + all.count) % all.count]
    }
}

/// A screen drawn over the main one.
public enum Overlay: Sendable, Equatable {
    case help
    case form(Form)
    case tokenDetail(sender: String)
    /// A delivered message, whole: position in the inbox, oldest first.
    case messageDetail(index: Int)
    case filter(String)
    /// One event, whole, with the rule that produced it.
    case eventDetail(Event)
    /// What the connection server holds for the device; the selected message.
    case held(selected: Int)
    /// A message's way from sender to app (or back), hop by hop.
    case journey(id: String)
    /// Every phone, the selected one; Enter shows it in the panes.
    case devices(selected: Int)
    /// The app server's report card; the selected piece of evidence.
    case report(selected: Int)
}

/// Something only the shell can do: the terminal, the clipboard, files.
public enum Effect: Sendable, Equatable {
    /// Put text on the clipboard with OSC 52.
    case copyToClipboard(String)
    case writeFile(path: String, contents: String)
    /// Save a session as a profile at `path`: if a file is there and `replacing` is
    /// false, write nothing and tell the model (`saveFound(existing:)`), which asks.
    case saveProfile(path: String, contents: String, replacing: Bool)
    /// Move the runner's own clock on by this much (the clock keys, on a session the
    /// TUI runs on the real clock).
    case moveClock(by: Millis)
    case quit
    /// Hand an input to the session's front door; a session the TUI runs on the real
    /// clock first catches up with `catchUpTo`, the key's time. Performed by
    /// `TUIModel.performOnSession`, which takes in what came of it.
    case submit(Input, catchUpTo: Millis?)
    /// Move the session's clock on (the clock keys): what falls due happens.
    case moveSessionClock(by: Millis)
}
