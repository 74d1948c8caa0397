import Foundation
import TestSupport
import XCTest

/// Journey: two members in the app on an encrypted club. Ann's app asks her whether to admit
/// bob, showing the fingerprint his byteclub showed him; ann's save reaches bob's open note;
/// both change a line and bob's save merges them; his photos show as thumbnails made from the
/// decrypted photo; with the server gone, his search and thumbnails still work from what he has.
final class EncryptedClubAppJourneyTests: XCTestCase {
    private var club: JourneyClub?

    override func tearDown() {
        club?.close()
        club = nil
    }

    func testTwoMembersEditAndMergeAndBobSearchesAndSeesPhotosOffline() throws {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann")
        let bob = try club.invite("bob")
        XCTAssertEqual(try Journey.run(ann, ["init", "--encrypted"]).status, 0)
        let asked = try Journey.run(bob, ["ls"])
        XCTAssertNotEqual(asked.status, 0, "bob asks to join")
        let fingerprint = try XCTUnwrap(asked.stderr.range(of: #"[0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4} [0-9a-f]{4}"#, options: .regularExpression)
            .map { String(asked.stderr[$0]) }, asked.stderr)

        // Ann's app asks her at the door, with the fingerprint bob was shown; she admits him.
        // Members who save, live editing off (`--no-live`): the merges are this journey's; typing
        // together live is LiveEncryptedJourneyTests'.
        let annScreen = try ann.launch(["--no-live"])
        Journey.see(annScreen, ["bob wants to join (fingerprint \(fingerprint)): Admit?", "Admit", "Not now"], "ann's question at the door")
        try annScreen.type("a")
        Journey.see(annScreen, ["Admitted bob (fingerprint \(fingerprint))"], "ann's app after admitting bob")
        XCTAssertEqual(try Journey.run(bob, ["ls"]).status, 0, "bob is a member now")
        let photo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources/SampleClub/byteclub/photos/coast-noon.jpg")
        for (arguments, input) in [(["put", "-", "Meeting.md"], "Agenda\n- budget\n"), (["put", "-", "Boat.md"], "Mooring at dawn\n"),
                                   (["put", photo.path, "photos/harbour.jpg"], nil)] {
            let put = try ann.cli(arguments, input: input)
            XCTAssertEqual(put.status, 0, "\(arguments): \(put.stderr)")
        }
        let annText = { (path: String) -> String in (try? ann.cli(["get", path, "-"]).stdout) ?? "" }

        // Sharing asks first: the link would be to a decrypted copy. Ann cancels.
        Journey.see(annScreen, ["Boat"], "ann's notes list")
        try annScreen.type("/Boat")
        try annScreen.press("Enter")
        try annScreen.type("s")
        Journey.see(annScreen, ["Share a decrypted copy of \"Boat\"?", "readable by the server and by anyone with the link"], "ann's share question")
        try annScreen.press("Enter")
        annScreen.waitFor("the question closed, nothing shared") { !$0.contains("Share a decrypted copy") && !$0.contains("Share link") }
        try annScreen.press("Escape")

        let bobScreen = try bob.launch(["--no-live"])
        Journey.see(bobScreen, ["Meeting", "Boat"], "bob's notes list")
        Journey.see(annScreen, ["Meeting", "Boat"], "ann's notes list")

        // Both open the meeting note; ann adds to the first line and saves; bob gets it in place.
        try bobScreen.type("/Meeting")
        try bobScreen.press("Enter")
        try bobScreen.press("Enter")
        Journey.see(bobScreen, ["Agenda", "- budget"], "bob's editor")
        try annScreen.type("/Meeting")
        try annScreen.press("Enter")
        try annScreen.press("Enter")
        Journey.see(annScreen, ["Agenda"], "ann's editor")
        try annScreen.press("End")
        try annScreen.type(" (ann: and the boat)")
        try annScreen.press("C-s")
        Journey.see(annScreen, ["Saved \"Meeting.md\""], "ann's save")
        XCTAssertEqual(annText("Meeting.md"), "Agenda (ann: and the boat)\n- budget\n")
        Journey.see(bobScreen, ["Reloaded \"Meeting\": ann changed it", "Agenda (ann: and the boat)"], "bob's screen after ann's save")

        // Both change the first line; ann saves first; bob's save merges, keeping both.
        for _ in 0..<8 { try bobScreen.press("Up") }
        try bobScreen.press("C-e")
        try bobScreen.type(" (bob: sails)")
        try annScreen.type(" and the oars")
        try annScreen.press("C-s")
        AppHarness.eventually("ann's second save on the server") { annText("Meeting.md").contains("and the oars") }
        Journey.see(bobScreen, ["Changed by ann", "Ctrl-R merge now"], "bob's banner after ann's second save")
        try bobScreen.press("C-s")
        Journey.see(bobScreen, ["Merging with ann's changes", "Conflict 1 of 1"], "bob's merge view")
        try bobScreen.type("b")
        AppHarness.eventually("bob's merge, both lines, on the server") {
            let merged = annText("Meeting.md")
            return merged.contains("Agenda (ann: and the boat) and the oars\n") && merged.contains("Agenda (ann: and the boat) (bob: sails)\n")
        }
        Journey.see(bobScreen, ["Merged with ann's changes"], "bob's saved merge")
        try bobScreen.press("Escape")
        Journey.see(bobScreen, ["Closed Meeting.md"], "bob's list after closing")

        // Bob's photos: the thumbnail is drawn (colored cells), made here from the photo.
        try bobScreen.type("2")
        Journey.see(bobScreen, ["harbour.jpg"], "bob's photos")
        bobScreen.waitFor("thumbnail cells") { _ in
            bobScreen.captureWithEscapes().split(separator: "\n").filter { $0.contains("48;5;") && $0.contains("38;5;") }.count >= 4
        }
        try annScreen.type("q")
        try bobScreen.type("q")
        bobScreen.waitFor(bob.exitLine(0))

        // The server goes away. Bob starts again: the notes, the search and the thumbnail are his.
        club.stopServer()
        let offline = try bob.launch(["--no-live"])
        Journey.see(offline, ["Meeting", "Boat"], "bob's notes list offline")
        try offline.press("C-f")
        Journey.see(offline, ["Search every note"], "bob's search offline")
        try offline.type("mooring")
        Journey.see(offline, ["Boat", "Mooring at dawn"], "bob's search results offline")
        try offline.press("Escape")
        offline.waitFor("the notes list") { !$0.contains("Search every note") }
        try offline.type("2")
        Journey.see(offline, ["harbour.jpg"], "bob's photos offline")
        offline.waitFor("thumbnail cells offline") { _ in
            offline.captureWithEscapes().split(separator: "\n").filter { $0.contains("48;5;") && $0.contains("38;5;") }.count >= 4
        }
        try offline.type("q")
        offline.waitFor(bob.exitLine(0))
    }
}
