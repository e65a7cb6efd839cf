import FCMJSON

/// The report's three forms, written in one place: JSON (`--report`, `GET report`),
/// JUnit XML (`--report-junit`) and lines for a person (`exec`'s stderr, the log).
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

    /// A JUnit XML test suite, a test case per rule, that agrees with the exit status: a
    /// finding is a failure exactly when it fails the run (`failingAt`, `--fail-on`);
    /// below that it is a passed case carrying its text (`system-out`), so a CI's test
    /// view is red only when the job is.
    public func junit(failingAt threshold: ReportSeverity?) -> String {
        let fails = { (finding: ReportFinding) in threshold.map { finding.severity <= $0 } ?? false }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuite name=\"fcm-device app server report\" tests=\"\(ReportRule.allCases.count)\""
        xml += " failures=\"\(findings.count(where: fails))\">\n"
        for rule in ReportRule.allCases {
            xml += "  <testcase classname=\"fcm-device.report\" name=\"\(rule.rawValue)\""
            guard let finding = findings.first(where: { $0.rule == rule }) else {
                xml += "/>\n"
                continue
            }
            let message = Self.escaped("\(rule.severity.rawValue): \(finding.count) × \(rule.message)")
            let evidence = Self.escaped((finding.examples.map(\.line) + ["see " + rule.source]).joined(separator: "\n"))
            if fails(finding) {
                xml += ">\n    <failure type=\"\(rule.severity.rawValue)\" message=\"\(message)\">"
                xml += evidence + "</failure>\n  </testcase>\n"
            } else {
                xml += ">\n    <system-out>" + message + "\n" + evidence + "</system-out>\n  </testcase>\n"
            }
        }
        return xml + "</testsuite>\n"
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
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
