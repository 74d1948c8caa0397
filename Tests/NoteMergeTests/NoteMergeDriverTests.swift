import ClubKit
import NoteMerge
import XCTest

/// The one merge driver the outbox, the app and the command line ask (issue 54): its verdicts,
/// which each caller used to work out for itself.
final class NoteMergeDriverTests: XCTestCase {
    private let base = "# Plan\n\nmonday: walk\ntuesday: swim\nwednesday: rest\n"

    func testChangesApartAreMergedAndToBeSent() {
        let mine = base.replacingOccurrences(of: "monday: walk", with: "monday: run")
        let theirs = base.replacingOccurrences(of: "wednesday: rest", with: "wednesday: climb")
        XCTAssertEqual(NoteMergeDriver.merge(base: base, mine: mine, theirs: theirs),
                       .merged("# Plan\n\nmonday: run\ntuesday: swim\nwednesday: climb\n"))
    }

    func testTheirsHoldingEveryChangeOfMineIsTakenAndNothingIsSent() {
        let mine = base.replacingOccurrences(of: "monday: walk", with: "monday: run")
        let theirs = mine + "thursday: read\n"
        XCTAssertEqual(NoteMergeDriver.merge(base: base, mine: mine, theirs: theirs), .theirsHoldsMine(theirs))
    }

    func testOverlappingChangesAreLeftToTheUserWithBothSides() throws {
        let mine = base.replacingOccurrences(of: "tuesday: swim", with: "tuesday: bike")
        let theirs = base.replacingOccurrences(of: "tuesday: swim", with: "tuesday: row")
        guard case .overlapping(let result) = NoteMergeDriver.merge(base: base, mine: mine, theirs: theirs) else {
            return XCTFail("the same line changed on both sides must overlap")
        }
        XCTAssertEqual(result.conflictCount, 1)
        XCTAssertEqual(result.resolved([.mine]), mine)
        XCTAssertEqual(result.resolved([.theirs]), theirs)
    }

    func testTypingDoneDuringAMergesSaveGoesOntoTheMergeOrIsRefusedWhereItOverlaps() {
        let mine = base
        let merged = base.replacingOccurrences(of: "wednesday: rest", with: "wednesday: climb")
        XCTAssertEqual(NoteMergeDriver.rebase(typed: "intro\n" + mine, from: mine, onto: merged), "intro\n" + merged)
        XCTAssertNil(NoteMergeDriver.rebase(typed: base.replacingOccurrences(of: "wednesday: rest", with: "wednesday: nap"), from: mine, onto: merged))
    }

    func testADraftCaughtUpMarksOverlapsWithTheirNameAndTheMarksAreFound() {
        let draft = base.replacingOccurrences(of: "tuesday: swim", with: "tuesday: bike")
        let theirs = base.replacingOccurrences(of: "tuesday: swim", with: "tuesday: row")
        let caught = NoteMergeDriver.catchUp(draft: draft, base: base, theirs: theirs, who: "bob")
        XCTAssertTrue(caught.overlapped)
        XCTAssertEqual(caught.text, "# Plan\n\nmonday: walk\n<<<<<<< yours\ntuesday: bike\n=======\ntuesday: row\n>>>>>>> bob\nwednesday: rest\n")
        XCTAssertTrue(ConflictMarkers.present(in: caught.text))
        let clean = NoteMergeDriver.catchUp(draft: draft, base: base, theirs: base + "more\n", who: "bob")
        XCTAssertEqual(clean.text, draft + "more\n")
        XCTAssertFalse(clean.overlapped)
        XCTAssertFalse(ConflictMarkers.present(in: clean.text))
    }
}
