import Foundation
import TestSupport
import XCTest

/// Issue 53 §4: removing a member. `members remove bob` ended bob's token but not his keys (the
/// next note written still opened with them), and without --root or --remote it exited 64 ("give
/// either --root DIR or --remote NAME") where `members revoke` takes the default remote. Now an
/// admin's `members remove bob` takes config.toml's default remote, and in an encrypted club it
/// also takes bob out of the keys, as `revoke` does: the next note is beyond bob's keys. On the
/// server's machine, `--root` (where no member's keys are) refuses an encrypted club's member
/// and names `revoke`, changing nothing.
final class MemberRemovalJourneyTests: XCTestCase {
    private var club: JourneyClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    func testRemovingAMemberOfAnEncryptedClubTakesTheKeysToo() throws {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann", role: "admin")
        let bob = try club.invite("bob")
        let made = try Journey.run(ann, ["init", "--encrypted"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertNotEqual(try Journey.run(bob, ["ls"]).status, 0, "bob asks to join")
        let admitted = try Journey.run(ann, ["members", "admit", "bob"])
        XCTAssertEqual(admitted.status, 0, admitted.stderr)
        XCTAssertEqual(try bob.cli(["put", "-", "Bob.md"], input: "Bob keeps the mooring lines\n").status, 0)
        let bobKeys = try club.clubKeys(of: bob)

        // On the server's machine, with no member's keys: refused, naming revoke; bob untouched.
        let atRoot = try Journey.run(club.admin, ["members", "remove", "bob", "--root", club.root.path])
        XCTAssertEqual(atRoot.status, 64, atRoot.stderr)
        XCTAssertTrue(atRoot.stderr.contains("/byteclub in \(club.root.path) is an encrypted club"), atRoot.stderr)
        XCTAssertTrue(atRoot.stderr.contains("byteclub members revoke bob"), atRoot.stderr)
        XCTAssertEqual(atRoot.stderr.split(separator: "\n").count, 1, atRoot.stderr)
        XCTAssertEqual(try Journey.run(bob, ["get", "Bob.md", "-"]).stdout, "Bob keeps the mooring lines\n", "bob is still a member")

        // Ann, an admin, through her default remote: bob's token and his keys, in one command.
        let removed = try Journey.run(ann, ["members", "remove", "bob"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(removed.stdout,
                       "bob removed\nRemoved bob: files written from now on use club key generation 2; `byteclub rekey` re-encrypts the older ones\n")
        XCTAssertEqual(try ann.cli(["put", "-", "After.md"], input: "Only for the crew that stays\n").status, 0)
        let after = try XCTUnwrap(try club.sealedFile(holding: "Only for the crew that stays\n", keys: try club.clubKeys(of: ann)))
        XCTAssertNil(try JourneyClub.ageOpen(after, keys: bobKeys), "bob's keys open the note written after his removal")
        XCTAssertNotEqual(try Journey.run(bob, ["ls"]).status, 0, "bob's token is refused")
        let keys = try Journey.run(ann, ["members", "keys"])
        XCTAssertEqual(keys.status, 0, keys.stderr)
        XCTAssertFalse(keys.stdout.contains("bob\t"), keys.stdout)
        // (The text listing shows member ids, so it is read unchecked.)
        let members = try ann.cli(["members", "list"])
        XCTAssertEqual(members.status, 0, members.stderr)
        XCTAssertFalse(members.stdout.contains("bob\t"), members.stdout)
        XCTAssertEqual(try Journey.run(ann, ["get", "Bob.md", "-"]).stdout, "Bob keeps the mooring lines\n", "what bob wrote before stays readable")
    }

    /// Issue 69: a member removed from a plain club is told so, in those words, by every door:
    /// a save in the app (the draft said first, so a narrow bar never cuts it), a command in the
    /// shell, and the app started again over its cached lists (which read "updating…" for ever,
    /// under "Could not load photos", before). Nothing typed is lost.
    func testARemovedMemberIsToldSoEverywhereAndKeepsTheirText() throws {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann", role: "admin")
        let bob = try club.invite("bob")
        let plan = try bob.cli(["put", "-", "Plan.md"], input: "Plan: rig the jib\n")
        XCTAssertEqual(plan.status, 0, plan.stderr)

        let screen = try bob.launch([])
        Journey.see(screen, ["Plan"], "bob's notes list")
        try Journey.open(screen, "Plan", showing: "Plan: rig the jib")

        let removed = try Journey.run(ann, ["members", "remove", "bob"])
        XCTAssertEqual(removed.status, 0, removed.stderr)

        // His save: refused for good, the draft first, never "Saved" and no "Ctrl-S retries".
        try screen.press("End")
        try screen.type(" and the main")
        try screen.press("C-s")
        let refused = Journey.see(screen, ["Kept as a draft, not saved \"Plan\": You (bob) were removed from this club"],
                                  "bob's refused save")
        XCTAssertFalse(refused.contains("Saved \"Plan.md\""), refused)
        XCTAssertFalse(refused.contains("retries"), refused)
        Journey.draftHolds(bob, "Plan: rig the jib and the main")

        // The shell says the same, with the removal's exit status, for a read and a write.
        let listed = try bob.cli(["ls"])
        XCTAssertEqual(listed.status, 5, listed.stderr)
        XCTAssertEqual(listed.stderr, "byteclub: You (bob) were removed from this club\n")
        let put = try bob.cli(["put", "-", "Plan.md", "--mode", "overwrite"], input: "Plan: sink the boat\n")
        XCTAssertEqual(put.status, 5, put.stderr)
        XCTAssertTrue(put.stderr.contains("You (bob) were removed from this club"), put.stderr)
        XCTAssertEqual(try Journey.run(ann, ["get", "Plan.md", "-"]).stdout, "Plan: rig the jib\n")

        // Started again over its cached lists: said over the list, never "updating…" for ever.
        let pid = try XCTUnwrap(bob.appPID(), "bob's app runs")
        kill(pid, SIGKILL)
        _ = screen.waitFor(bob.exitLine(137))
        let again = try bob.launch([])
        let shown = Journey.see(again, ["Could not load notes: You (bob) were removed from this club"], "bob's app started again")
        XCTAssertFalse(shown.contains("updating…"), shown)
        XCTAssertTrue(AppHarness.listed("Plan", in: shown), "the cached list stays beneath: \(shown)")
    }

    func testRemovingAMemberOfAPlainClubTakesTheDefaultRemote() throws {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann", role: "admin")
        let bob = try club.invite("bob")
        XCTAssertEqual(try Journey.run(bob, ["ls"]).status, 0)

        let removed = try Journey.run(ann, ["members", "remove", "bob"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(removed.stdout, "bob removed\n", "a plain club has no keys to change")
        XCTAssertEqual(try Journey.run(bob, ["ls"]).status, 5, "bob's token is refused")

        // Not an admin: refused before anything changes.
        let carol = try club.invite("carol")
        let dan = try club.invite("dan")
        let refused = try Journey.run(carol, ["members", "remove", "dan"])
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertEqual(try Journey.run(dan, ["ls"]).status, 0, "dan is still a member")
        // --root on a plain club works as before.
        let atRoot = try Journey.run(club.admin, ["members", "remove", "dan", "--root", club.root.path])
        XCTAssertEqual(atRoot.status, 0, atRoot.stderr)
        XCTAssertEqual(atRoot.stdout, "dan removed\n")
    }
}
