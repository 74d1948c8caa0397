import Foundation
import TestSupport
import XCTest

/// Offline first, in a real terminal against a `byteclub serve` process that is killed and
/// started again on the same port and root (``OfflineClub``): saves go to the outbox while the
/// server is down, survive `kill -9` of the app, show from the disk cache on a start with the
/// server still down, and reach the server by themselves, in order, when it is back; a change
/// another member made meanwhile is merged, never overwritten. Results are checked on the
/// server's disk and in the outbox folder.
final class OfflineEndToEndTests: XCTestCase {
    var club: OfflineClub!

    override func tearDown() {
        club?.close()
    }

    private var app: AppHarness { club.app }

    /// Waits until the status bar shows `figure` (`offline · 1 waiting`): it is drawn on the
    /// status bar's right, beside the "? help" hint.
    @discardableResult
    private func waitForStatus(_ tmux: TmuxSession, _ figure: String, timeout: TimeInterval = 20,
                               file: StaticString = #filePath, line: UInt = #line) -> String {
        tmux.waitFor("“\(figure)” in the status bar", timeout: timeout, file: file, line: line) {
            OfflineClub.statusBar($0).contains(figure)
        }
    }

    /// Filters the list to `title` and waits until the filter line says one match (a frame
    /// drawn while the filter was half typed may say so too, so the whole filter is checked).
    private func filter(_ tmux: TmuxSession, _ title: String, file: StaticString = #filePath, line: UInt = #line) throws {
        try tmux.type("/")
        try tmux.type(title)
        try tmux.press("Enter")
        tmux.waitFor("the filter “/ \(title)” with one match", file: file, line: line) { screen in
            screen.split(separator: "\n").contains { row in
                row.contains("/ \(title)") && row.range(of: "[^0-9]1 of [0-9]", options: .regularExpression) != nil
            }
        }
    }

    /// Clears the filter with Esc and waits until `row` is listed again.
    private func clearFilter(_ tmux: TmuxSession, _ filter: String, showing row: String,
                             file: StaticString = #filePath, line: UInt = #line) throws {
        try tmux.press("Escape")
        tmux.waitFor("the filter “\(filter)” cleared", file: file, line: line) { screen in
            !screen.contains("/ \(filter)") && AppHarness.listed(row, in: screen)
        }
    }

    // MARK: - A save across a dead server and a killed app

    func testASaveMadeOfflineSurvivesKill9AndIsSentWhenTheServerIsBack() throws {
        let before = "Day 1: Lyon\nDay 2: rest\n"
        let edited = "Day 1: Lyon EDITED-offline\nDay 2: rest\n"
        club = try OfflineClub(notes: ["Trip plan.txt": before])
        var tmux = try club.launchRay()
        tmux.waitFor("Trip plan")
        try tmux.press("Enter")
        tmux.waitFor("the note open") { $0.contains("Ctrl-S saves") && $0.contains("Day 2: rest") }
        // The list reaches the disk cache shortly after it loaded (a burst of changes is one write).
        AppHarness.eventually("the list cached on disk", timeout: 10) { self.club.notesListCached() }

        // The server goes away; the edit is saved into the outbox.
        club.killServer()
        try tmux.press("C-e")
        try tmux.type(" EDITED-offline")
        tmux.waitFor("[+]")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Trip plan.txt\" in the outbox (1 waiting)")
        waitForStatus(tmux, "offline · 1 waiting")
        let items = club.outboxItems()
        XCTAssertEqual(items.count, 1, "one item in the outbox")
        XCTAssertTrue(items.first?.contains("EDITED-offline") ?? false, "the item holds the text: \(items)")
        XCTAssertEqual(club.text(ofNote: "Trip plan.txt"), before, "nothing reached the server")

        // kill -9, and a start while the server is still down: the list comes from the cache.
        let pid = try XCTUnwrap(app.appPID())
        kill(pid, SIGKILL)
        tmux.waitFor(app.exitLine(137))
        tmux = try club.launchRay()
        let cached = tmux.waitFor("the cached list with the note's row") { screen in
            screen.contains("◷ Cached") && screen.contains("offline, not up to date") && AppHarness.listed("Trip plan", in: screen)
                && screen.contains("⇡ Trip plan")
        }
        XCTAssertTrue(cached.contains("⇡ Trip plan"), "the row is marked as waiting:\n\(cached)\n\(club.diagnostics())")
        waitForStatus(tmux, "offline · 1 waiting")

        // Opening the note shows the edited text (as waiting in the outbox, not as unsaved).
        try tmux.press("Enter")
        tmux.waitFor("the note open with the edit") { $0.contains("Title: Trip plan") && $0.contains("Lyon EDITED-offline") }
        XCTAssertEqual(club.text(ofNote: "Trip plan.txt"), before)

        // The server comes back on the same port and root: with no key pressed, the edit is
        // sent within 10 s (the issue's limit) and the outbox empties.
        try club.startServer()
        AppHarness.eventually("the edit on the server and the outbox empty", timeout: 10) {
            self.club.text(ofNote: "Trip plan.txt") == edited && self.club.outboxItems().isEmpty
        }
        XCTAssertEqual(club.text(ofNote: "Trip plan.txt"), edited)
        XCTAssertEqual(club.outboxItems(), [])
        tmux.waitFor("the app back online") { screen in
            let status = OfflineClub.statusBar(screen)
            return !status.contains("offline") && !status.contains("sending")
        }
    }

    /// Issue 68, item 5: a new note saved offline (to the outbox), a line typed on and left
    /// unsaved, kill -9, the server back. The next start sent the create, and the draft stayed a
    /// new note's: the list showed `✎ Offline new (draft)` beside `Offline new`, and Ctrl-S on
    /// the draft asked to overwrite or copy the user's own note. Now the draft moves onto the
    /// note the club has: one row, and Ctrl-S saves onto it with no question.
    func testANewNoteSavedOfflineAndTypedOnAcrossKill9IsOneNote() throws {
        club = try OfflineClub(notes: ["Other.txt": "hello\n"])
        var tmux = try club.launchRay()
        tmux.waitFor("Other")
        AppHarness.eventually("the list cached on disk", timeout: 10) { self.club.notesListCached() }

        club.killServer()
        try tmux.type("n")
        tmux.waitFor("Ctrl-S saves")
        try tmux.type("Offline new")
        try tmux.press("Enter")
        try tmux.type("line one")
        tmux.waitFor("line one")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Offline new.md\" in the outbox (1 waiting)")
        try tmux.press("Enter")
        try tmux.type("line two")
        tmux.waitFor("[+]")
        AppHarness.eventually("the typing in the draft on disk") { self.draftBodies().contains("line one\nline two") }

        let pid = try XCTUnwrap(app.appPID())
        kill(pid, SIGKILL)
        tmux.waitFor(app.exitLine(137))
        try club.startServer()
        tmux = try club.launchRay()
        AppHarness.eventually("the create sent, the outbox empty") {
            self.club.text(ofNote: "Offline new.md") == "line one" && self.club.outboxItems().isEmpty
        }
        // One row for the note, marked as holding a draft; never a second, new note's row.
        tmux.waitFor("one row of Offline new, with its draft") { screen in
            let rows = screen.split(separator: "\n").filter { $0.contains("Offline new") && !$0.contains("? help") && !$0.contains("F1 help") }
            return rows.count == 1 && rows[0].contains("✎ Offline new") && !rows[0].contains("(draft)")
        }
        try filter(tmux, "Offline new")
        try tmux.press("Enter")
        tmux.waitFor(all: ["Restored your unsaved draft", "line two"])
        try tmux.press("C-s")
        let saved = tmux.waitFor("Saved \"Offline new.md\"")
        XCTAssertFalse(saved.contains("Overwrite"), "no question about the user's own note:\n\(saved)")
        XCTAssertEqual(club.text(ofNote: "Offline new.md"), "line one\nline two")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: club.notesFolder.path)) ?? []
        XCTAssertEqual(names.filter { $0.hasPrefix("Offline new") }, ["Offline new.md"], "one note, no copy")
        XCTAssertEqual(draftBodies(), [], "the draft went with the save")
    }

    /// The bodies of the app's drafts on disk.
    private func draftBodies() -> [String] {
        AppHarness.draftTexts(in: app.drafts)
    }

    // MARK: - Creates, renames, deletes and a conflicting save, in order

    func testChangesMadeOfflineReachTheServerInOrderAndAConflictIsMerged() throws {
        let base = "Day 1: Lyon\nDay 2: rest\nDay 3: home\n"
        club = try OfflineClub(notes: ["Plans.txt": base, "Old name.txt": "rename me\n", "Obsolete.txt": "delete me\n"])
        let tmux = try club.launchRay()
        tmux.waitFor("the three notes listed") { screen in
            ["Plans", "Old name", "Obsolete"].allSatisfy { AppHarness.listed($0, in: screen) }
        }
        try filter(tmux, "Plans")
        try tmux.press("Enter")
        tmux.waitFor("Plans open") { $0.contains("Ctrl-S saves") && $0.contains("Day 3: home") }

        club.killServer()

        // 1. A save of line 1 (ann changes line 3 meanwhile, below).
        for _ in 0..<4 { try tmux.press("Up") }
        try tmux.press("C-e")
        try tmux.type(" (ray)")
        tmux.waitFor("Lyon (ray)")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Plans.txt\" in the outbox (1 waiting)")
        // Queued counts as saved: Esc closes without asking.
        try tmux.press("Escape")
        tmux.waitFor("Closed Plans.txt")
        try clearFilter(tmux, "Plans", showing: "Obsolete")

        // 2. A new note.
        try tmux.type("n")
        tmux.waitFor("Enter goes to the text")
        try tmux.type("Packing list")
        tmux.waitFor("Title: Packing list")
        try tmux.press("Enter")
        try tmux.type("Tent, stove")
        tmux.waitFor("Tent, stove")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Packing list.md\" in the outbox (2 waiting)")
        try tmux.press("Escape")
        tmux.waitFor("the new note listed as waiting") { AppHarness.listed("⇡ Packing list (waiting)", in: $0) }

        // 3. A rename.
        try filter(tmux, "Old name")
        try tmux.type("R")
        tmux.waitFor("Rename note")
        try tmux.press("C-u")
        try tmux.type("New name")
        try tmux.press("Enter")
        tmux.waitFor("Renamed \"Old name.txt\" to \"New name.txt\" in the outbox")
        try clearFilter(tmux, "Old name", showing: "New name")

        // 4. A delete.
        try filter(tmux, "Obsolete")
        try tmux.type("d")
        tmux.waitFor("Delete \"Obsolete.txt\"")
        try tmux.type("d")
        tmux.waitFor("Deleted \"Obsolete.txt\" in the outbox")
        try clearFilter(tmux, "Obsolete", showing: "New name")

        waitForStatus(tmux, "offline · 4 waiting")
        XCTAssertEqual(club.outboxItems().count, 4)

        // Meanwhile ann changes another line of Plans on the server.
        let anns = "Day 1: Lyon\nDay 2: rest\nDay 3: home (ann)\n"
        try club.writeAsAnn(anns, note: "Plans.txt")
        XCTAssertEqual(club.text(ofNote: "Plans.txt"), anns)

        // The server is back: everything arrives, ann's line kept beside ray's.
        try club.startServer()
        let merged = "Day 1: Lyon (ray)\nDay 2: rest\nDay 3: home (ann)\n"
        AppHarness.eventually("every change on the server and the outbox empty", timeout: 30) {
            self.club.outboxItems().isEmpty && self.club.text(ofNote: "Plans.txt") == merged
                && self.club.exists("Packing list.md") && self.club.exists("New name.txt")
                && !self.club.exists("Old name.txt") && !self.club.exists("Obsolete.txt")
                // The app logs each item once the sender removed it from the outbox.
                && self.club.sentInLog().count == 4
        }
        XCTAssertEqual(club.text(ofNote: "Plans.txt"), merged, "merged, ann's line never overwritten")
        XCTAssertEqual(club.text(ofNote: "Packing list.md"), "Tent, stove")
        XCTAssertEqual(club.text(ofNote: "New name.txt"), "rename me\n")
        XCTAssertFalse(club.exists("Old name.txt"))
        XCTAssertFalse(club.exists("Obsolete.txt"))
        XCTAssertEqual(club.outboxItems(), [])
        // In the order they were made (the app logs each item as the server confirms it).
        XCTAssertEqual(club.sentInLog(), ["save /byteclub/Plans.txt", "create /byteclub/Packing list.md",
                                          "rename /byteclub/Old name.txt", "delete /byteclub/Obsolete.txt"])
        // Merged, not asked: the status bar says "Merged "Plans" with changes made on the server
        // meanwhile" unless the live news of ann's change replaced it, so the log is checked.
        XCTAssertTrue((AppHarness.text(app.log) ?? "").contains("item=save /byteclub/Plans.txt result=merged"), club.diagnostics())
    }

    /// The same line changed offline by ray and meanwhile on the server by ann: nothing is
    /// overwritten; ray's text leaves the outbox as a draft, and saving it asks (the merge view).
    func testAnOfflineSaveOfALineChangedMeanwhileIsKeptAsADraftAndAsked() throws {
        let base = "Day 1: Lyon\nDay 2: rest\nDay 3: home\n"
        club = try OfflineClub(notes: ["Plans.txt": base])
        let tmux = try club.launchRay()
        tmux.waitFor("Plans")
        try tmux.press("Enter")
        tmux.waitFor("Plans open") { $0.contains("Ctrl-S saves") && $0.contains("Day 3: home") }

        club.killServer()
        for _ in 0..<4 { try tmux.press("Up") }
        try tmux.press("Down")
        try tmux.press("C-e")
        try tmux.type(" in Paris")
        tmux.waitFor("rest in Paris")
        try tmux.press("C-s")
        tmux.waitFor("Saved \"Plans.txt\" in the outbox (1 waiting)")
        try tmux.press("Escape")
        tmux.waitFor("Closed Plans.txt")

        let anns = "Day 1: Lyon\nDay 2: rest at the lake\nDay 3: home\n"
        try club.writeAsAnn(anns, note: "Plans.txt")
        try club.startServer()
        // The status bar says so ("… was changed by someone else meanwhile; open it to merge"),
        // but the live news of ann's change may replace that message at once, so the test
        // reads the outcome from the outbox, the drafts and the log.
        AppHarness.eventually("the outbox empty", timeout: 30) { self.club.outboxItems().isEmpty }
        XCTAssertEqual(club.text(ofNote: "Plans.txt"), anns, "ann's line never overwritten")
        let logged = AppHarness.eventually("the log saying the save conflicted", timeout: 5) {
            (AppHarness.text(self.app.log) ?? "").contains("item=save /byteclub/Plans.txt result=conflict")
        }
        if !logged { XCTFail(club.diagnostics()) }
        let drafts = AppHarness.draftTexts(in: app.drafts)
        XCTAssertTrue(drafts.contains { $0.contains("rest in Paris") },
                      "ray's text kept as a draft: \(drafts)")

        // Opening the note brings ray's text back; saving it asks how to merge.
        let listed = tmux.waitFor("the note listed with its draft") { AppHarness.listed("✎ Plans", in: $0) }
        XCTAssertFalse(listed.contains("⇡ Plans"), "nothing waits any more:\n\(listed)")
        try tmux.press("Enter")
        // The editor holds the draft, modified; its banner may already be ann's live news, so
        // the restored-draft banner ("… · Ctrl-S saves it") is not waited for.
        tmux.waitFor("the draft restored") { $0.contains("Title: Plans") && $0.contains("[+]") && $0.contains("rest in Paris") }
        try tmux.press("C-s")
        tmux.waitFor("Merging with ann's changes")
        XCTAssertEqual(club.text(ofNote: "Plans.txt"), anns)
    }
}
