import Foundation
import TestSupport
import XCTest

/// `n`/`N` after a search jump between matches only until the user works somewhere else: once the
/// cursor is moved by hand, a word typed there that starts with n is that word, never a jump.
final class SearchHitsEndToEndTests: XCTestCase {
    private var two: TwoMemberClub?

    override func tearDown() { two?.close() }

    func testAfterTheCursorMovesNAndNAreLettersAgain() throws {
        let club = try TwoMemberClub(notes: ["Trip plan.txt": "We need a boat hire\nsecond boat line here\n"])
        two = club
        let ray = try club.launch(.ray)
        ray.waitFor("Trip plan")
        try ray.press("C-f")
        ray.waitFor("Search every note")
        try ray.type("boat")
        ray.waitFor("the note in the results") { $0.contains("Trip plan") && $0.contains("1 note") }
        try ray.press("Enter")
        ray.waitFor("Search: ")
        // `n` still jumps while nothing was moved by hand.
        try ray.type("n")
        ray.waitFor("the second match") { $0.contains("match 2 of") }
        // Then the user moves to the end of the line and types a word starting with n.
        try ray.press("End")
        try ray.type("nice")
        try ray.press("C-s")
        ray.waitFor("Saved \"Trip plan.txt\"")
        XCTAssertEqual(club.text(ofNote: "Trip plan.txt"), "We need a boat hire\nsecond boat line herenice\n")
    }
}
