import ArgumentParser
import FCMEngine
import FCMProfiles
import FCMSession
import Foundation

/// `fcm-device replay P [--json]`: runs a profile on a virtual clock.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a device profile headless on a virtual clock and print its transcript.",
        discussion: """
            Exit status: 0 when every expect step holds, 1 when one fails (saying which and what \
            happened instead), 2 when the profile is invalid (file:line:column: what is wrong).
            Without a profile, the built-in default device is replayed.
            """
    )

    @Argument(help: "The profile (YAML) to replay; the built-in default device when left out.")
    var profile: String?

    @Flag(help: "Print events as JSON lines instead of the human transcript.")
    var json = false

    @OptionGroup(title: "App server report card (docs/report.md)") var report: ReportOptions

    func run() throws {
        let loaded = try ProfileLoading.load(profile)
        let result = Replayer.run(loaded)
        var output = StandardOutput()
        if json {
            for line in TranscriptFormatter.jsonLines(result) { output.write(line + "\n") }
            for failure in result.failures {
                Diagnostics.write(
                    "\(failure.step.location): expect failed: \(failure.expectation.summary); \(failure.detail ?? "")")
            }
        } else {
            for line in TranscriptFormatter.human(result) { output.write(line + "\n") }
            let passed = result.checks.count - result.failures.count
            output.write(
                "\n\(loaded.file): \(result.events.count) events, \(result.checks.count) "
                    + (result.checks.count == 1 ? "expectation" : "expectations") + ", \(passed) held\n"
            )
            for failure in result.failures {
                output.write("\(failure.step.location): expect failed: \(failure.expectation.summary)\n")
                if let detail = failure.detail { output.write("  \(detail)\n") }
            }
        }
        output.flush()
        if report.asked {
            var card = ReportCard()
            for event in result.log { card.observe(event) }
            for line in card.runReport.lines { Diagnostics.write(line) }
            do {
                try report.write(card.runReport)
            } catch {
                Diagnostics.write("\(error)")
                throw ExitCode(2)
            }
            if result.passed, report.fails(card.runReport) { throw ExitCode(1) }
        }
        if !result.passed { throw ExitCode(1) }
    }
}

/// Loads a profile or the built-in default; an invalid one exits with status 2.
enum ProfileLoading {
    /// Loads a profile (or the built-in one); without a seed in it, the seed comes
    /// from the system's CSPRNG.
    static func load(_ path: String?) throws -> Profile {
        guard let path else { return DefaultProfile.load().seeded() }
        do {
            return try ProfileParser.load(path: path).seeded()
        } catch {
            Diagnostics.write(error.description)
            throw ExitCode(2)
        }
    }
}

/// Messages for people on standard error.
/// Buffered standard output: long transcripts are written in large pieces.
struct StandardOutput {
    private var buffer = ""

    mutating func write(_ text: String) {
        buffer += text
        if buffer.utf8.count > 64 * 1024 { flush() }
    }

    mutating func flush() {
        FileHandle.standardOutput.write(Data(buffer.utf8))
        buffer = ""
    }
}
