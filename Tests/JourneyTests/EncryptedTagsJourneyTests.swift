import Foundation
import TestSupport
import XCTest

/// Issue 53 §5: tags and pins are the club's data. A plain club's tags and pins survive
/// `init --encrypted` (once, every one was gone and `tag` said "Not supported by this remote:
/// tags"); afterwards `tag`, `ls --tag`, a move and the app's list and `/#tag` filter work as in
/// a plain club, a note's front matter still tags it, and the server holds no tag's name.
final class EncryptedTagsJourneyTests: XCTestCase {
    private var club: JourneyClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    private func lines(_ text: String) -> Set<String> { Set(text.split(separator: "\n").map(String.init)) }

    func testTagsAndPinsSurviveEncryptionSealedAndStillWork() throws {
        let club = try JourneyClub(notes: ["Trip.md": "Boat on Friday\n", "Budget.md": "100 for the boat\n", "Old/Log.md": "Wind from the west\n"])
        self.club = club
        let ann = try club.invite("ann")
        XCTAssertEqual(try Journey.run(ann, ["tag", "Trip", "+sailing", "+pinned"]).status, 0)
        XCTAssertEqual(try Journey.run(ann, ["tag", "Old/Log", "+sailing"]).status, 0)

        let made = try Journey.run(ann, ["init", "--encrypted"])
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertTrue(made.stdout.contains("Encrypted club: "), made.stdout)
        XCTAssertNil(club.text("Trip.md"), "no note left in plain")

        // Every tag and the pin came through, each note by its own name.
        let trip = try Journey.run(ann, ["tag", "Trip"])
        XCTAssertEqual(trip.status, 0, trip.stderr)
        XCTAssertEqual(lines(trip.stdout), ["sailing", "pinned"])
        XCTAssertEqual(lines(try Journey.run(ann, ["tag", "Old/Log"]).stdout), ["sailing"])
        let listed = try Journey.run(ann, ["ls", "--tag", "sailing"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.contains("Trip.md"), listed.stdout)
        XCTAssertFalse(listed.stdout.contains("Budget.md"), listed.stdout)

        // Changed as in a plain club; a move keeps them (a move here is a copy and a delete).
        let money = try Journey.run(ann, ["tag", "Budget", "+money"])
        XCTAssertEqual(money.status, 0, money.stderr)
        XCTAssertEqual(lines(money.stdout), ["money"])
        XCTAssertEqual(try Journey.run(ann, ["mv", "Trip.md", "Voyage.md"]).status, 0)
        XCTAssertEqual(lines(try Journey.run(ann, ["tag", "Voyage"]).stdout), ["sailing", "pinned"])

        // A note's front matter tags it here too (issue 53 §6, through the sealed store).
        let put = try ann.cli(["put", "-", "Meeting.md"], input: "---\ntags: [agenda]\n---\nMonday\n")
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertEqual(lines(try Journey.run(ann, ["tag", "Meeting"]).stdout), ["agenda"])

        // Sealed: no name on the server's disk, neither in its tags nor beside the keys.
        let stored = AppHarness.text(club.root.appendingPathComponent(".byteclub/tags.json")) ?? ""
        XCTAssertFalse(stored.isEmpty, "the tags are kept by the server, as hashes")
        let names = try Data(contentsOf: club.notes.appendingPathComponent(".clubkeys/tags.age"))
        for name in ["sailing", "pinned", "money", "agenda"] {
            XCTAssertFalse(stored.contains(name), "\(name) in the server's tags: \(stored)")
            XCTAssertNil(names.range(of: Data(name.utf8)), "\(name) in plain in the names file")
        }

        // The app: the pin first, the tags on the rows, and `/#money` filters by a tag.
        let screen = try ann.launch([])
        Journey.see(screen, ["⚑ Voyage  #sailing", "Budget  #money"], "the pin and the tags in an encrypted club")
        try screen.type("/#money")
        screen.waitFor("only the tagged note") { screen in
            AppHarness.listed("Budget", in: screen) && !AppHarness.listed("Voyage", in: screen)
        }
        try screen.press("Escape")
        // The filter closed (every note listed again) before the next key: an Escape followed at
        // once by `q` reads as Alt-q.
        screen.waitFor("the whole list again") { AppHarness.listed("Voyage", in: $0) && !$0.contains("/ #money") }
        try screen.type("q")
        screen.waitFor(ann.exitLine(0))
    }
}
