import ArgumentParser
import FCMEngine
import FCMJSON
import Foundation

/// The app server's report card, as `exec` and `replay` write it (docs/report.md).
struct ReportOptions: ParsableArguments {
    @Option(
        name: .customLong("report"),
        help: ArgumentHelp("Write the app server's report card as JSON to this file.", valueName: "file"))
    var jsonFile: String?

    @Option(
        name: .customLong("report-junit"),
        help: ArgumentHelp("Write the report card as JUnit XML (a test case per rule) to this file.", valueName: "file")
    )
    var junitFile: String?

    @Option(
        name: .customLong("fail-on"),
        help: ArgumentHelp(
            "Exit 1 when the report has a finding this bad or worse: error, warning or note.", valueName: "severity"))
    var failOn: String?

    func validate() throws {
        // A file that cannot be written is named before a long suite runs, not after.
        for path in [jsonFile, junitFile].compactMap({ $0 }) {
            let folder = (path as NSString).deletingLastPathComponent
            let parent = folder.isEmpty ? "." : folder
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder), isFolder.boolValue else {
                throw Self.unwritable("cannot write the report to \(path): there is no folder \(parent)")
            }
            guard FileManager.default.isWritableFile(atPath: parent) else {
                throw Self.unwritable("cannot write the report to \(path): the folder \(parent) is not writable")
            }
        }
        guard let failOn else { return }
        let names = ReportSeverity.allCases.map(\.rawValue)
        if ReportSeverity(rawValue: failOn) == nil {
            throw ValidationError(
                "--fail-on takes error, warning or note, not \"\(failOn)\""
                    + CloseNames.suggestion(among: names, to: failOn))
        }
    }

    /// Whether any option asks for the report.
    var asked: Bool { jsonFile != nil || junitFile != nil || failOn != nil }

    /// Writes the files asked for; a file that cannot be written is named.
    func write(_ report: AppServerReport) throws {
        if let jsonFile { try Self.save(report.json.json + "\n", to: jsonFile) }
        if let junitFile {
            try Self.save(report.junit(failingAt: failOn.flatMap(ReportSeverity.init(rawValue:))), to: junitFile)
        }
    }

    static func save(_ text: String, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw unwritable("cannot write the report to \(path)")
        }
    }

    /// A report file that cannot be written: said on stderr, and exit status 2 (as
    /// docs/report.md says), whether found before the suite or after it.
    static func unwritable(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        return ExitCode(2)
    }

    /// Whether the report fails the run (`--fail-on`).
    func fails(_ report: AppServerReport) -> Bool {
        guard let failOn, let severity = ReportSeverity(rawValue: failOn) else { return false }
        return report.has(atLeast: severity)
    }
}
