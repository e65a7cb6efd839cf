import FCMEngine

/// The app server's report card overlay: each finding, what Google asks, and its
/// evidence, one selectable line each.
extension View {
    static func drawReport(selected: Int, _ model: TUIModel, into grid: inout Grid) {
        let report = model.appServerReport
        let inner = panel(
            width: 120, height: grid.height - 2, title: "App server report · \(report.summary)", into: &grid)
        let width = inner.width - 2
        guard !report.isClean else {
            let text =
                report.requests == 0 && report.messages == 0
                ? "Nothing to judge yet: nothing has been sent to the device."
                : "Nothing to report: every practice the card judges was kept ("
                    + counted(report.requests, "app-server request") + ", " + counted(report.messages, "message")
                    + " read; a profile's pushes are judged as an app server's)."
            // Wrapped, not cut: the counts say why the card is empty.
            for (offset, line) in TextWidth.wrap(text, width: width, maxLines: 4).enumerated() {
                grid.put(line, x: inner.x + 1, y: inner.y + offset, limit: width)
            }
            grid.put(
                TextWidth.fit("docs/report.md lists the rules · R or Esc close", width: width), x: inner.x + 1,
                y: inner.y + inner.height - 1, style: .dim, limit: width)
            return
        }
        // The lines, each with the evidence index it selects (nil: a finding's title).
        var lines: [(text: String, style: CellStyle, evidence: Int?)] = []
        var evidence = 0
        // Wrapped, not cut: a finding's words and its evidence are the point.
        func add(_ text: String, indent: Int, _ style: CellStyle, _ piece: Int?) {
            let pad = String(repeating: " ", count: indent)
            for part in TextWidth.wrap(text, width: max(10, width - indent), maxLines: 3) {
                lines.append((pad + part, style, piece))
            }
        }
        for finding in report.findings {
            let style: CellStyle = finding.severity == .note ? .dim : .bold
            lines.append(("\(finding.severity.rawValue) \(finding.rule.rawValue) ×\(finding.count)", style, nil))
            add(finding.rule.message, indent: 2, .dim, nil)
            for example in finding.examples {
                add(example.line, indent: 4, .normal, evidence)
                evidence += 1
            }
            if finding.count > finding.examples.count {
                lines.append(("    … and \(finding.count - finding.examples.count) more", .dim, nil))
            }
        }
        let rows = max(0, inner.height - 1)
        let selectedLine = lines.lastIndex { $0.evidence == selected } ?? 0
        let first = max(0, min(selectedLine - rows + 1, lines.count - rows))
        for (offset, line) in lines.dropFirst(first).prefix(rows).enumerated() {
            let y = inner.y + offset
            let chosen = line.evidence == selected
            grid.put(
                TextWidth.fit(line.text, width: width), x: inner.x + 1, y: y, style: chosen ? .selected : line.style)
            if chosen { grid.paint(x: inner.x + 1, y: y, count: width, style: .selected) }
        }
        grid.put(
            TextWidth.fit("↑↓ select evidence · Enter go to its event · R or Esc close", width: width),
            x: inner.x + 1, y: inner.y + inner.height - 1, style: .dim, limit: width)
    }

    /// `1 message`, `2 messages`.
    static func counted(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
}
