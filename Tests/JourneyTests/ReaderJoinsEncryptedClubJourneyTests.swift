import Foundation
import TestSupport
import XCTest

/// Issue 69: a reader joining an encrypted club was refused the one write joining takes, its
/// request to join (exit 5, "You may only read in this club, not change
/// /byteclub/.clubkeys/requests/…"), so `members admit` then found nobody to admit. A reader may
/// write its own request to join, and nothing else: admitted, it reads every note, and its
/// writes are refused as a reader's always are.
final class ReaderJoinsEncryptedClubJourneyTests: XCTestCase {
    private var club: JourneyClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    func testAReaderAsksToJoinAnEncryptedClubIsAdmittedAndReadsOnly() throws {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann", role: "admin")
        XCTAssertEqual(try Journey.run(ann, ["init", "--encrypted"]).status, 0)
        let put = try ann.cli(["put", "-", "Plans.md"], input: "Sail at dawn\n")
        XCTAssertEqual(put.status, 0, put.stderr)

        // Ray, a reader, joins after the club was made encrypted: his first command asks to be admitted.
        let ray = try club.invite("ray", role: "reader")
        let asked = try Journey.run(ray, ["ls"])
        XCTAssertNotEqual(asked.status, 0, "not admitted yet")
        XCTAssertFalse(asked.stderr.contains("may only read"), "the request to join refused: \(asked.stderr)")
        XCTAssertTrue(asked.stderr.contains("asked to join as ray"), asked.stderr)

        let admitted = try Journey.run(ann, ["members", "admit", "ray"])
        XCTAssertEqual(admitted.status, 0, "members admit found nobody: " + admitted.stderr)
        let read = try Journey.run(ray, ["get", "Plans.md", "-"])
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertEqual(read.stdout, "Sail at dawn\n")

        // Still a reader: a note of his own is refused with the reader's sentence.
        let write = try ray.cli(["put", "-", "Mine.md"], input: "Not allowed\n")
        XCTAssertEqual(write.status, 5, write.stderr)
        XCTAssertTrue(write.stderr.contains("You may only read in this club"), write.stderr)
        XCTAssertNil(club.text("Mine.md"))
    }
}
