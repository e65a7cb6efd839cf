import FCMEngine
import FCMProfiles
import Foundation

/// What `exec` keeps of the events: the failed expectations, and the log file.
public final class ExecRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var failed: [Event] = []
    private let handle: FileHandle?

    public init(path: String?) {
        if let path, FileManager.default.createFile(atPath: path, contents: nil) {
            handle = FileHandle(forWritingAtPath: path)
        } else {
            handle = nil
        }
    }

    /// Every `expectationFailed` event, in order.
    public var failures: [Event] { lock.withLock { failed } }

    public func record(_ event: Event, seq: Int64) {
        lock.withLock {
            if event.kind == .expectationFailed { failed.append(event) }
            handle?.write(Data((TranscriptFormatter.json(event, seq: seq) + "\n").utf8))
        }
    }

    public func close() {
        lock.withLock { try? handle?.close() }
    }
}

/// What `exec` says of the profile's expectations when the command has ended: each one
/// that failed (what was expected, what happened instead) and each one the run never
/// reached (timed after the command ended).
public struct ExecReport {
    public var failed: [Event]
    public var unreached: [Step]
    /// The device's time when the command ended.
    public var endedAt: Millis

    public init(failed: [Event], unreached: [Step], endedAt: Millis) {
        self.failed = failed
        self.unreached = unreached
        self.endedAt = endedAt
    }

    public var isEmpty: Bool { failed.isEmpty && unreached.isEmpty }

    public var summary: String {
        var parts: [String] = []
        if !failed.isEmpty { parts.append("\(failed.count) expectation(s) failed") }
        if !unreached.isEmpty { parts.append("\(unreached.count) never reached") }
        return parts.joined(separator: ", ")
    }

    public func lines(command: String, profile: String) -> [String] {
        var lines: [String] = []
        for event in failed {
            let at = event["step_at"].flatMap { if case .int(let ms) = $0 { ms } else { nil } } ?? event.at
            lines.append("failed at \(DurationText.stamp(at)): \(event.string("expect") ?? "an expectation")")
            if let detail = event.string("detail") { lines.append("  " + detail) }
        }
        for step in unreached {
            let expectation: String
            switch step.action {
            case .expect(let wanted): expectation = wanted.label(negated: false)
            case .expectNone(let unwanted): expectation = unwanted.label(negated: true)
            default: continue
            }
            lines.append(
                "never reached: \(expectation) (\(step.location), at \(DurationText.stamp(step.at))); "
                    + "\(command) ended at \(DurationText.stamp(endedAt)), before its time")
        }
        if let last = unreached.last {
            lines.append(
                "the timeline of \(profile) runs to \(DurationText.stamp(last.at)): to test against its device alone, "
                    + "add --no-timeline; to have its expectations judged, let \(command) run past that time")
        }
        return lines
    }
}
