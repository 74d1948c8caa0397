import Foundation
import TestSupport
import XCTest

/// A note deleted by one member while another edits it, in real terminals on a `byteclub serve`
/// with two members (TwoMemberClub): ray types in "Plans", ann deletes it from her list, and
/// ray's editor says `Deleted by ann · Ctrl-S saves it again as a new note` with no key pressed
/// there; Ctrl-S then does just that (issue 53 §2), never "changed on the server", and ray's text
/// is back on the server's disk.
final class NoteDeletedWhileOpenEndToEndTests: XCTestCase {
    var club: TwoMemberClub!

    override func tearDown() {
        club?.close()
    }

    /// Filters `tmux`'s list to `title` (the row is then the selected one).
    func filter(to title: String, in tmux: TmuxSession) throws {
        try tmux.type("/")
        try tmux.type(title)
        try tmux.press("Enter")
        tmux.waitFor("the list filtered to \(title)") { $0.contains("/ \(title)") }
    }

    func testAnnDeletesTheNoteRayEditsAndRaySavesItAgainAsANewNote() throws {
        club = try TwoMemberClub(notes: ["Plans.txt": "Meet on Friday\n", "Budget.txt": "100\n"])
        let (ray, ann) = try club.launchBoth(waitingFor: "Plans")

        try filter(to: "Plans", in: ray)
        try ray.press("Enter")
        ray.waitFor("Meet on Friday")
        try ray.type("Saturday? ")
        ray.waitFor("[+]")

        try filter(to: "Plans", in: ann)
        try ann.type("d")
        ann.waitFor("Delete \"Plans.txt\" from the club folder?")
        try ann.type("d")
        AppHarness.eventually("the note gone from the server's disk") { self.club.text(ofNote: "Plans.txt") == nil }

        // Nothing is pressed in ray's terminal: the editor says who deleted it.
        ray.waitFor("Deleted by ann · Ctrl-S saves it again as a new note")
        try ray.press("C-s")
        let saved = ray.waitFor("Saved \"Plans.txt\"")
        XCTAssertFalse(saved.contains("changed on the server"), saved)
        XCTAssertFalse(saved.contains("Save as new note"), "Ctrl-S saves as the banner says, with no question: \(saved)")
        XCTAssertFalse(saved.contains("Deleted by ann"), "the banner goes once it is saved again: \(saved)")
        XCTAssertFalse(saved.contains("[+]"), "saved: \(saved)")
        XCTAssertEqual(club.text(ofNote: "Plans.txt"), "Saturday? Meet on Friday\n")
    }
}
