import FCMEngine
import FCMJSON

/// The report's forms as data: JSON (`--report`, `GET report`) and lines for a person
/// (`exec`'s stderr, the log), and its JUnit XML beside them (`AppServerReport+JUnit`):
/// forms for people and tools, beside the engine that judges.
extension AppServerReport {
    /// `{"findings": [{"rule", "severity", "count", "message", "source", "examples": […]}]}`.
    public var json: JSONValue {
        .members([
            "findings": .array(
                findings.map { finding in
                    .members([
                        "rule": .string(finding.rule.rawValue), "severity": .string(finding.severity.rawValue),
                        "count": .int(finding.count), "message": .string(finding.rule.message),
                        "source": .string(finding.rule.source),
                        "examples": .array(finding.examples.map(\.json)),
                    ])
                })
        ])
    }

    /// What a person reads: a line for the whole, then for each finding its rule and
    /// what Google asks, its evidence, and where Google says it. Empty when clean.
    public var lines: [String] {
        guard !isClean else { return [] }
        var lines = ["app server report: \(summary) (docs/report.md)"]
        for finding in findings {
            lines.append(
                "\(finding.severity.rawValue) \(finding.rule.rawValue) ×\(finding.count): \(finding.rule.message)")
            for example in finding.examples { lines.append("  " + example.line) }
            if finding.count > finding.examples.count {
                lines.append("  … and \(finding.count - finding.examples.count) more")
            }
            lines.append("  see " + finding.rule.source)
        }
        return lines
    }

}

extension ReportEvidence {
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [(key: "at", value: .string(DurationText.stamp(at)))]
        if let api { members.append((key: "api", value: .string(api))) }
        members.append((key: "subject", value: .string(subject)))
        members.append((key: "detail", value: .string(detail)))
        members.append((key: "event", value: .int(event)))
        return .object(JSONObject(members))
    }

    /// `+00:00:01.234 v1 abc…xyz: accepted; after refused NotRegistered at …`.
    public var line: String {
        DurationText.stamp(at) + (api.map { " " + $0 } ?? "") + (subject.isEmpty ? "" : " " + subject) + ": " + detail
    }
}
