import Foundation
import TestSupport
import XCTest

/// A note deleted by one member while another edits it, in real terminals on a `byteclub serve`
/// with two members (TwoMemberClub): ray types in "Plans", ann deletes it from her list, and
/// ray's editor says `Deleted by ann` with no key pressed there; Ctrl-S then offers to save it
/// again as a new note or to discard it, never "changed on the server", and saving it again puts
/// ray's text back on the server's disk.
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
        ray.waitFor("Deleted by ann")
        try ray.press("C-s")
        let asked = ray.waitFor(all: ["Save as new note", "Discard", "was deleted on the server by ann"])
        XCTAssertFalse(asked.contains("changed on the server"), asked)
        try ray.type("s")
        let saved = ray.waitFor("Saved \"Plans.txt\"")
        XCTAssertFalse(saved.contains("Deleted by ann"), "the banner goes once it is saved again: \(saved)")
        XCTAssertEqual(club.text(ofNote: "Plans.txt"), "Saturday? Meet on Friday\n")
    }
}
