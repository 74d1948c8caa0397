import Foundation
import TestSupport
import XCTest

/// Markdown as you type and the user's own `$EDITOR`, in a real terminal: a heading drawn in its
/// style (read with `capture-pane -e`), `.md` for new notes (and `.txt` by config), a script and
/// a real vim editing a note, and a `kill -9` while vim is open losing nothing.
final class WritersEditorEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    var notes: URL { app.club.appendingPathComponent("byteclub") }

    /// What is in force where `text` starts on `line` of a `capture-pane -e` screen: "bold",
    /// "italic" and "color" (a foreground other than the default), from the SGR sequences before it.
    static func sgr(before text: String, in line: Substring) -> Set<String> {
        guard let range = line.range(of: text) else { return [] }
        var state = Set<String>()
        for piece in line[..<range.lowerBound].components(separatedBy: "\u{1B}[").dropFirst() {
            guard let end = piece.firstIndex(of: "m") else { continue }
            var params = piece[..<end].split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }[...]
            while let p = params.popFirst() {
                switch p {
                case 0: state.removeAll()
                case 1: state.insert("bold")
                case 22: state.remove("bold")
                case 3: state.insert("italic")
                case 23: state.remove("italic")
                case 30...37, 90...97: state.insert("color")
                case 38:
                    state.insert("color")
                    params = params.dropFirst(params.first == 5 ? 2 : 4)
                case 39: state.remove("color")
                case 48: params = params.dropFirst(params.first == 5 ? 2 : 4)
                default: break
                }
            }
        }
        return state
    }

    /// Types a new note: `title`, then each of `lines` in the body.
    func typeNewNote(_ tmux: TmuxSession, title: String, lines: [String]) throws {
        try tmux.type("n")
        tmux.waitFor("Enter goes to the text")
        try tmux.type(title)
        tmux.waitFor("Title: \(title)")
        try tmux.press("Enter")
        for (i, line) in lines.enumerated() {
            if i > 0 { try tmux.press("Enter") }
            try tmux.type(line)
        }
        tmux.waitFor(lines.last ?? title)
    }

    func testAHeadingIsDrawnInItsStyleAndNewNotesAreMarkdown() throws {
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")
        try typeNewNote(tmux, title: "Plan", lines: ["# Big heading", "plain words and *some emphasis*"])
        let screen = tmux.captureWithEscapes()
        let rows = screen.split(separator: "\n")
        let heading = try XCTUnwrap(rows.first { $0.contains("Big heading") && !$0.contains("Title:") })
        let plain = try XCTUnwrap(rows.first { $0.contains("plain words") })
        let headingStyle = Self.sgr(before: "# Big heading", in: heading)
        XCTAssertEqual(headingStyle, ["bold", "color"], "the heading is bold, in the theme's color: \(heading.debugDescription)")
        XCTAssertEqual(Self.sgr(before: "plain words", in: plain), [], "plain text is plain: \(plain.debugDescription)")
        XCTAssertEqual(Self.sgr(before: "*some emphasis*", in: plain), ["italic"], "emphasis is italic: \(plain.debugDescription)")

        try tmux.press("C-s")
        tmux.waitFor("Saved \"Plan.md\"")
        XCTAssertEqual(AppHarness.text(notes.appendingPathComponent("Plan.md")), "# Big heading\nplain words and *some emphasis*")
    }

    /// `$XDG_CONFIG_HOME/byteclub/config.toml` with `text`.
    func writeConfig(_ text: String) throws {
        let config = app.base.appendingPathComponent("config/byteclub")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: config.appendingPathComponent("config.toml"))
    }

    func testNewNoteExtensionTxtKeepsPlainNotes() throws {
        try writeConfig("new_note_extension = \"txt\"\n")
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")
        try typeNewNote(tmux, title: "Old way", lines: ["# not styled here"])
        let row = try XCTUnwrap(tmux.captureWithEscapes().split(separator: "\n").first { $0.contains("# not styled here") })
        XCTAssertEqual(Self.sgr(before: "# not styled here", in: row), [], "a .txt note is plain text")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Old way.txt\"")
        XCTAssertEqual(AppHarness.text(notes.appendingPathComponent("Old way.txt")), "# not styled here")
    }

    func testABadNewNoteExtensionIsSaidWithItsLine() throws {
        try writeConfig("# mine\nnew_note_extension = \"doc\"\n")
        let tmux = try app.launch()
        let screen = tmux.waitFor(app.exitLine(2))
        // The pane wraps the long path (and a wrap may fall on a space): compare without blanks.
        let expected = "config.toml:2: new_note_extension must be \"md\" or \"txt\"".filter { !$0.isWhitespace }
        XCTAssertTrue(screen.filter { !$0.isWhitespace }.contains(expected), screen)
    }

    /// The note on disk whose text contains `text`, if any.
    func noteContaining(_ text: String) -> String? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: notes.path)) ?? []
        return names.compactMap { AppHarness.text(notes.appendingPathComponent($0)) }.first { $0.contains(text) }
    }

    func testAnEditorScriptEditsTheNoteAsUnsavedEdits() throws {
        let script = app.base.appendingPathComponent("edit.sh")
        try Data("#!/bin/sh\nprintf 'Added by the script\\n' >> \"$1\"\n".utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
        let tmux = try app.launch(environment: ["EDITOR": script.path])
        tmux.waitFor("Welcome to Byte Club")
        try tmux.type("e")
        tmux.waitFor("Took the text from edit.sh")
        tmux.waitFor("Added by the script")
        tmux.waitFor("[+]")
        try tmux.press("C-s")
        tmux.waitFor("Saved")
        AppHarness.eventually("the note on disk") { self.noteContaining("Added by the script") != nil }
        // The editor's file is gone from the drafts folder once its text is in the draft.
        AppHarness.eventually("no editor file left") {
            ((try? FileManager.default.contentsOfDirectory(atPath: self.app.drafts.path)) ?? []).allSatisfy { !$0.contains(".editing.") }
        }
    }

    func testAnEditorThatChangesNothingChangesNothing() throws {
        let tmux = try app.launch(environment: ["VISUAL": "true --ignored-argument", "EDITOR": "false"])
        tmux.waitFor("Welcome to Byte Club")
        try tmux.press("Enter")
        tmux.waitFor("Esc closes")
        try tmux.press("M-e")
        tmux.waitFor("No changes from true")
        XCTAssertFalse(tmux.capture().contains("[+]"), "no edit")
        XCTAssertTrue(((try? FileManager.default.contentsOfDirectory(atPath: app.drafts.path)) ?? []).isEmpty, "no draft left behind")
    }

    /// Starts byteclub with vim (with arguments) as `$EDITOR`, opens the first note in it with
    /// `e`, adds `line` at its end and writes with `command` (`:wq`, `:w`).
    func addInVim(_ line: String, then command: String) throws -> TmuxSession {
        let tmux = try app.launch(environment: ["EDITOR": "vim -u NONE -N -n"])
        tmux.waitFor("Welcome to Byte Club")
        try tmux.type("e")
        // vim's own screen: its message line names the file it edits, in the drafts folder.
        tmux.waitFor(".editing.")
        try tmux.type("Go")
        try tmux.type(line)
        try tmux.press("Escape")
        try tmux.type(command)
        try tmux.press("Enter")
        return tmux
    }

    func testVimEditsTheNote() throws {
        let tmux = try addInVim("Typed in vim", then: ":wq")
        tmux.waitFor("Took the text from vim")
        tmux.waitFor("Typed in vim")
        tmux.waitFor("[+]")
        try tmux.press("C-s")
        tmux.waitFor("Saved")
        AppHarness.eventually("the note on disk") { self.noteContaining("Typed in vim") != nil }
    }

    func testKillingByteclubWhileVimIsOpenLosesNothing() throws {
        let tmux = try addInVim("Kept through kill", then: ":w")
        let files = { (try? FileManager.default.contentsOfDirectory(atPath: self.app.drafts.path)) ?? [] }
        AppHarness.eventually("vim's write in the drafts folder") {
            files().contains { $0.contains(".editing.") && AppHarness.text(self.app.drafts.appendingPathComponent($0))?.contains("Kept through kill") == true }
        }
        let editorFile = try XCTUnwrap(files().first { $0.contains(".editing.") })
        let mode = try FileManager.default.attributesOfItem(atPath: app.drafts.appendingPathComponent(editorFile).path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "the editor's file is private")
        let pid = try XCTUnwrap(app.appPID())
        XCTAssertEqual(Foundation.kill(pid, SIGKILL), 0)
        // The shell takes the terminal back; vim, left in the background, is hung up by the kernel.
        tmux.waitFor(app.exitLine(137))

        // The next start takes vim's text into the note's draft.
        try app.launch()
        tmux.waitFor("unsaved draft")
        AppHarness.eventually("the text in a draft") {
            AppHarness.draftTexts(in: self.app.drafts).contains { $0.contains("Kept through kill") }
        }
        XCTAssertFalse(files().contains { $0.contains(".editing.") }, "the editor's file went into the draft")
    }
}
