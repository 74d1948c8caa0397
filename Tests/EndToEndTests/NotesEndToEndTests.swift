import Foundation
import TestSupport
import XCTest

/// The Notes tab in a real terminal: writing, saving, conflicts, drafts across `kill -9`, a
/// dead server, delete, rename, and the unsaved-changes prompt. Results are checked on disk.
final class NotesEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    var notes: URL { app.club.appendingPathComponent("byteclub") }
    var welcome: URL { notes.appendingPathComponent("Welcome to Byte Club.txt") }

    /// The drafts on disk, as text.
    func draftTexts() -> [String] { AppHarness.draftTexts(in: app.drafts) }

    func testCreateSaveReopenAndEditANote() throws {
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")

        try tmux.type("n")
        // Not "Title": the list's column header says that before the editor opens.
        tmux.waitFor("Enter goes to the text")
        try tmux.type("Challenge for Ray")
        tmux.waitFor("Title: Challenge for Ray")
        try tmux.press("Enter")
        try tmux.type("Beat this: 你好, Grüße!")
        tmux.waitFor("Beat this: 你好, Grüße!")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Challenge for Ray.md\"")
        let file = notes.appendingPathComponent("Challenge for Ray.md")
        XCTAssertEqual(try Data(contentsOf: file), Data("Beat this: 你好, Grüße!".utf8))
        // Saved: the marker is gone, and the draft went with the server's confirmation.
        tmux.waitFor("no [+]") { !$0.contains("[+]") }
        AppHarness.eventually("the draft removed") { self.draftTexts().isEmpty }

        // Close, reopen (the saved note is selected, newest first), edit and save again.
        // Waits for what each key says it did: the old editor's text stays on the screen until Esc
        // is handled, and keys sent while the note loads go to the list.
        try tmux.press("Escape")
        // The save's refresh of the list (which lists the note and selects it) may still be on
        // its way: Enter before it opens the note selected before. So wait for the row too; the
        // status bar ("Closed …") and the editor's "Title: …" are not rows.
        tmux.waitFor("the editor closed and the note listed") { screen in
            screen.contains("Closed Challenge for Ray.md")
                && screen.split(separator: "\n").contains { $0.contains("Challenge for Ray") && !$0.contains("Closed") && !$0.contains("Title:") }
        }
        try tmux.press("Enter")
        tmux.waitFor("Editing \"Challenge for Ray.md\"")
        try tmux.press("C-e")
        try tmux.type(" Again, 再见!")
        tmux.waitFor("[+]")
        try tmux.press("C-s")
        AppHarness.eventually("the edit on disk") { AppHarness.text(file) == "Beat this: 你好, Grüße! Again, 再见!" }
        tmux.waitFor("Saved \"Challenge for Ray.md\"")
    }

    func testConflictDialogReloadOverwriteAndCopy() throws {
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")
        try openWelcomeByFilter(tmux)

        // 1. Theirs changes behind our back; Reload theirs shows theirs and keeps ours as a draft.
        // Each time ours is typed (the note modified) before theirs is written: a note with no
        // change of ours takes theirs in at once, and there would be nothing to choose. Theirs
        // replaces every line ours changed, so Ctrl-S brings up the merge view with its one
        // conflict (the text the editor opened is the base, as the outbox's sender merges; the
        // conflict dialog where no merge can be made): both offer Reload theirs (r), Overwrite
        // (o) and Save as copy (s).
        try tmux.press("C-e")
        try tmux.type(" MINE-1")
        tmux.waitFor("MINE-1")
        try "Theirs, version 1\n".write(to: welcome, atomically: true, encoding: .utf8)
        try tmux.press("C-s")
        tmux.waitFor("Reload theirs")
        try tmux.type("r")
        // Theirs in the editor, loaded (no [+], no [merge]): the merge view shows their lines too.
        tmux.waitFor("theirs reloaded") { $0.contains("Theirs, version 1") && !$0.contains("[+]") && !$0.contains("[merge]") }
        // The list (narrow beside the editor, its title cut to make room for "1.2 KiB") shows my
        // text as a draft row.
        tmux.waitFor("✎ Welcome to B")
        XCTAssertEqual(AppHarness.text(welcome), "Theirs, version 1\n")
        AppHarness.eventually("my text kept as a draft") { self.draftTexts().contains { $0.contains("MINE-1") } }

        // 2. Again; Overwrite puts ours over theirs.
        try tmux.press("C-e")
        try tmux.type(" MINE-2")
        tmux.waitFor("MINE-2")
        try "Theirs, version 2\n".write(to: welcome, atomically: true, encoding: .utf8)
        try tmux.press("C-s")
        tmux.waitFor("Reload theirs")
        try tmux.type("o")
        tmux.waitFor("Saved \"Welcome to Byte Club.txt\"")
        XCTAssertEqual(AppHarness.text(welcome), "Theirs, version 1 MINE-2\n")

        // 3. Again; Save as copy keeps theirs and writes ours beside it.
        try tmux.type(" MINE-3")
        tmux.waitFor("MINE-3")
        try "Theirs, version 3\n".write(to: welcome, atomically: true, encoding: .utf8)
        try tmux.press("C-s")
        tmux.waitFor("Reload theirs")
        try tmux.type("s")
        tmux.waitFor("Saved \"Welcome to Byte Club (conflicted copy of ray")
        XCTAssertEqual(AppHarness.text(welcome), "Theirs, version 3\n")
        let copies = try FileManager.default.contentsOfDirectory(atPath: notes.path).filter { $0.contains("conflicted copy of ray") }
        XCTAssertEqual(copies.count, 1, "\(copies)")
        XCTAssertEqual(AppHarness.text(notes.appendingPathComponent(copies.first ?? "-")), "Theirs, version 1 MINE-2 MINE-3\n")
    }

    /// Filters the list to the welcome note and opens it.
    func openWelcomeByFilter(_ tmux: TmuxSession) throws {
        try tmux.type("/")
        try tmux.type("Welcome to Byte Club")
        try tmux.press("Enter")
        waitForFilter(tmux, "Welcome to Byte Club", matches: 1)
        try tmux.press("Enter")
        tmux.waitFor("Ctrl-S saves")
    }

    /// Waits for the filter line of the whole `filter` with its count: a frame drawn while the
    /// filter was half typed can say "1 of" too ("H" matches "Challenge 1").
    func waitForFilter(_ tmux: TmuxSession, _ filter: String, matches: Int, file: StaticString = #filePath, line: UInt = #line) {
        tmux.waitFor("the filter line “/ \(filter)” with \(matches) match(es)", file: file, line: line) { screen in
            screen.split(separator: "\n").contains { row in
                row.contains("/ \(filter)") && row.range(of: "[^0-9]\(matches) of [0-9]", options: .regularExpression) != nil
            }
        }
    }

    func testDraftSurvivesKill9AndIsOffered() throws {
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")
        try openWelcomeByFilter(tmux)
        try tmux.press("C-e")
        try tmux.type(" UNSAVED-草稿")
        tmux.waitFor("[+]")
        AppHarness.eventually("the edit journalled", timeout: 5) { self.draftTexts().contains { $0.contains("UNSAVED-草稿") } }

        let pid = try XCTUnwrap(app.appPID())
        kill(pid, SIGKILL)
        tmux.waitFor(app.exitLine(137))
        XCTAssertFalse((AppHarness.text(welcome) ?? "").contains("UNSAVED"), "nothing was saved")

        // A new run offers the draft, and opening the note restores it.
        try app.launch()
        tmux.waitFor("unsaved draft")
        tmux.waitFor("✎ Welcome to Byte Club")
        try openWelcomeByFilter(tmux)
        tmux.waitFor(all: ["Restored your unsaved draft", "UNSAVED-草稿", "[+]"])
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Welcome to Byte Club.txt\"")
        XCTAssertTrue((AppHarness.text(welcome) ?? "").contains("UNSAVED-草稿"))
        AppHarness.eventually("the draft removed after the save") { self.draftTexts().isEmpty }
    }

    /// `byteclub serve` in a process of its own, which the test kills outright.
    final class ServeProcess {
        let process: Process
        let port: Int

        /// `port`: 0 for a random one, or the killed server's, to start it again there (a moment
        /// taken by another connection is waited out: ``MemberServe/start(_:port:log:patience:)``).
        init(root: URL, port: Int, token: String, chaos: String? = nil) throws {
            (process, self.port) = try MemberServe.start(
                ["serve", "--insecure-http", "--root", root.path, "--create", "--port", "\(port)", "--token", token, "--log-level", "error"]
                    + (chaos.map { ["--chaos", $0] } ?? []),
                port: port)
        }

        func kill() {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    func testSaveToADeadServerWaitsInTheOutboxAndGoesWhenItIsBack() throws {
        // A club server in its own process, killed with SIGKILL and started again on its port.
        let root = app.base.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        let note = root.appendingPathComponent("byteclub/Plans.txt")
        try "Meet on Friday".write(to: note, atomically: true, encoding: .utf8)
        var server = try ServeProcess(root: root, port: 0, token: "dead-server-test")
        defer { server.kill() }
        let port = server.port
        let tmux = try app.launch(["--server", "http://127.0.0.1:\(port)", "--token", "dead-server-test"])
        tmux.waitFor("Plans")
        try tmux.press("Enter")
        tmux.waitFor("Meet on Friday")
        try tmux.press("C-e")
        try tmux.type(" at 6")
        tmux.waitFor("[+]")

        server.kill()
        try tmux.press("C-s")
        // The text stays in the editor.
        tmux.waitFor(all: ["offline · 1 waiting", "Meet on Friday at 6"])
        XCTAssertTrue(draftTexts().contains { $0.contains("Meet on Friday at 6") })
        XCTAssertEqual(AppHarness.text(note), "Meet on Friday")

        // No key: the probe finds the server back and the outbox sends the save.
        server = try ServeProcess(root: root, port: port, token: "dead-server-test")
        tmux.waitFor("Sent 1 change from the outbox")
        XCTAssertEqual(AppHarness.text(note), "Meet on Friday at 6")
        AppHarness.eventually("the draft removed") { self.draftTexts().isEmpty }
        // The editor is at the new rev: saving again is a plain save.
        try tmux.type("!")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Plans.txt\"")
        XCTAssertEqual(AppHarness.text(note), "Meet on Friday at 6!")
    }

    func testAStalledServerTimesOutWithAMessage() throws {
        // Every request gets no answer at all; the app must say so, not hang.
        let root = app.base.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        let server = try ServeProcess(root: root, port: 0, token: "stall-test", chaos: "stall=1")
        defer { server.kill() }
        let tmux = try app.launch(["--server", "http://127.0.0.1:\(server.port)", "--token", "stall-test", "--timeout", "1"])
        tmux.waitFor(all: ["Timed out: the server sent nothing for 1 s", "Could not load"], timeout: 40)
        XCTAssertEqual(tmux.currentCommand(), "byteclub", "still running, still answering")
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
    }

    func testRenameAndDeleteWithConfirm() throws {
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")
        try tmux.type("/")
        try tmux.type("Welcome to Byte Club")
        try tmux.press("Enter")
        waitForFilter(tmux, "Welcome to Byte Club", matches: 1)

        try tmux.type("R")
        tmux.waitFor("Rename note")
        try tmux.press("C-u")
        try tmux.type("Hello Club")
        try tmux.press("Enter")
        tmux.waitFor("Renamed to \"Hello Club.txt\"")
        XCTAssertTrue(FileManager.default.fileExists(atPath: notes.appendingPathComponent("Hello Club.txt").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: welcome.path))

        // Esc clears the filter; wait for it, or the next key would read as Alt-/.
        try tmux.press("Escape")
        tmux.waitFor("the filter cleared") { !$0.contains("/ Welcome to Byte Club") && $0.contains("Hello Club") }
        try tmux.type("/")
        try tmux.type("Hello Club")
        try tmux.press("Enter")
        // One match only once the rename's refresh of the list is in; before it, `d` finds no
        // row under the filter and does nothing.
        waitForFilter(tmux, "Hello Club", matches: 1)
        try tmux.type("d")
        tmux.waitFor("Delete \"Hello Club.txt\"")
        // Cancel is the default: Enter keeps the note.
        try tmux.press("Enter")
        tmux.waitFor("the dialog closed") { !$0.contains("Delete \"Hello Club.txt\"") }
        XCTAssertTrue(FileManager.default.fileExists(atPath: notes.appendingPathComponent("Hello Club.txt").path))
        try tmux.press("Delete")
        tmux.waitFor("Delete \"Hello Club.txt\"")
        try tmux.type("d")
        tmux.waitFor("Deleted \"Hello Club.txt\"")
        XCTAssertFalse(FileManager.default.fileExists(atPath: notes.appendingPathComponent("Hello Club.txt").path))
    }

    func testEscapeWithUnsavedChangesAsks() throws {
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")
        try openWelcomeByFilter(tmux)
        let before = AppHarness.text(welcome)
        try tmux.type("typed")
        tmux.waitFor("[+]")

        try tmux.press("Escape")
        tmux.waitFor("Unsaved changes")
        tmux.waitFor("Discard")
        try tmux.type("c")
        tmux.waitFor("back in the editor") { !$0.contains("Unsaved changes") && $0.contains("[+]") }

        try tmux.press("Escape")
        tmux.waitFor("Unsaved changes")
        try tmux.type("d")
        tmux.waitFor("the editor closed") { !$0.contains("[+]") && !$0.contains("Ctrl-S saves") }
        XCTAssertEqual(AppHarness.text(welcome), before)
        AppHarness.eventually("the draft dropped") { self.draftTexts().isEmpty }
        // Quitting now does not ask: nothing is unsaved.
        try tmux.type("q")
        tmux.waitFor(app.exitLine(0))
    }
}
