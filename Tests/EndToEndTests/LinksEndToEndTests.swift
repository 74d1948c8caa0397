import Foundation
import TestSupport
import XCTest

/// Links between notes in real terminals, on a `byteclub serve` with two members
/// (TwoMemberClub): a `[[link]]` followed with "Follow the link" (Ctrl-]) and back with "Back"
/// (Ctrl-O), a missing note created from its link; a backlink that appears in the "Backlinks"
/// panel (Alt-L) with no key pressed when the other member adds a linking note; a rename that
/// updates two linking notes on the server's disk and leaves a look-alike title alone.
final class LinksEndToEndTests: XCTestCase {
    var club: TwoMemberClub!

    override func tearDown() {
        club?.close()
    }

    func testAWikiLinkIsFollowedAndBackReturnsAndAMissingNoteIsCreated() throws {
        club = try TwoMemberClub(notes: [
            "Trip plan.md": "Day 1: Lyon\n[[Packing list]] comes first\nThen [[Nowhere yet]]\n",
            "Packing list.md": "Boots\nRain jacket\n",
        ])
        let ray = try club.launch(.ray)
        ray.waitFor("Packing list")
        try club.open("Trip plan", in: ray, showing: "Day 1: Lyon")

        // The cursor opens at the start of the body: one line down is on the link.
        try ray.press("Down")
        try ray.press("C-]")
        ray.waitFor(all: ["Rain jacket", "Title: Packing list"])

        try ray.press("C-o")
        ray.waitFor("the trip plan again, the packing list gone") { screen in
            screen.contains("Day 1: Lyon") && screen.contains("Title: Trip plan") && !screen.contains("Rain jacket")
        }
        try ray.press("C-o")
        ray.waitFor("No note to go back to")

        // A link to a note that does not exist offers to create it (Create is the default).
        try ray.press("Down")
        try ray.press("Down")
        try ray.press("End")
        try ray.press("Left")
        try ray.press("C-]")
        ray.waitFor("No note is titled \"Nowhere yet\"")
        try ray.press("Enter")
        ray.waitFor("Title: Nowhere yet")
        try ray.type("Found it")
        try ray.press("C-s")
        ray.waitFor("Saved \"Nowhere yet.md\"")
        XCTAssertEqual(club.text(ofNote: "Nowhere yet.md"), "Found it")
        try ray.press("C-o")
        ray.waitFor("Day 1: Lyon")
    }

    func testABacklinkAppearsWithNoKeyPressedWhenAnotherMemberAddsALinkingNote() throws {
        club = try TwoMemberClub(notes: ["Trip plan.md": "Day 1: Lyon\n", "Budget.md": "See [[Trip plan]] for dates\n"])
        let (ray, ann) = try club.launchBoth(waitingFor: "Budget")
        try club.open("Trip plan", in: ray, showing: "Day 1: Lyon")
        try ray.press("M-l")
        ray.waitFor("Backlinks of \"Trip plan\"")
        ray.waitFor("1: See [[Trip plan]] for dates")

        try ann.type("n")
        ann.waitFor("Enter goes to the text")
        try ann.type("Packing")
        try ann.press("Enter")
        try ann.type("Before the [[trip plan|trip]] we pack")
        try ann.press("C-s")
        ann.waitFor("Saved \"Packing.md\"")

        // Nothing is pressed in ray's terminal: the panel lists the new note by itself.
        ray.waitFor(all: ["1: Before the [[trip plan|trip]] we pack", "Backlinks of \"Trip plan\" (2)"])

        // The selection stayed on the note it was on while the list changed under it: Enter
        // opens that one; Back returns.
        try ray.press("Enter")
        ray.waitFor("Title: Budget")
        try ray.press("C-o")
        ray.waitFor("Day 1: Lyon")
    }

    func testARenameUpdatesTheTwoNotesThatLinkToIt() throws {
        club = try TwoMemberClub(notes: [
            "Trip plan.md": "Day 1: Lyon\n",
            "Packing.md": "Before the [[Trip plan]] we pack\n",
            "Budget.md": "See [[trip plan|the plan]] and [[Trip plan#Day 1]]\n",
            "Other.md": "[[Trip planner]] is another note\n",
        ])
        let ray = try club.launch(.ray)
        ray.waitFor("Budget")
        // The panel shows both linking notes once the index has them: then the rename can count them.
        try club.open("Trip plan", in: ray, showing: "Day 1: Lyon")
        try ray.press("M-l")
        ray.waitFor("Backlinks of \"Trip plan\" (2)")
        try ray.press("Escape")
        ray.waitFor("the panel closed") { !$0.contains("Backlinks of") }
        try ray.press("Escape")
        ray.waitFor("Closed Trip plan.md")

        try ray.type("R")
        ray.waitFor("Rename note")
        try ray.press("C-u")
        try ray.type("Journey")
        try ray.press("Enter")
        ray.waitFor("2 notes link to [[Trip plan]] (3 links).")
        try ray.press("Enter")
        ray.waitFor("Updated links in 2 notes")
        XCTAssertEqual(club.text(ofNote: "Packing.md"), "Before the [[Journey]] we pack\n")
        XCTAssertEqual(club.text(ofNote: "Budget.md"), "See [[Journey|the plan]] and [[Journey#Day 1]]\n")
        XCTAssertEqual(club.text(ofNote: "Other.md"), "[[Trip planner]] is another note\n")
        XCTAssertEqual(club.text(ofNote: "Journey.md"), "Day 1: Lyon\n")
    }
}
