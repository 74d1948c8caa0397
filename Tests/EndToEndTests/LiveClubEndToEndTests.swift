import Foundation
import TestSupport
import XCTest

/// The live club in real terminals: two members' apps on one `byteclub serve` (TwoMemberClub).
/// One member's new note shows in the other's list with no key pressed there, and `H` shows a
/// note's history and restores its oldest text. Results are checked on the server's disk.
final class LiveClubEndToEndTests: XCTestCase {
    var club: TwoMemberClub!

    override func tearDown() {
        club?.close()
    }

    func testANoteCreatedByOneMemberAppearsInTheOthersListWithoutAKeyPress() throws {
        club = try TwoMemberClub(notes: ["Plans.txt": "Meet on Friday\n"])
        let (ray, ann) = try club.launchBoth(waitingFor: "Plans")

        try ray.type("n")
        ray.waitFor("Enter goes to the text")
        try ray.type("Trip plan")
        ray.waitFor("Title: Trip plan")
        try ray.press("Enter")
        try ray.type("Day 1: Lyon")
        try ray.press("C-s")
        ray.waitFor("Saved \"Trip plan.md\"")
        XCTAssertEqual(club.text(ofNote: "Trip plan.md"), "Day 1: Lyon")

        // Nothing is pressed in ann's terminal: the list and the status bar change by themselves.
        let screen = ann.waitFor("ray added \"Trip plan\"")
        XCTAssertTrue(AppHarness.listed("Trip plan", in: screen), screen)
        XCTAssertTrue(AppHarness.listed("Plans", in: screen), "the other notes stay: \(screen)")
    }

    func testHistoryShowsThreeRevisionsAfterTwoSavesAndEnterRestoresTheOldest() throws {
        club = try TwoMemberClub(notes: ["Plans.txt": "Meet on Friday\n"])
        let ray = try club.launch(.ray)
        ray.waitFor("Plans")
        try ray.press("Enter")
        ray.waitFor("Meet on Friday")
        try ray.type("Saturday? ")
        try ray.press("C-s")
        AppHarness.eventually("the first save") { self.club.text(ofNote: "Plans.txt") == "Saturday? Meet on Friday\n" }
        // The file is written before the app has the server's reply; Ctrl-S while a save is in
        // flight does nothing, so the second one waits for the first to be done.
        ray.waitFor("Saved \"Plans.txt\"")
        try ray.type("Sunday! ")
        try ray.press("C-s")
        AppHarness.eventually("the second save") { self.club.text(ofNote: "Plans.txt") == "Saturday? Sunday! Meet on Friday\n" }
        // The file is on the server before the app has the reply, and the first save's "Saved"
        // line may still be up: the `[+]` marker going is what says the app has it.
        ray.waitFor("the second save's reply") { !$0.contains("[+]") }
        try ray.press("Escape")
        ray.waitFor("Closed Plans.txt")

        try ray.type("H")
        ray.waitFor("History of \"Plans\"")
        let stamp = try NSRegularExpression(pattern: #"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"#)
        ray.waitFor("three revisions listed") { screen in
            stamp.numberOfMatches(in: screen, range: NSRange(screen.startIndex..., in: screen)) == 3
        }
        try ray.press("End")
        ray.waitFor("- Meet on Friday")
        try ray.press("Enter")
        ray.waitFor("Restore this revision?")
        try ray.press("Left")
        try ray.press("Enter")
        ray.waitFor("Restored \"Plans\"")
        AppHarness.eventually("the oldest text back on the server") { self.club.text(ofNote: "Plans.txt") == "Meet on Friday\n" }
    }
}
