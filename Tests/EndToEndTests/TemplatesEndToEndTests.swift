import Foundation
import TestSupport
import XCTest

/// Templates in the app: with notes in the club's `templates/` folder, `n` asks which to start
/// from, fills the placeholders, and Enter on "Blank note" gives the blank note `n` always gave.
final class TemplatesEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    var notes: URL { app.club.appendingPathComponent("byteclub") }

    static func today() -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }

    func testNAsksForATemplateAndFillsItsPlaceholders() throws {
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")
        let templates = notes.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try Data("# {{title}}\nHeld {{date}} by {{author}}\n".utf8).write(to: templates.appendingPathComponent("Meeting.md"))

        try tmux.type("n")
        tmux.waitFor(all: ["New note from a template", "Blank note", "Meeting"])
        try tmux.press("Down")
        try tmux.press("Enter")
        tmux.waitFor("Title of the note from \"Meeting\"")
        try tmux.type("Monday sync")
        try tmux.press("Enter")
        tmux.waitFor(all: ["# Monday sync", "Held \(Self.today()) by "])
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Monday sync.md\"")
        let text = try XCTUnwrap(AppHarness.text(notes.appendingPathComponent("Monday sync.md")))
        XCTAssertNotNil(text.range(of: #"^# Monday sync\nHeld \d{4}-\d\d-\d\d by [^{}\n]+\n$"#, options: .regularExpression), text)

        // Enter on the first row: the blank note, its title waiting to be typed.
        try tmux.press("Escape")
        tmux.waitFor("Closed Monday sync.md")
        try tmux.type("n")
        tmux.waitFor("New note from a template")
        try tmux.press("Enter")
        tmux.waitFor("the chooser gone and a blank note") { !$0.contains("New note from a template") && $0.contains("Enter goes to the text") }
        try tmux.type("Blank one")
        tmux.waitFor("Title: Blank one")
    }

    /// Issue 53 §6: a note made with `n` from a template whose front matter says
    /// `tags: [meeting]` is tagged `meeting` in the club once saved: its row shows the tag, and
    /// `byteclub tag` says so.
    func testANoteFromATemplateWithTagsIsTaggedOnceSaved() throws {
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")
        let templates = notes.appendingPathComponent("templates")
        try FileManager.default.createDirectory(at: templates, withIntermediateDirectories: true)
        try Data("---\ntags: [meeting]\n---\n# {{title}}\n".utf8).write(to: templates.appendingPathComponent("Meeting.md"))

        try tmux.type("n")
        tmux.waitFor(all: ["New note from a template", "Blank note", "Meeting"])
        try tmux.press("Down")
        try tmux.press("Enter")
        tmux.waitFor("Title of the note from \"Meeting\"")
        try tmux.type("Weekly sync")
        try tmux.press("Enter")
        tmux.waitFor("# Weekly sync")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Weekly sync.md\"")
        XCTAssertEqual(AppHarness.text(notes.appendingPathComponent("Weekly sync.md")), "---\ntags: [meeting]\n---\n# Weekly sync\n")
        try tmux.press("Escape")
        tmux.waitFor("the note's row with its tag") { screen in
            screen.split(separator: "\n").contains { $0.contains("Weekly sync  #meeting") && !$0.contains("? help") }
        }
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
        let shown = try app.cli(["tag", "Weekly sync", "--data-dir", app.club.path])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertEqual(shown.stdout, "meeting\n")
    }
}
