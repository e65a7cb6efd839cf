import FCMTerminalUI
import Foundation
import Testing

/// Whole-screen text snapshots, one file per screen in Snapshots/. A snapshot is
/// written only when SNAPSHOT_RECORD=1 is set, and that run fails on purpose, so a
/// missing or changed screen never passes unseen.
enum Snapshot {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Snapshots")

    /// The letter each style is recorded as, below the text of a styled snapshot.
    static let styleLetters: [CellStyle: Character] = [
        .normal: ".", .dim: "d", .bold: "b", .title: "T", .header: "h", .error: "E", .ok: "o", .accent: "a",
        .selected: "s", .warning: "w", .key: "k", .selectedError: "R", .selectedOK: "G", .selectedWarning: "Y",
    ]

    /// The screen's styles, a letter a cell (wide characters count once).
    static func styles(_ grid: Grid) -> String {
        (0..<grid.height).map { row in
            String((0..<grid.width).map { styleLetters[grid[$0, row].style] ?? "?" })
        }.joined(separator: "\n")
    }

    /// The model's screen at 80x24 and 200x50, as `NAME-WIDTHxHEIGHT` snapshots; with
    /// `withStyles`, the style of every cell is recorded below the text (colour and
    /// emphasis are part of the screen).
    static func checkSizes(
        _ model: TUIModel, _ name: String, withStyles: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (width, height) in [(80, 24), (200, 50)] {
            check(
                View.render(model, width: width, height: height), "\(name)-\(width)x\(height)", withStyles: withStyles,
                sourceLocation: sourceLocation)
        }
    }

    static func check(
        _ grid: Grid, _ name: String, withStyles: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let file = directory.appendingPathComponent("\(name).txt")
        let actual = grid.text + "\n" + (withStyles ? "── styles ──\n" + styles(grid) + "\n" : "")
        if ProcessInfo.processInfo.environment["SNAPSHOT_RECORD"] == "1" {
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try? actual.write(to: file, atomically: true, encoding: .utf8)
            Issue.record("recorded snapshot \(name); run again without SNAPSHOT_RECORD", sourceLocation: sourceLocation)
            return
        }
        guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
            Issue.record(
                "no snapshot \(name).txt; record it with SNAPSHOT_RECORD=1 swift test. The screen:\n\(actual)",
                sourceLocation: sourceLocation)
            return
        }
        guard expected != actual else { return }
        let want = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let got = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let row =
            zip(want, got).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(want.count, got.count)
        Issue.record(
            """
            snapshot \(name) differs first at row \(row + 1)
            expected: \(row < want.count ? String(want[row]) : "(nothing)")
            actual:   \(row < got.count ? String(got[row]) : "(nothing)")
            The whole screen:
            \(actual)
            """, sourceLocation: sourceLocation)
    }
}
