import Foundation
import TestSupport
import XCTest

/// A note's YAML front matter in a real terminal: the rendered view draws it as a properties
/// line above the note, never as a `---` rule and a heading nor `tags:` as body text; the editor
/// keeps it as written; front matter that does not parse is shown as it is under a warning (in
/// the view, and in the editor's banner), and a save of an edited body leaves its bytes as they were.
extension NoteViewEndToEndTests {
    func testFrontMatterIsAPropertiesLineInTheViewAndAsWrittenInTheEditor() throws {
        let tmux = try app.launch()
        try openRendered(tmux, name: "Day one", text: "---\ntags: [trip, boat]\naliases: [Sailing]\n---\n# Day one\nWind from the west.\n")
        let screen = tmux.waitFor(all: ["tags: trip, boat · aliases: Sailing", "Wind from the west."])
        let rows = screen.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertFalse(rows.contains { $0.contains("tags: [") || $0.contains("aliases: [") }, "no front matter as body text: \(screen)")
        XCTAssertFalse(screen.contains("────────────────────────────────────────"), "no rule made of the front matter: \(screen)")
        XCTAssertFalse(screen.contains("━━━━━━━━━━━━━━━━━━━━━━━━━━━━"), "no heading made of the front matter: \(screen)")

        // The editor has the front matter as written.
        try tmux.type("e")
        tmux.waitFor(all: ["tags: [trip, boat]", "aliases: [Sailing]", "# Day one"])
    }

    func testFrontMatterThatDoesNotParseIsShownUnderAWarningAndSurvivesASave() throws {
        let tmux = try app.launch()
        let matter = "---\ntags: [trip, boat\ntitle: \"open\n---\n"
        try openRendered(tmux, name: "Broken", text: matter + "Body line\n")
        tmux.waitFor(all: ["Front matter does not parse: ", "tags: [trip, boat", "Body line"])

        // Edit the body in the editor and save: the front matter's bytes are as they were.
        try tmux.type("e")
        tmux.waitFor("the editor, its banner saying so") { $0.contains("Body line") && $0.contains("Front matter does not parse (kept as written): ") }
        try tmux.press("C-End")
        try tmux.type("More")
        tmux.waitFor("[+]")
        try tmux.press("C-s")
        tmux.waitFor("Saved")
        let file = notes.appendingPathComponent("Broken.md")
        AppHarness.eventually("the saved note on the server") { (AppHarness.text(file) ?? "").contains("More") }
        let saved = try XCTUnwrap(AppHarness.text(file))
        XCTAssertTrue(saved.hasPrefix(matter + "Body line\n"), saved)
    }
}
