import Foundation
import TestSupport
import XCTest

/// The writer's editor in a real terminal (tmux): Shift-arrow selection, the clipboard (OSC 52
/// into tmux's paste buffer), readline's Ctrl-W, Ctrl-C that never quits the editor, undo back
/// to the saved text, keys dropped while the screen is too small, find with every match
/// highlighted and its count, replace all then one undo, go to line, and list editing.
final class EditorEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    var notes: URL { app.club.appendingPathComponent("byteclub") }

    /// The saved note called `title` (whatever extension saving gave it), as text.
    func savedNote(_ title: String) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: notes.path)) ?? []
        return names.first { $0.hasPrefix(title + ".") }.flatMap { AppHarness.text(notes.appendingPathComponent($0)) }
    }

    /// tmux's newest paste buffer: what the app's OSC 52 put there.
    func pasteBuffer(_ tmux: TmuxSession) -> String? { try? tmux.run(["show-buffer"]) }

    /// A new note with `title`, the cursor in its body.
    func newNote(_ title: String, _ tmux: TmuxSession) throws {
        try tmux.type("n")
        tmux.waitFor("Enter goes to the text")
        try tmux.type(title)
        tmux.waitFor("Title: \(title)")
        try tmux.press("Enter")
        // Typing in the body: the status bar says the editor's keys, not the title's.
        tmux.waitFor("the editor's keys") { $0.contains("Ctrl-F find") && !$0.contains("Enter goes to the text") }
    }

    func testSelectCopyCutPasteCtrlWAndCtrlCNeverQuitsTheEditor() throws {
        let tmux = try app.launch()
        // tmux takes OSC 52 into a paste buffer only with this on.
        _ = try tmux.run(["set-option", "-s", "set-clipboard", "on"])
        tmux.waitFor("Welcome to Byte Club")
        try newNote("Clip", tmux)
        try tmux.type("alpha beta gamma")
        tmux.waitFor("alpha beta gamma")

        // Ctrl-C with unsaved edits and nothing selected: the line is copied, the app stays.
        try tmux.press("C-c")
        tmux.waitFor("Copied")
        AppHarness.eventually("the line in tmux's paste buffer") { self.pasteBuffer(tmux) == "alpha beta gamma\n" }
        XCTAssertEqual(tmux.currentCommand(), "byteclub")
        XCTAssertTrue(tmux.capture().contains("[+]"))

        // Shift-→ five times from the line start selects "alpha"; Ctrl-C copies just that.
        try tmux.press("Home")
        for _ in 0..<5 { try tmux.press("S-Right") }
        try tmux.press("C-c")
        AppHarness.eventually("the selection in tmux's paste buffer") { self.pasteBuffer(tmux) == "alpha" }

        // Cut it, paste it at the end: the internal register is what Ctrl-V pastes.
        try tmux.press("C-x")
        tmux.waitFor("the selection cut") { $0.contains(" beta gamma") && !$0.contains("alpha beta") }
        try tmux.press("End")
        try tmux.press("C-v")
        tmux.waitFor(" beta gammaalpha")
        // Ctrl-W takes the word before the cursor, Alt-Backspace the one before that.
        try tmux.press("C-w")
        tmux.waitFor("the word deleted") { !$0.contains("gammaalpha") && $0.contains(" beta") }
        try tmux.press("M-BSpace")
        tmux.waitFor("the next word deleted") { !$0.contains(" beta") }
        try tmux.type("saved text")
        try tmux.press("C-s")
        tmux.waitFor("Saved")
        AppHarness.eventually("the note on disk") { self.savedNote("Clip") == " saved text" }
        tmux.waitFor("no [+] after the save") { !$0.contains("[+]") }

        // Undo back to the saved text clears [+].
        try tmux.type("!!")
        tmux.waitFor("[+]")
        try tmux.press("C-z")
        tmux.waitFor("no [+] after the undo") { !$0.contains("[+]") && $0.contains(" saved text") && !$0.contains("text!!") }

        // Keys typed while the screen is too small are not inserted.
        try tmux.resize(width: 30, height: 6)
        tmux.waitFor("Terminal too small")
        try tmux.type("zzz")
        try tmux.resize(width: 120, height: 36)
        tmux.waitFor("the editor back") { $0.contains(" saved text") && !$0.contains("Terminal too small") }
        XCTAssertFalse(tmux.capture().contains("zzz"))
        XCTAssertFalse(tmux.capture().contains("[+]"))

        // Outside the editor Ctrl-C quits as q does.
        try tmux.press("Escape")
        tmux.waitFor("Closed")
        try tmux.press("C-c")
        tmux.waitFor(app.exitLine(0))
    }

    func testFindReplaceGoToLineAndLists() throws {
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")
        try newNote("Lists", tmux)

        // Enter continues a task list; Alt-X ticks the box under the cursor; Enter on an empty item ends the list.
        try tmux.type("- [ ] eggs")
        try tmux.press("Enter")
        try tmux.type("ham")
        tmux.waitFor("- [ ] ham")
        try tmux.press("M-x")
        tmux.waitFor("- [x] ham")
        try tmux.press("Enter")
        tmux.waitFor("a new, empty item") { $0.components(separatedBy: "- [ ]").count == 3 }
        try tmux.press("Enter")
        try tmux.type("1. fox one")
        try tmux.press("Enter")
        try tmux.type("Fox two")
        try tmux.press("Enter")
        try tmux.type("FOX three")
        tmux.waitFor("3. FOX three")

        // Find: every match highlighted, the count shown, Enter to the next.
        try tmux.press("C-f")
        tmux.waitFor("Find:")
        try tmux.type("fox")
        tmux.waitFor("1/3")
        try tmux.press("Enter")
        tmux.waitFor("2/3")
        let colored = tmux.captureWithEscapes()
        func plain(_ row: Substring) -> String { row.replacingOccurrences(of: "\u{1B}\\[[0-9;:]*m", with: "", options: .regularExpression) }
        for word in ["fox one", "Fox two", "FOX three"] {
            let line = try XCTUnwrap(colored.split(separator: "\n").first { plain($0).contains(word) }, colored)
            let start = try XCTUnwrap(line.range(of: String(word.prefix(3))))
            XCTAssertTrue(line[..<start.lowerBound].hasSuffix("m"), "\(word): the match is drawn in a style of its own: \(line.debugDescription)")
        }

        // Replace all is one undo step.
        try tmux.press("Escape")
        try tmux.press("M-r")
        // The replace bar shows its keys, as nano's and micro's do.
        tmux.waitFor(all: ["Replace with:", "Alt-A all", "Enter one", "Esc close"])
        try tmux.press("C-u")
        try tmux.type("fox")
        try tmux.press("Tab")
        try tmux.type("cat")
        try tmux.press("M-a")
        tmux.waitFor("Replaced 3")
        tmux.waitFor("every fox replaced") { $0.contains("1. cat one") && $0.contains("cat two") && $0.contains("cat three") }
        try tmux.press("Escape")
        try tmux.press("C-z")
        tmux.waitFor("all three back in one undo") { $0.contains("1. fox one") && $0.contains("Fox two") && $0.contains("FOX three") && !$0.contains("cat") }

        // Go to line 2 and type there.
        try tmux.press("C-g")
        tmux.waitFor("Go to line")
        try tmux.type("2")
        try tmux.press("Enter")
        try tmux.type(">")
        tmux.waitFor(">- [x] ham")
        try tmux.press("C-s")
        tmux.waitFor("Saved")
        AppHarness.eventually("the note on disk") {
            self.savedNote("Lists") == "- [ ] eggs\n>- [x] ham\n1. fox one\n2. Fox two\n3. FOX three"
        }
    }

    /// Shift-→ and Alt-Backspace as tmux sends them for the terminal types users run it with:
    /// curses decodes `kRIT2` (tmux-256color) and `kri`-style keys, or passes `ESC[1;2C` through (screen).
    func testShiftSelectionAndAltBackspaceUnderTmuxAndScreenTerminals() throws {
        for term in ["tmux-256color", "screen"] {
            let app = try AppHarness()
            defer { app.close() }
            let tmux = try app.launch(term: term)
            _ = try tmux.run(["set-option", "-s", "set-clipboard", "on"])
            tmux.waitFor("Welcome to Byte Club")
            try newNote("Term", tmux)
            try tmux.type("one two")
            tmux.waitFor("one two")
            try tmux.press("Home")
            for _ in 0..<3 { try tmux.press("S-Right") }
            try tmux.press("C-c")
            AppHarness.eventually("\(term): the selection in tmux's paste buffer") { self.pasteBuffer(tmux) == "one" }
            try tmux.press("End")
            try tmux.press("M-BSpace")
            tmux.waitFor("\(term): the word deleted") { $0.contains("one") && !$0.contains("one two") }
            XCTAssertFalse(tmux.capture().contains("Unsaved changes"), "\(term): Alt-Backspace is no Esc")
        }
    }
}
