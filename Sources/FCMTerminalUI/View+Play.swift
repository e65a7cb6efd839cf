import FCMEngine
import FCMProfiles

/// What play mode adds to the screen: the position in the header and the caption
/// above the status line.
extension View {
    /// The caption's most rows: three on a small screen, five on a tall one (a
    /// profile's description and a failed expectation's detail run long).
    static func captionRows(height: Int) -> Int { height >= 40 ? 5 : 3 }

    /// `step 7/31  +00:02:05  ▶ 10×` in play mode, `forked at 7/31  +00:02:05` after a
    /// fork; nil in a live session.
    static func playPosition(_ model: TUIModel) -> String? {
        if let play = model.play { return play.position }
        guard let fork = model.fork else { return nil }
        let clock = String(DurationText.stamp(model.now).dropLast(4))
        return "forked at step \(fork.steps.count)/\(fork.total)  \(clock)"
    }

    /// The current step's note (the description before the first step), or, once
    /// every step has played, the last one's above the summary; nothing outside play
    /// mode.
    static func captionLines(_ model: TUIModel, width: Int, height: Int) -> [Row] {
        let captionRows = captionRows(height: height)
        guard let play = model.play else { return [] }
        if let summary = play.summary {
            let failed = play.playback.checks.contains { !$0.passed }
            let end = TextWidth.wrap(summary, width: width - 2, maxLines: captionRows).map {
                Row(text: $0, style: failed ? .error : .ok)
            }
            // The last step's note (a tour's closing words) stays above the end line.
            guard let note = play.playback.currentStep?.note, end.count < captionRows else { return end }
            return TextWidth.wrap("▸ " + note, width: width - 2, maxLines: captionRows - end.count).map {
                Row(text: $0, style: .accent)
            } + end
        }
        if let caption = play.playback.caption {
            return TextWidth.wrap("▸ " + caption, width: width - 2, maxLines: captionRows).map {
                Row(text: $0, style: .accent)
            }
        }
        // A step without a note: an expectation says how it fared; others show the
        // step as the profile writes it.
        guard let step = play.playback.currentStep else { return [] }
        guard let check = play.playback.checks.last(where: { $0.step.location == step.location }) else {
            let text = "▸ " + (ProfileWriter.step(step.action) ?? "(a step with no note)")
            return TextWidth.wrap(text, width: width - 2, maxLines: captionRows).map { Row(text: $0, style: .dim) }
        }
        let text =
            check.passed
            ? "✔ held: \(check.expectation.summary)"
            : "✘ failed: \(check.expectation.summary): \(check.detail ?? "")"
        return TextWidth.wrap(text, width: width - 2, maxLines: captionRows).map {
            Row(text: $0, style: check.passed ? .ok : .error)
        }
    }
}
