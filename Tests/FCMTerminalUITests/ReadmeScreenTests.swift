import FCMProfiles
import FCMTerminalUI
import Foundation
import Testing

/// The README's screenshot is the built-in device as a newcomer sees it after the
/// README's first steps (`b`, then `p` and Enter, then `t`): the screen is made here,
/// and the README must show it as it is (SNAPSHOT_RECORD=1 writes it there too).
@Suite("The README's screenshot")
struct ReadmeScreenTests {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md")
    static let opening = "`fcm-device replay` reproduces, and `?` lists every key. At 80x24:\n\n```\n"

    static func newcomersScreen() -> String {
        var model = TUIModel(profile: DefaultProfile.load())
        model.setNetworkSummary("CCS :5235 :5236 HTTP :8085")
        Scenes.press(&model, [.character("b"), .character("p"), .enter, .character("t")], from: 2_000)
        return View.render(model, width: 80, height: 24).text
    }

    @Test func theREADMEShowsTheBuiltInDeviceAsANewcomerSeesIt() throws {
        let screen = Self.newcomersScreen()
        #expect(screen.contains("Emulated Pixel"))
        #expect(screen.contains("notificationTapped"))
        let text = try String(contentsOf: Self.readme, encoding: .utf8)
        let start = try #require(text.range(of: Self.opening), "the README's screenshot block moved").upperBound
        let end = try #require(text.range(of: "\n```", range: start..<text.endIndex)).lowerBound
        if ProcessInfo.processInfo.environment["SNAPSHOT_RECORD"] == "1" {
            try (text[..<start] + screen + text[end...]).write(to: Self.readme, atomically: true, encoding: .utf8)
            Issue.record("wrote the README's screenshot; run again without SNAPSHOT_RECORD")
            return
        }
        #expect(String(text[start..<end]) == screen, "the README's screenshot drifted: SNAPSHOT_RECORD=1 swift test")
    }
}
