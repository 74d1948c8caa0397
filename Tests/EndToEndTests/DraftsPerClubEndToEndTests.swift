import Foundation
import TestSupport
import XCTest

/// Issue 53, 1: drafts belong to one club. An unsaved edit of `Welcome to Byte Club` in the
/// embedded club, left by `kill -9`, showed as `✎ Welcome to Byte Club` in a club joined later
/// on the same machine, and opening the note there restored the embedded club's text, which
/// `Ctrl-S` would have published in the other club. Now the other club shows its own note and
/// nothing of the draft, and the embedded club still has it.
final class DraftsPerClubEndToEndTests: XCTestCase {
    var app: AppHarness!

    override func setUpWithError() throws {
        app = try AppHarness()
    }

    override func tearDown() {
        app.close()
    }

    /// Every draft on disk, in any club's drafts folder, as text.
    func draftTexts() -> [String] {
        AppHarness.draftTexts(under: app.draftsRoot)
    }

    /// Filters the list to the welcome note and opens it.
    func openWelcome(_ tmux: TmuxSession) throws {
        try tmux.type("/")
        try tmux.type("Welcome to Byte Club")
        try tmux.press("Enter")
        // The whole filter with its count: a frame drawn while it was half typed can say "1 of" too.
        tmux.waitFor("the filter “/ Welcome to Byte Club” with 1 match") { screen in
            screen.split(separator: "\n").contains { row in
                row.contains("/ Welcome to Byte Club") && row.range(of: "[^0-9]1 of [0-9]", options: .regularExpression) != nil
            }
        }
        try tmux.press("Enter")
        tmux.waitFor("Ctrl-S saves")
    }

    func testADraftInTheEmbeddedClubIsNeverShownOrSentInAnotherClub() throws {
        // 1. The embedded club: an unsaved edit of the welcome note, journalled, then kill -9.
        let tmux = try app.launch()
        tmux.waitFor("Welcome to Byte Club")
        try openWelcome(tmux)
        try tmux.press("C-e")
        try tmux.type(" EMBEDDED-ONLY")
        tmux.waitFor("[+]")
        AppHarness.eventually("the edit journalled", timeout: 5) { self.draftTexts().contains { $0.contains("EMBEDDED-ONLY") } }
        kill(try XCTUnwrap(app.appPID()), SIGKILL)
        tmux.waitFor(app.exitLine(137))

        // 2. Another club on this machine: a club server whose club has a welcome note of its own.
        let root = app.base.appendingPathComponent("served")
        let notes = root.appendingPathComponent("byteclub")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        let theirWelcome = notes.appendingPathComponent("Welcome to Byte Club.txt")
        try "Their welcome, in the other club\n".write(to: theirWelcome, atomically: true, encoding: .utf8)
        try "Only in the other club\n".write(to: notes.appendingPathComponent("Other club plan.txt"), atomically: true, encoding: .utf8)
        let server = try ServeProcess(root: root, token: "other-club-token")
        try app.launch(["--server", server.url, "--token", "other-club-token"])
        // Both rows in one frame of the new run (the first frame clears what the killed run left).
        let listed = tmux.waitFor("the other club's notes") { screen in
            AppHarness.listed("Other club plan", in: screen) && AppHarness.listed("Welcome to Byte Club", in: screen)
        }
        XCTAssertFalse(listed.contains("✎"), "no draft of the embedded club is marked in the other club:\n\(listed)")
        XCTAssertFalse(listed.contains("unsaved draft"), "nor counted there:\n\(listed)")
        XCTAssertFalse(listed.contains("(draft)"), listed)

        // Opening their welcome note shows their text: no draft restored, nothing Ctrl-S could send.
        try openWelcome(tmux)
        let opened = tmux.waitFor("their welcome note open") { $0.contains("Their welcome, in the other club") && $0.contains("Ctrl-S saves") }
        XCTAssertFalse(opened.contains("EMBEDDED-ONLY"), opened)
        XCTAssertFalse(opened.contains("Restored your unsaved draft"), opened)
        XCTAssertFalse(opened.contains("[+]"), "nothing to save:\n\(opened)")
        kill(try XCTUnwrap(app.appPID()), SIGKILL)
        tmux.waitFor(app.exitLine(137))
        XCTAssertEqual(AppHarness.text(theirWelcome), "Their welcome, in the other club\n", "the other club's note never took the draft")
        XCTAssertTrue(server.isRunning)

        // 3. Back in the embedded club, the draft is there, and restored.
        try app.launch()
        tmux.waitFor("1 unsaved draft kept from last time")
        tmux.waitFor("✎ Welcome to Byte Club")
        try openWelcome(tmux)
        tmux.waitFor(all: ["Restored your unsaved draft", "EMBEDDED-ONLY", "[+]"])
        XCTAssertFalse((AppHarness.text(welcome) ?? "").contains("EMBEDDED-ONLY"), "nothing was saved in the embedded club either")
    }

    var welcome: URL { app.club.appendingPathComponent("byteclub/Welcome to Byte Club.txt") }
}
