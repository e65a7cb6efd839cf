import FCMEngine

/// The report card as JUnit XML (`--report-junit`), for a CI's test view: a file
/// format, written beside the engine rather than in it.
extension AppServerReport {
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

    private static func escaped(_ text: String) -> String {
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
