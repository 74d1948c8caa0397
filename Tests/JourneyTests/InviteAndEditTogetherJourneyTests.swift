import Foundation
import TestSupport
import XCTest

/// Journey 1, invite and edit together: the club's admin serves a folder and invites two
/// members; each joins from a home of their own and opens the app; ann edits a note bob has
/// open; bob's screen, his history, `log` and `watch --json` all say it was ann.
///
/// The defects it holds (issue 43 §1): `users/get_account` read only `serve --member` flags, so a
/// member added by `members add` was `no_account` and every screen and output showed
/// `dbid:…` for them: bob's status bar said `Reloaded "Meeting": dbid:yD12…changed it`, the
/// banner `Changed by dbid:…`, the merge view "another member's", the search results, and
/// `log`, `watch`, `search --json`, `ls --json` (even for one's own changes) gave the id. §2: `watch` with no folder watched `/` without its subfolders, and a note could not be
/// named by its title in `log`.
final class InviteAndEditTogetherJourneyTests: XCTestCase {
    private var club: JourneyClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    func testAnnEditsANoteBobHasOpenAndEverythingBobSeesNamesAnn() throws {
        let club = try JourneyClub(notes: ["Meeting.md": "Agenda\n- budget\n"])
        self.club = club

        // The admin invites two members; each joins from a home of their own.
        let ann = try club.invite("ann")
        let bob = try club.invite("bob")

        // Bob watches the club from a script, with no folder: the club's folder, subfolders too.
        let watch = try bob.start(["watch", "--json"])
        defer { _ = watch.finish() }
        XCTAssertTrue(watch.waitForErrors("watching /byteclub and its subfolders"), watch.stderrSoFar)

        // Both open the app on the club their invite named (config.toml's default remote).
        // Members who save, live editing off (`--no-live`): the reload and the merge are this
        // journey's; typing together live is LiveEditingEndToEndTests'.
        let bobScreen = try bob.launch(["--no-live"])
        let annScreen = try ann.launch(["--no-live"])
        Journey.see(bobScreen, ["Meeting"], "bob's notes list")
        Journey.see(annScreen, ["Meeting"], "ann's notes list")

        // Bob opens the meeting note and reads it.
        try bobScreen.press("Enter")
        Journey.see(bobScreen, ["Agenda", "- budget"], "bob's editor")

        // Ann opens it too, adds a line and saves.
        try annScreen.press("Enter")
        Journey.see(annScreen, ["Agenda"], "ann's editor")
        try annScreen.press("End")
        try annScreen.type(" (ann: and the boat)")
        try annScreen.press("C-s")
        Journey.see(annScreen, ["Saved \"Meeting.md\""], "ann's save")
        XCTAssertEqual(club.text("Meeting.md"), "Agenda (ann: and the boat)\n- budget\n")

        // Bob, who had not touched it, gets ann's text in place, and is told who wrote it.
        Journey.see(bobScreen, ["Reloaded \"Meeting\": ann changed it", "Agenda (ann: and the boat)"], "bob's screen after ann's save")

        // Both change the first line now: ann saves first. Bob, with his edit unsaved, is told
        // by name, and his save opens the merge view with her side named; he keeps both.
        for _ in 0..<8 { try bobScreen.press("Up") }
        try bobScreen.press("C-e")
        try bobScreen.type(" (bob: sails)")
        Journey.see(bobScreen, ["Agenda (ann: and the boat) (bob: sails)"], "bob's unsaved line")
        try annScreen.type(" and the oars")
        try annScreen.press("C-s")
        // Her first save's message is still on screen: the second is seen on the server's disk.
        AppHarness.eventually("ann's second save on the server") { club.text("Meeting.md")?.contains("and the oars") == true }
        Journey.see(bobScreen, ["Changed by ann", "Ctrl-R merge now"], "bob's banner after ann's second save")
        try bobScreen.press("C-s")
        Journey.see(bobScreen, ["Merging with ann's changes", "Conflict 1 of 1", "m mine · t theirs · b both"], "bob's merge view")
        try bobScreen.type("b")
        AppHarness.eventually("bob's merge, both lines, on the server") {
            let merged = club.text("Meeting.md") ?? ""
            return merged.contains("Agenda (ann: and the boat) and the oars\n") && merged.contains("Agenda (ann: and the boat) (bob: sails)\n")
        }
        bobScreen.waitFor("the merge view closed") { !$0.contains("Merging with ann's changes") }

        // His history of the note names her. The view may still be saving the merge ("Saving
        // the merge with ann's changes…"): Esc then closes the note once the save is done, and
        // no key reaches the note meanwhile, so the H that follows is the list's.
        try bobScreen.press("Escape")
        Journey.see(bobScreen, ["Closed Meeting.md"], "bob's list after closing")
        try bobScreen.type("H")
        let history = Journey.see(bobScreen, ["History of \"Meeting\"", "ann"], "bob's history of Meeting")
        XCTAssertFalse(history.contains("another member"), history)
        XCTAssertFalse(history.contains("Title: Meeting"), "no note open under the history: \(history)")
        XCTAssertEqual(draftsOfMeeting(bob), [], "the H was not typed into the note (its draft would hold it)")

        // So does `log`, with the note named by its title as the app shows it.
        let log = try Journey.run(bob, ["log", "Meeting"])
        XCTAssertEqual(log.status, 0, log.stderr)
        let revisions = log.stdout.split(separator: "\n")
        XCTAssertTrue(revisions.first?.hasSuffix("you (bob)") == true, log.stdout)
        XCTAssertEqual(revisions.filter { $0.hasSuffix("ann") }.count, 2, log.stdout)
        let logJSON = try Journey.run(bob, ["log", "Meeting", "--json"])
        XCTAssertTrue(logJSON.stdout.contains(#""modified_by":"ann""#), logJSON.stdout)

        // Ann adds a note from the shell; bob's search, in the app and from a script, names her.
        let put = try ann.cli(["put", "-", "Boat.md"], input: "Mooring at dawn\n")
        Journey.check(put, "ann's put")
        XCTAssertEqual(put.status, 0, put.stderr)
        try bobScreen.press("Escape")
        try bobScreen.press("C-f")
        Journey.see(bobScreen, ["Search every note"], "bob's search")
        try bobScreen.type("mooring")
        Journey.see(bobScreen, ["Boat", "ann · ", "Mooring at dawn"], "bob's search results")
        try bobScreen.press("Escape")
        bobScreen.waitFor("the notes list") { !$0.contains("Search every note") }
        let found = try Journey.run(bob, ["search", "mooring", "--json"])
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertTrue(found.stdout.contains(#""modified_by":"ann""#), found.stdout)

        // And bob's watch printed her change, by name.
        XCTAssertTrue(watch.waitForOutput(#""modified_by":"ann""#), watch.stdoutSoFar + watch.stderrSoFar)
        XCTAssertTrue(watch.stdoutSoFar.contains(#""path_display":"/byteclub/Meeting.md""#), watch.stdoutSoFar)

        // Ann's own listing names her too: her changes are hers, by name.
        let listing = try Journey.run(ann, ["ls", "--json"])
        XCTAssertTrue(listing.stdout.contains(#""modified_by":"ann""#), listing.stdout)

        let watched = watch.finish()
        Journey.check(watched, "bob's watch --json")
    }

    /// The texts of `member`'s drafts of the meeting note (none once a save has its text).
    private func draftsOfMeeting(_ member: AppHarness) -> [String] {
        AppHarness.draftTexts(under: member.base).filter { $0.contains("(bob: sails)") }
    }
}
