import FCMEngine
import Foundation
import Testing

/// The app server's report card on the command line: `replay --report` and `exec
/// --report` of one profile agree, `--fail-on` decides the status, and `exec` refuses
/// an option it does not know instead of running it.
@Suite("The report card on the command line")
struct ReportCardCLITests {
    static func file(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("fcm-\(UUID().uuidString)-\(name)").path
    }

    static let profile = CLI.profiles.appendingPathComponent("report-card.yaml").path

    @Test func aReplayedProfileGivesTheReportOfItsLiveRun() throws {
        let replayed = Self.file("replay.json")
        let replay = try CLI.run(["replay", Self.profile, "--report", replayed])
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(replay.stderr.contains("app server report: 1 error, 1 warning"), "\(replay.stderr)")
        let live = Self.file("live.json")
        let exec = try CLI.run(["exec", "--profile", Self.profile, "--report", live, "--", "sleep", "4.5"])
        #expect(exec.status == 0, "\(exec.stderr)")
        let replayJSON = try String(contentsOfFile: replayed, encoding: .utf8)
        #expect(replayJSON.contains("\"rule\":\"collapse-key-limit\""))
        #expect(replayJSON == (try String(contentsOfFile: live, encoding: .utf8)))
    }

    @Test func failOnMakesAFindingFailTheRunAndJUnitHasATestCasePerRule() throws {
        let junit = Self.file("report.xml")
        let warned = try CLI.run(["replay", Self.profile, "--report-junit", junit, "--fail-on", "warning"])
        #expect(warned.status == 1)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == ReportRule.allCases.count)
        #expect(xml.contains("<failure type=\"warning\""))
        let wrong = try CLI.run(["replay", Self.profile, "--fail-on", "warnings"])
        #expect(wrong.status == 64)
        #expect(
            wrong.stderr.contains("--fail-on takes error, warning or note, not \"warnings\"; did you mean warning?"))
        // Without a report option, replay says nothing of it.
        let plain = try CLI.run(["replay", Self.profile])
        #expect(!plain.stderr.contains("app server report") && !plain.stdout.contains("app server report"))
    }

    @Test func aReportFileThatCannotBeWrittenExitsTwoAsTheGuideSays() throws {
        for command in [
            ["exec", "--report", "/nonexistent/r.json", "--", "true"],
            ["replay", Self.profile, "--report", "/nonexistent/r.json"],
        ] {
            let outcome = try CLI.run(command)
            #expect(outcome.status == 2, "\(command)")
            #expect(
                outcome.stderr.contains(
                    "cannot write the report to /nonexistent/r.json: there is no folder /nonexistent"))
        }
    }

    @Test func execWithNothingAfterTheDashesSaysSoWithExecsUsage() throws {
        let outcome = try CLI.run(["exec", "--"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("name the command to run after --"))
        #expect(outcome.stderr.contains("Usage: fcm-device exec"), "\(outcome.stderr)")
    }

    @Test func execRefusesAnOptionItDoesNotKnowInsteadOfRunningIt() throws {
        let outcome = try CLI.run(["exec", "--reprot", "x.json", "--", "true"])
        #expect(outcome.status == 64)
        #expect(outcome.stderr.contains("exec has no option --reprot; did you mean --report?"), "\(outcome.stderr)")
        let unknown = try CLI.run(["exec", "--zzz", "--", "true"])
        #expect(unknown.stderr.contains("exec has no option --zzz. The command to run goes after --"))
    }

    @Test func execPrintsNoReportForACleanRun() throws {
        let outcome = try CLI.run(["exec", "--fail-on", "note", "--", "true"])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(!outcome.stderr.contains("app server report"))
    }
}
