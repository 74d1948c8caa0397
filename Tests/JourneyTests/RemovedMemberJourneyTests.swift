import Foundation
import TestSupport
import XCTest

/// Journey: a member removed from an encrypted club while they edit (issue 53, item 3). Bob has
/// his plan open in the app when ann revokes him. His Ctrl-S is refused on his own screen at
/// once, never "Saved", and his text stays a draft on his machine; his `put` from the shell is
/// refused with the removal's exit status. A late write of his that reaches the server anyway
/// (his own client, old keys) never hides the plan's last good version from ann: she reads it,
/// and is told what was refused.
final class RemovedMemberJourneyTests: XCTestCase {
    private var club: JourneyClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    func testARemovedMembersSaveIsRefusedToThemAndTheNoteStaysReadable() throws {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann")
        let bob = try club.invite("bob")
        XCTAssertEqual(try Journey.run(ann, ["init", "--encrypted"]).status, 0)
        XCTAssertNotEqual(try Journey.run(bob, ["ls"]).status, 0, "bob asks to join")
        XCTAssertEqual(try Journey.run(ann, ["members", "admit", "bob"]).status, 0, "ann admits bob")
        let plan = try bob.cli(["put", "-", "Bob's plan.md"], input: "Plan: rig the jib\n")
        XCTAssertEqual(plan.status, 0, plan.stderr)

        // Bob opens his plan in the app.
        let screen = try bob.launch([])
        Journey.see(screen, ["Bob's plan"], "bob's notes list")
        try Journey.open(screen, "Bob", showing: "Plan: rig the jib")

        // Ann removes him.
        let revoked = try Journey.run(ann, ["members", "revoke", "bob"])
        XCTAssertEqual(revoked.status, 0, revoked.stderr)

        // Bob types and saves: refused on his screen, with the reason; never "Saved".
        try screen.press("End")
        try screen.type(" and the main")
        try screen.press("C-s")
        Journey.see(screen, ["Kept as a draft, not saved \"Bob's plan\": You (bob) were removed from this encrypted club"], "bob's refused save")
        XCTAssertFalse(screen.capture().contains("Saved \"Bob's plan.md\""), screen.capture())
        // His text is kept on his machine as a draft.
        Journey.draftHolds(bob, "Plan: rig the jib and the main")
        // The server holds the plan as it was: ann reads it.
        let read = try Journey.run(ann, ["get", "Bob's plan.md", "-"])
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertEqual(read.stdout, "Plan: rig the jib\n")

        // From the shell too: refused at once, exit 5, nothing sent.
        let put = try bob.cli(["put", "-", "Bob's plan.md", "--mode", "overwrite"], input: "Plan: sink the boat\n")
        XCTAssertEqual(put.status, 5, put.stderr)
        XCTAssertTrue(put.stderr.contains("You (bob) were removed from this encrypted club: nothing was read or sent"), put.stderr)
        XCTAssertEqual(try Journey.run(ann, ["get", "Bob's plan.md", "-"]).stdout, "Plan: rig the jib\n")
    }
}
