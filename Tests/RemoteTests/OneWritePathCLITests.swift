import Foundation
import TestSupport
import XCTest

/// Issue 69, one write path: `byteclub rm` and `byteclub mv` write through the outbox's rules,
/// as the app's writes do (OutboxSender.Direct). `rm` deleted a folder the app would refuse to
/// delete while a change queued on this machine still wrote into it, and `mv` left the queued
/// change at the old path (sent there, it found the folder gone and came back as a draft).
final class OneWritePathCLITests: XCTestCase {
    private var club: OfflineClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    func testRmAndMvFromTheShellKeepTheOutboxsRules() throws {
        let club = try OfflineClub(notes: ["Trips/Day one.md": "Rig the jib\n"])
        self.club = club
        let server = ["--server", club.url, "--token", club.token(of: .ray)]

        // A note written while the club is away waits in the outbox, in Trips/.
        club.killServer()
        let queued = try club.app.cli(["new", "Day two", "--folder", "Trips", "--no-edit"] + server, input: "Pack the tent\n")
        XCTAssertEqual(queued.status, 75, queued.stderr)
        try club.startServer()

        // rm -r of the folder it writes into: refused, said, nothing deleted (exit 4).
        let removed = try club.app.cli(["rm", "-r", "Trips"] + server)
        XCTAssertEqual(removed.status, 4, removed.stderr)
        XCTAssertEqual(removed.stderr, "byteclub: a change to \"Trips\" waits to be sent first (byteclub outbox lists it)\n")
        XCTAssertTrue(club.exists("Trips/Day one.md"), "nothing deleted")

        // mv of the folder: the queued note follows it, and lands there when sent.
        let moved = try club.app.cli(["mv", "Trips", "Voyages"] + server)
        XCTAssertEqual(moved.status, 0, moved.stderr)
        let listed = try club.app.cli(["outbox", "--json"] + server)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.contains("/byteclub/Voyages/Day two.md"), listed.stdout)
        XCTAssertFalse(listed.stdout.contains("/byteclub/Trips/"), listed.stdout)
        let sent = try club.app.cli(["outbox", "--send"] + server)
        XCTAssertEqual(sent.status, 0, sent.stderr)
        XCTAssertEqual(club.text(ofNote: "Voyages/Day two.md"), "Pack the tent\n")
        XCTAssertEqual(club.text(ofNote: "Voyages/Day one.md"), "Rig the jib\n")
        XCTAssertFalse(club.exists("Trips"), "nothing written back where it was")

        // With nothing waiting, rm -r goes as before.
        let gone = try club.app.cli(["rm", "-r", "Voyages"] + server)
        XCTAssertEqual(gone.status, 0, gone.stderr)
        XCTAssertFalse(club.exists("Voyages/Day one.md"))
    }
}
