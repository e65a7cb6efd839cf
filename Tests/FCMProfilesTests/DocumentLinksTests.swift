import Foundation
import Testing

/// Every relative link in README.md and docs/*.md resolves: the file it names exists, and
/// an `#anchor` names a heading of the document it points to, by GitHub's slug.
@Suite("Document links")
struct DocumentLinksTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "../.."
    ).standardized

    /// README.md, then every guide in docs/.
    static var documents: [URL] {
        let docs = root.appendingPathComponent("docs")
        let files = (try? FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil)) ?? []
        let guides = files.filter { $0.pathExtension == "md" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
        return [root.appendingPathComponent("README.md")] + guides
    }

    struct Link: Equatable {
        var line: Int
        var target: String
    }

    /// The lines of a markdown text with what is code blanked: fenced blocks whole, and
    /// inline code spans, so that `[a](b)` inside code is no link.
    static func prose(_ text: String) -> [String] {
        var fenced = false
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            if line.drop(while: { $0 == " " }).hasPrefix("```") {
                fenced.toggle()
                return ""
            }
            return fenced ? "" : String(line).replacing(/`[^`]*`/, with: "")
        }
    }

    /// Every `[text](target)` of a markdown text whose target is relative (not http:,
    /// https: or mailto:), with its line number from 1.
    static func relativeLinks(in text: String) -> [Link] {
        prose(text).enumerated().flatMap { index, line in
            line.matches(of: /\[[^\]]*\]\(([^)\s]+)\)/).map { Link(line: index + 1, target: String($0.output.1)) }
        }.filter { link in
            !["http:", "https:", "mailto:"].contains { link.target.lowercased().hasPrefix($0) }
        }
    }

    /// GitHub's anchor for a heading: lowercased, every character but letters, digits,
    /// spaces, hyphens and underscores removed, spaces made hyphens.
    static func slug(_ heading: String) -> String {
        String(
            heading.lowercased().filter { $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" || $0 == "_" }
                .map { $0 == " " ? "-" : $0 })
    }

    /// The anchors of a markdown text's headings (a repeated one also as `-1`, `-2`, …).
    static func anchors(in text: String) -> Set<String> {
        var anchors = Set<String>()
        var fenced = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.drop(while: { $0 == " " }).hasPrefix("```") { fenced.toggle() }
            guard !fenced, let heading = line.wholeMatch(of: /#{1,6} +(.*?)[ #]*/) else { continue }
            let base = slug(String(heading.output.1))
            var anchor = base
            var repeats = 0
            while anchors.contains(anchor) {
                repeats += 1
                anchor = "\(base)-\(repeats)"
            }
            anchors.insert(anchor)
        }
        return anchors
    }

    static func relative(_ url: URL) -> String {
        let path = url.standardized.path
        return path.hasPrefix(root.path + "/") ? String(path.dropFirst(root.path.count + 1)) : path
    }

    @Test func everyRelativeLinkInTheReadmeAndTheGuidesResolves() throws {
        let documents = Self.documents
        #expect(documents.count > 1, "no guides found in \(Self.root.path)/docs")
        var texts: [String: String] = [:]
        func text(of url: URL) throws -> String {
            if let known = texts[url.path] { return known }
            let read = try String(contentsOf: url, encoding: .utf8)
            texts[url.path] = read
            return read
        }
        var broken: [String] = []
        for document in documents {
            let source = try text(of: document)
            for link in Self.relativeLinks(in: source) {
                let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let path = String(parts[0])
                let anchor = parts.count > 1 ? String(parts[1]) : nil
                let target =
                    path.isEmpty
                    ? document : document.deletingLastPathComponent().appendingPathComponent(path).standardized
                let place = "\(Self.relative(document)):\(link.line): \(link.target)"
                var isDirectory: ObjCBool = false
                if !FileManager.default.fileExists(atPath: target.path, isDirectory: &isDirectory) {
                    broken.append("\(place) — \(Self.relative(target)) does not exist")
                } else if let anchor {
                    guard !isDirectory.boolValue, target.pathExtension == "md" else {
                        broken.append("\(place) — \(Self.relative(target)) is not a markdown document")
                        continue
                    }
                    let targetText = try text(of: target)
                    if !Self.anchors(in: targetText).contains(anchor) {
                        broken.append("\(place) — \(Self.relative(target)) has no heading whose anchor is #\(anchor)")
                    }
                }
            }
        }
        #expect(broken.isEmpty, "broken links:\n\(broken.joined(separator: "\n"))")
    }

    @Test func linksAreReadOutsideCodeOnly() {
        let text = """
            See [the guide](docs/tui.md#play-mode), [a site](https://example.com) and [`exec`](#exec).
            `[not](a-link.md)` is code.
            ```
            [nor](this.md)
            ```
            [mail](mailto:someone@example.com) [folder](examples/pytest/)
            """
        #expect(
            Self.relativeLinks(in: text) == [
                Link(line: 1, target: "docs/tui.md#play-mode"), Link(line: 1, target: "#exec"),
                Link(line: 6, target: "examples/pytest/"),
            ])
    }

    @Test func headingsAreAnchoredAsGitHubAnchorsThem() {
        #expect(Self.slug("XMPP (CCS)") == "xmpp-ccs")
        #expect(Self.slug("`fcm-device exec`") == "fcm-device-exec")
        #expect(Self.slug("What works today, and what does not yet") == "what-works-today-and-what-does-not-yet")
        #expect(Self.slug("The control API (for test suites)") == "the-control-api-for-test-suites")
        let text = """
            # Title
            ## Steps
            ```yaml
            # not a heading
            ```
            ## Steps
            ### Closed ###
            """
        #expect(Self.anchors(in: text) == ["title", "steps", "steps-1", "closed"])
    }
}
