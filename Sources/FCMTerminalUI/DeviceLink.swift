import FCMEngine
import FCMProfiles

/// The network side of a TUI that runs the connection server's listeners: the
/// device's one engine is shared with it, behind its lock.
public protocol DeviceLink: AnyObject, Sendable {
    /// One line for the header: where app servers connect.
    var summary: String { get }

    /// Runs `body` with the shared engine and the events the network side logged
    /// since the last call; `body` returns the events it produced itself, which the
    /// network side then acts on (upstream to app servers, drains, timers).
    func exchange(_ body: (inout DeviceEngine, [Event]) -> [Event])

    /// The session's one clock, which the server's timers follow too.
    var clock: SessionClock { get }

    /// The shared engine as it stands (a device resumed from its state has its own
    /// clock, tokens and queues already).
    func currentEngine() -> DeviceEngine
}

extension TUIModel {
    /// Takes the shared engine and the network side's events in, runs `work` on the
    /// model, and hands the engine back with the events `work` produced.
    public mutating func exchange(with link: any DeviceLink, _ work: (inout TUIModel) -> Void) -> Bool {
        var changed = false
        link.exchange { engine, incoming in
            self.engine = engine
            append(incoming)
            let before = appendedTotal
            work(&self)
            engine = self.engine
            let produced = appendedTotal - before
            changed = !incoming.isEmpty || produced > 0
            return produced > 0 ? Array(log.suffix(min(produced, log.count))) : []
        }
        return changed
    }

    /// Shows where the network listeners are, in the header.
    public mutating func setNetworkSummary(_ text: String) {
        networkSummary = text
    }

    /// The folder `w` offers to save sessions in.
    public mutating func setSaveFolder(_ folder: String) {
        saveFolder = folder
    }

    /// The terminal's height, for keys that page by what is on screen.
    public mutating func setScreenHeight(_ height: Int) {
        screenHeight = height
    }
}
