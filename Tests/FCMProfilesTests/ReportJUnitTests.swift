import FCMEngine
import FCMProfiles
import Testing

/// The report card as JUnit XML: a case per rule, failing exactly as the run does.
@Suite("The report card's JUnit XML")
struct ReportJUnitTests {
    static func report(_ rule: ReportRule) -> AppServerReport {
        let evidence = ReportEvidence(at: 2_000, api: "legacy", subject: "m-1", detail: "sent to /fcm/send", event: 3)
        return AppServerReport(findings: [ReportFinding(rule: rule, count: 1, examples: [evidence])])
    }

    @Test("the report is written as JSON and as lines for a person, and a clean one as no lines")
    func theReportIsWrittenAsJSONAndLines() {
        let report = Self.report(.batchEndpoint)
        #expect(report.json.json.hasPrefix("{\"findings\":[{\"rule\":\"batch-endpoint\",\"severity\":\"error\""))
        #expect(report.lines.first == "app server report: 1 error (docs/report.md)")
        #expect(report.lines.contains("  +00:00:02.000 legacy m-1: sent to /fcm/send"))
        #expect(AppServerReport(findings: []).lines.isEmpty)
    }

    @Test("an error fails its case when the run fails on errors, and no other case")
    func anErrorFailsItsCase() {
        let junit = Self.report(.batchEndpoint).junit(failingAt: .error)
        #expect(junit.contains("tests=\"\(ReportRule.allCases.count)\" failures=\"1\""))
        #expect(junit.contains("<testcase classname=\"fcm-device.report\" name=\"batch-endpoint\">"))
        #expect(junit.contains("<failure type=\"error\""))
        #expect(junit.contains("sent to /fcm/send"))
        #expect(Self.report(.batchEndpoint).junit(failingAt: nil).contains("failures=\"0\""))
    }

    @Test("a note is a passed case carrying its text, unless the run fails on notes")
    func aNoteFailsOnlyWhenTheRunDoes() {
        let note = Self.report(.legacyHTTPAPI)
        let passed = note.junit(failingAt: nil)
        #expect(passed.contains("failures=\"0\""))
        #expect(passed.contains("<system-out>note: 1 ×") && !passed.contains("<failure"))
        #expect(!note.junit(failingAt: .warning).contains("<failure"))
        let failed = note.junit(failingAt: .note)
        #expect(failed.contains("failures=\"1\"") && failed.contains("<failure type=\"note\""))
    }

    @Test("text is escaped for XML")
    func textIsEscaped() {
        var report = Self.report(.batchEndpoint)
        report.findings[0].examples[0].detail = "<b>\"a\" & b</b>"
        let junit = report.junit(failingAt: .error)
        #expect(junit.contains("&lt;b&gt;&quot;a&quot; &amp; b&lt;/b&gt;"))
        #expect(!junit.contains("<b>"))
    }
}
