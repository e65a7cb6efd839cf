import FCMEngine
import FCMJSON

/// Writes events as the human transcript (one aligned line each) or as JSON lines.
public enum TranscriptFormatter {
    /// The event column: the longest event name and a space.
    static let nameWidth = (EventName.allCases.map(\.rawValue.count).max() ?? 28) + 1

    /// `+00:00:01.000  device  onMessageSent               ids=m-1,m-2  count=2`
    public static func line(_ event: Event) -> String {
        let side = event.side.rawValue.padding(7)
        let name = event.name.padding(nameWidth)
        let fields = fieldsText(event)
        return "\(DurationText.stamp(event.at))  \(side)  \(fields.isEmpty ? event.name : name + fields)"
    }

    /// The event name and its fields on one line, without the time.
    public static func summary(_ event: Event) -> String {
        let fields = fieldsText(event)
        return fields.isEmpty ? event.name : "\(event.name) \(fields)"
    }

    static func fieldsText(_ event: Event) -> String {
        event.fields.map { "\($0.name)=\(humanValue($0.value))" }.joined(separator: "  ")
    }

    /// Long tokens are shortened for people; JSON keeps them whole.
    static func humanValue(_ value: FieldValue) -> String {
        if case .string(let text) = value {
            if text.count >= 100, TokenFactory.isWellFormed(text) { return TokenText.short(text) }
            return text.contains(" ") || text.isEmpty ? "\"\(text)\"" : text
        }
        return value.text
    }

    /// `{"at":MS,"side":"device","event":NAME,...fields}`; with `seq`, the control
    /// API's sequence number first.
    public static func json(_ event: Event, seq: Int64? = nil) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        appendJSON(event, seq: seq, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `json(event, seq:)` as UTF-8, added to `out` (for a log written in batches).
    public static func appendJSON(_ event: Event, seq: Int64? = nil, to out: inout [UInt8]) {
        if let seq {
            out += #"{"seq":"#.utf8
            JSONText.appendInt(seq, to: &out)
            out += #","at":"#.utf8
        } else {
            out += #"{"at":"#.utf8
        }
        JSONText.appendInt(event.at, to: &out)
        out += #","side":"#.utf8
        JSONText.appendString(event.side.rawValue, to: &out)
        out += #","event":"#.utf8
        JSONText.appendString(event.name, to: &out)
        for field in event.fields {
            out.append(UInt8(ascii: ","))
            JSONText.appendString(field.name, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONText.append(field.value, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A check result as a transcript line.
    public static func checkLine(_ check: CheckResult) -> String {
        let mark = check.passed ? "ok  " : "FAIL"
        let what = check.expectation.label(negated: check.negated)
        var line = "\(DurationText.stamp(check.step.at))  \("check".padding(7))  \(mark) \(what)"
        if let detail = check.detail { line += "\n" + String(repeating: " ", count: 24) + detail }
        return line
    }

    /// The whole transcript as JSON lines: events, and each check where it was judged
    /// as `expectationHeld` or `expectationFailed` (side `check`).
    public static func jsonLines(_ result: ReplayResult) -> [String] {
        inOrder(result, event: { json($0) }, check: { json($0.event(at: $0.step.at)) })
    }

    /// The whole human transcript: events with check results interleaved.
    public static func human(_ result: ReplayResult) -> [String] {
        inOrder(result, event: line, check: checkLine)
    }

    /// Events and checks in the order they happened, each written by its writer.
    static func inOrder(
        _ result: ReplayResult, event writeEvent: (Event) -> String, check writeCheck: (CheckResult) -> String
    ) -> [String] {
        var lines: [String] = []
        var next = 0
        for (index, event) in result.events.enumerated() {
            while next < result.checks.count, result.checkPositions[next] <= index {
                lines.append(writeCheck(result.checks[next]))
                next += 1
            }
            lines.append(writeEvent(event))
        }
        lines += result.checks[next...].map(writeCheck)
        return lines
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
