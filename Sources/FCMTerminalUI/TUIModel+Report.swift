import FCMEngine
import FCMProfiles

/// The app server's report card in the TUI (`R`): each finding with its evidence;
/// Enter on a piece of evidence goes to its event in the events pane.
extension TUIModel {
    /// The report as the events the TUI has seen make it: the session's, read as they
    /// came; in play mode, the played events' (the card follows the playback).
    public var appServerReport: AppServerReport { card.runReport }

    /// Every piece of evidence the report shows, in the order it shows them.
    var reportEvidence: [ReportEvidence] { appServerReport.findings.flatMap(\.examples) }

    mutating func handleReport(selected: Int, _ key: Key) -> [Effect] {
        let evidence = reportEvidence
        switch key {
        case .up: overlay = .report(selected: max(0, selected - 1))
        case .down: overlay = .report(selected: max(0, min(evidence.count - 1, selected + 1)))
        case .enter:
            if evidence.indices.contains(selected) { goToEvent(evidence[selected].event) }
        case .escape, .character("q"), .character("R"): overlay = nil
        default: break
        }
        return []
    }

    /// Puts the events pane's cursor on the event with this sequence number (counted
    /// from the first event the TUI saw), all events shown.
    mutating func goToEvent(_ sequence: Int) {
        let index = sequence - 1 - (appendedTotal - log.count)
        guard log.indices.contains(index) else {
            say("event \(sequence) is older than the newest \(log.count) the screen keeps")
            return
        }
        overlay = nil
        eventFilter = ""
        focus = .events
        eventScroll = log.count - 1 - index
        say("event \(sequence): " + TranscriptFormatter.summary(log[index]))
    }
}
