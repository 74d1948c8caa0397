import Foundation
import TestSupport
import XCTest

/// The rendered view of a note in a real terminal: a table (with CJK cells lined up), a task
/// list and a code box laid out from the parse tree; the view and the editor swapping; a resize
/// re-wrapping; a club photo drawn inside the note and opening in the viewer; a web link opened
/// with `xdg-open` only after asking.
final class NoteViewEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    var notes: URL { app.club.appendingPathComponent("byteclub") }

    static let note = """
        # Desk swap

        The plan for the swap, in words long enough that a narrow terminal has to wrap them onto more rows.

        - [ ] buy glue
        - [x] file taxes

        | Name | Score |
        |:-----|------:|
        | 山田 | 7 |
        | ann | 12 |

        ```swift
        let x = 1
        ```
        """

    /// Writes `text` as `name` in the club, refreshes, filters to it and presses `v`.
    func openRendered(_ tmux: TmuxSession, name: String, text: String) throws {
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
        try tmux.type("v")
        tmux.waitFor("Rendered view")
    }

    func testTheViewShowsATableATaskListAndACodeBoxAndSwapsWithTheEditor() throws {
        let tmux = try app.launch()
        try openRendered(tmux, name: "Desk swap", text: Self.note)
        // The table's cells line up by cell width: 山田 takes four columns, as "Name" does; the
        // heading is underlined.
        let screen = tmux.waitFor(all: ["╰───────────╯", "┌──────┬───────┐", "│ Name │ Score │", "│ 山田 │     7 │", "│ ann  │    12 │",
                                        "☐ buy glue", "☑ file taxes", "╭─ swift ───╮", "│ let x = 1 │", "━━━━━━━━━"])
        XCTAssertFalse(screen.contains("| Name |"), "no Markdown source in the view: \(screen)")
        XCTAssertFalse(screen.contains("- [ ]"), screen)

        // `e` goes to the editor (the source), Alt-V back to the view.
        try tmux.type("e")
        tmux.waitFor("| 山田 | 7 |")
        try tmux.press("M-v")
        tmux.waitFor("│ 山田 │     7 │")

        // A narrower terminal wraps the paragraph onto more rows.
        let before = tmux.capture().split(separator: "\n").filter { $0.contains("The plan for the swap") || $0.contains("onto more rows") }.count
        XCTAssertEqual(before, 1, "one row at 120 columns")
        try tmux.resize(width: 60, height: 36)
        let narrow = tmux.waitFor("the paragraph wrapped") { screen in
            let rows = screen.split(separator: "\n")
            return rows.contains { $0.contains("The plan for the swap") && !$0.contains("onto more rows") }
                && rows.contains { $0.contains("onto more rows.") && !$0.contains("The plan") }
                && screen.contains("│ 山田 │     7 │")
        }

        // Esc goes back to the editor (the view was opened from it), Esc again to the list.
        try tmux.press("Escape")
        tmux.waitFor("| 山田 | 7 |")
        try tmux.press("Escape")
        tmux.waitFor("the list again") { !$0.contains("| 山田 | 7 |") && !$0.contains("Rendered view") && $0.contains("Desk swap") }
    }

    func testAClubPhotoIsDrawnInTheNoteAndOpensInTheViewer() throws {
        let tmux = try app.launch()
        try openRendered(tmux, name: "Photo note", text: "Look at this:\n\n![my desk at night](photos/desk-at-night.jpg)\n\nand ![far](https://example.com/x.jpg)")
        // The stand-in row goes once the photo is drawn in cells (tmux has no pixel mode here).
        let screen = tmux.waitFor("the photo drawn") { screen in
            !screen.contains("▣ desk-at-night.jpg") && screen.contains("my desk at night") && screen.contains("[far]")
        }
        let rows = screen.split(separator: "\n")
        let caption = try XCTUnwrap(rows.firstIndex { $0.contains("my desk at night") })
        let slot = rows[(caption - 3)..<caption]
        XCTAssertTrue(slot.allSatisfy { $0.trimmingCharacters(in: .whitespaces).count > 10 }, "the slot rows hold the picture: \(screen)")
        XCTAssertTrue(screen.contains("[far]"), "a picture from another host shows only its alt text: \(screen)")

        // Tab picks the photo; Enter opens it in the viewer.
        try tmux.press("Tab")
        try tmux.press("Enter")
        tmux.waitFor("Esc close") { $0.contains("desk-at-night.jpg") && $0.contains("+- zoom") }
        try tmux.press("Escape")
        tmux.waitFor("Rendered view")
    }

    func testAWebLinkOpensWithXdgOpenOnlyAfterAYes() throws {
        let bin = app.base.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let opened = app.base.appendingPathComponent("opened.txt")
        let script = bin.appendingPathComponent("xdg-open")
        try "#!/bin/sh\nprintf '%s\\n' \"$1\" >> '\(opened.path)'\n".write(to: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let tmux = try app.launch(environment: ["PATH": bin.path + ":/usr/bin:/bin"])
        try openRendered(tmux, name: "Links note", text: "See [the site](https://example.com/page?a=1) for more.")
        tmux.waitFor("the site ⟨https://example.com/page?a=1⟩")

        try tmux.press("Tab")
        try tmux.press("Enter")
        tmux.waitFor("Open in the browser?")
        // Cancel is the default: Enter on a reflex opens nothing.
        try tmux.press("Enter")
        tmux.waitFor("the question gone") { !$0.contains("Open in the browser?") }
        XCTAssertNil(AppHarness.text(opened))

        try tmux.press("Enter")
        tmux.waitFor("Open in the browser?")
        try tmux.press("Left")
        try tmux.press("Enter")
        tmux.waitFor("Opened https://example.com/page?a=1")
        AppHarness.eventually("xdg-open ran with the address") { AppHarness.text(opened) == "https://example.com/page?a=1\n" }
    }
}
