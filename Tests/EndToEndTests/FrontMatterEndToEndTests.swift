import Foundation
import TestSupport
import XCTest

/// A note's YAML front matter in a real terminal: the rendered view draws it as a properties
/// line above the note, never as a `---` rule and a heading nor `tags:` as body text; the editor
/// keeps it as written; front matter that does not parse is shown as it is under a warning, and
/// a save of an edited body leaves its bytes as they were.
final class FrontMatterEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    var notes: URL { app.club.appendingPathComponent("byteclub") }

    /// Writes `text` as `name` in the club, refreshes, filters to it and opens it in the editor.
    func openInEditor(_ tmux: TmuxSession, name: String, text: String) throws {
        tmux.waitFor("Welcome to Byte Club")
        try text.write(to: notes.appendingPathComponent(name + ".md"), atomically: true, encoding: .utf8)
        try tmux.type("r")
        tmux.waitFor(name)
        try tmux.type("/")
        try tmux.type(name)
        try tmux.press("Enter")
        tmux.waitFor("the filter showing only \(name)") { screen in
            screen.split(separator: "\n").contains { $0.contains("/ \(name)") && $0.contains("1 of") }
        }
        try tmux.press("Enter")
    }

    func testTheRenderedViewShowsPropertiesAndTheEditorKeepsTheFrontMatter() throws {
        let tmux = try app.launch()
        let text = "---\ntags: [trip, boat]\naliases: [Sailing]\n---\n# Day one\nWind from the west.\n"
        try openInEditor(tmux, name: "Day one", text: text)
        tmux.waitFor(all: ["tags: [trip, boat]", "aliases: [Sailing]", "# Day one"])
        try tmux.press("M-v")
        let screen = tmux.waitFor(all: ["Rendered view", "tags: trip, boat · aliases: Sailing", "Wind from the west."])
        let rows = screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertFalse(rows.contains { $0.contains("tags: [") || $0.contains("aliases: [") }, "no front matter as body text: \(screen)")
        XCTAssertFalse(rows.contains { $0.contains("───────") && !$0.contains("│") && !$0.contains("╭") && !$0.contains("╰") && !$0.contains("┌") }, "no rule: \(screen)")
        XCTAssertFalse(rows.contains { $0.hasSuffix("━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━") }, "no heading made of the front matter: \(screen)")

        // Back in the editor the front matter is there as written.
        try tmux.press("Escape")
        tmux.waitFor(all: ["tags: [trip, boat]", "aliases: [Sailing]"])
    }

    func testFrontMatterThatDoesNotParseIsShownUnderAWarningAndSurvivesASave() throws {
        let tmux = try app.launch()
        let matter = "---\ntags: [trip, boat\ntitle: \"open\n---\n"
        try openInEditor(tmux, name: "Broken", text: matter + "Body line\n")
        tmux.waitFor(all: ["tags: [trip, boat", "Body line"])
        try tmux.press("M-v")
        tmux.waitFor(all: ["Front matter does not parse: ", "tags: [trip, boat", "Body line"])

        // Edit the body in the editor and save: the front matter's bytes are as they were.
        try tmux.press("Escape")
        tmux.waitFor("Body line")
        try tmux.press("C-End")
        try tmux.type("More")
        tmux.waitFor("[+]")
        try tmux.press("C-s")
        tmux.waitFor("Saved")
        AppHarness.eventually("the saved note on the server") {
            (AppHarness.text(self.notes.appendingPathComponent("Broken.md")) ?? "").contains("More")
        }
        let saved = try XCTUnwrap(AppHarness.text(notes.appendingPathComponent("Broken.md")))
        XCTAssertTrue(saved.hasPrefix(matter + "Body line\n"), saved)
    }
}
