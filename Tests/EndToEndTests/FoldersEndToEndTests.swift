import Foundation
import TestSupport
import XCTest

/// Folders in real terminals, on a `byteclub serve` with two members (TwoMemberClub): a note
/// two folders deep opened with the keys and with the mouse; a folder made, a note moved into
/// it, the folder renamed, and the links into it updated on the server's disk; "Search this
/// folder"; an album in PanoPhotos; a folder another member makes appearing with no key pressed.
final class FoldersEndToEndTests: XCTestCase {
    var club: TwoMemberClub!

    override func tearDown() {
        club?.close()
    }

    private static func click(x: Int, y: Int) -> String { "\u{1B}[<0;\(x + 1);\(y + 1)M\u{1B}[<0;\(x + 1);\(y + 1)m" }
    private static func doubleClick(on text: String, in screen: String) throws -> String {
        let row = try XCTUnwrap(screen.components(separatedBy: "\n").firstIndex { $0.contains(text) }, "\(text) is on screen")
        return click(x: 4, y: row) + click(x: 4, y: row)
    }

    func testANoteTwoFoldersDeepOpensWithTheKeysAndWithTheMouse() throws {
        club = try TwoMemberClub(notes: [
            "Welcome.md": "Hello, a fair wind\n",
            "Trips/Day one.md": "Wind from the west\n",
            "Trips/2026/Deep.md": "Two folders down, no wind\n",
        ])
        let ray = try club.launch(.ray)
        // The top shows the folder with its count of notes at any depth.
        ray.waitFor(all: ["▸ Trips/", "2 notes", "Welcome"])
        XCTAssertFalse(ray.capture().contains("Deep"), "a note in a folder is not in the top's list")

        // Keys: Enter opens a folder, the list's title says where, Enter on the note opens it.
        try ray.press("Enter")  // the folder rows come first: Trips is the first row, selected
        ray.waitFor("in Trips") { $0.contains("◂ Trips/") && $0.contains("▸ 2026/") && $0.contains("Day one") }
        try ray.press("Down")
        try ray.press("Enter")
        ray.waitFor("in Trips/2026") { $0.contains("◂ Trips/2026/") && $0.contains("Deep") }
        try ray.press("End")
        try ray.press("Enter")
        ray.waitFor(all: ["Title: Deep", "Two folders down"])
        try ray.press("Escape")
        ray.waitFor("the editor closed") { !$0.contains("Title: Deep") }

        // Backspace and ← go up, the selection on the folder just left.
        try ray.press("BSpace")
        ray.waitFor("back in Trips") { $0.contains("◂ Trips/") && !$0.contains("◂ Trips/2026/") }
        try ray.press("Left")
        ray.waitFor("back at the top") { $0.contains("▸ Trips/") && $0.contains(" Title ") }

        // The mouse: double clicks down the same path.
        try ray.type(try Self.doubleClick(on: "▸ Trips/", in: ray.capture()))
        let inTrips = ray.waitFor("▸ 2026/")
        try ray.type(try Self.doubleClick(on: "▸ 2026/", in: inTrips))
        let inDeep = ray.waitFor("◂ Trips/2026/")
        try ray.type(try Self.doubleClick(on: "Deep", in: inDeep))
        ray.waitFor(all: ["Title: Deep", "Two folders down"])

        // Ctrl-F searches the whole club; Ctrl-F again keeps it to the folder the list shows.
        try ray.press("Escape")
        ray.waitFor("the editor closed") { !$0.contains("Title: Deep") }
        try ray.press("BSpace")
        ray.waitFor("◂ Trips/")
        try ray.press("C-f")
        ray.waitFor("Search every note")
        try ray.type("wind")
        ray.waitFor("3 notes")
        try ray.press("C-f")
        ray.waitFor(all: ["Search this folder: Trips/", "2 notes"])
        try ray.press("C-f")
        ray.waitFor(all: ["Search every note", "3 notes"])
    }

    func testAFolderMadeANoteMovedInAndTheFolderRenamedKeepTheLinks() throws {
        club = try TwoMemberClub(notes: [
            "Day one.md": "Wind from the west\n",
            "Index.md": "Read [the first day](Day%20one.md) first\n",
        ])
        let ray = try club.launch(.ray)
        ray.waitFor(all: ["Day one", "Index"])
        // The question about links comes from the search index (the notes that name the moved
        // one): a move before the first sync has indexed them finds none to update. A user
        // meets that only in the first moments after a start; CI, under load, met it once.
        let deadline = Date().addingTimeInterval(30)
        while club.indexedNotes(.ray) != 2, Date() < deadline { usleep(50_000) }
        XCTAssertEqual(club.indexedNotes(.ray), 2, "ray's index holds both notes")

        // N makes a folder in the one shown.
        try ray.type("N")
        ray.waitFor("New folder")
        try ray.type("Boats")
        try ray.press("Enter")
        ray.waitFor(all: ["Made folder \"Boats\"", "▸ Boats/", "0 notes"])
        var isFolder: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: club.notesFolder.appendingPathComponent("Boats").path, isDirectory: &isFolder) && isFolder.boolValue)

        // m moves the selected note into a folder chosen from the list; the link into it follows.
        try ray.type("/")
        try ray.type("Day one")
        try ray.press("Enter")
        ray.waitFor("/ Day one")
        try ray.type("m")
        ray.waitFor(all: ["Move to folder", "Boats/"])
        try ray.press("Enter")
        ray.waitFor("Update them to its new place?")
        try ray.press("Enter")
        ray.waitFor("Updated links in 1 note")
        XCTAssertEqual(club.text(ofNote: "Boats/Day one.md"), "Wind from the west\n")
        XCTAssertNil(club.text(ofNote: "Day one.md"))
        XCTAssertEqual(club.text(ofNote: "Index.md"), "Read [the first day](<Boats/Day one.md>) first\n")

        // R on the folder renames it; the link follows again.
        try ray.press("Escape")
        ray.waitFor("▸ Boats/", timeout: 20)
        try ray.press("Home")
        try ray.type("R")
        ray.waitFor("Rename folder")
        try ray.press("C-u")
        try ray.type("Sailing")
        try ray.press("Enter")
        ray.waitFor("Update them to its new place?")
        try ray.press("Enter")
        ray.waitFor(all: ["Updated links in 1 note", "▸ Sailing/", "1 note"])
        XCTAssertEqual(club.text(ofNote: "Sailing/Day one.md"), "Wind from the west\n")
        XCTAssertEqual(club.text(ofNote: "Index.md"), "Read [the first day](<Sailing/Day one.md>) first\n")

        // A note made in a folder is saved there.
        try ray.press("Home")
        try ray.press("Enter")
        ray.waitFor("◂ Sailing/")
        try ray.type("n")
        ray.waitFor("Enter goes to the text")
        try ray.type("Day two")
        try ray.press("Enter")
        try ray.type("Calm")
        try ray.press("C-s")
        ray.waitFor("Saved \"Day two.md\"")
        XCTAssertEqual(club.text(ofNote: "Sailing/Day two.md"), "Calm")
        XCTAssertNil(club.text(ofNote: "Day two.md"))
    }

    func testAFolderAnotherMemberMakesAndFillsAppearsWithNoKeyPressed() throws {
        club = try TwoMemberClub(notes: ["Plan.md": "Lyon first\n"])
        let (ray, ann) = try club.launchBoth(waitingFor: "Plan")
        try ann.type("N")
        ann.waitFor("New folder")
        try ann.type("Shared")
        try ann.press("Enter")
        ann.waitFor("Made folder \"Shared\"")
        ray.waitFor(all: ["▸ Shared/", "0 notes"])

        // ann drags Plan onto the folder; ray sees it leave the top and the count go up.
        let screen = ann.waitFor("▸ Shared/")
        let lines = screen.components(separatedBy: "\n")
        let from = try XCTUnwrap(lines.firstIndex { $0.contains("Plan") }), onto = try XCTUnwrap(lines.firstIndex { $0.contains("▸ Shared/") })
        try ann.type("\u{1B}[<0;5;\(from + 1)M\u{1B}[<32;5;\(onto + 1)M\u{1B}[<0;5;\(onto + 1)m")
        ann.waitFor("Moved \"Plan.md\" to \"Shared\"")
        ray.waitFor("Plan moved into Shared") { $0.contains("▸ Shared/") && $0.contains("1 note") && !$0.contains(" Plan ") }
        XCTAssertEqual(club.text(ofNote: "Shared/Plan.md"), "Lyon first\n")
    }

    func testPanoPhotosShowsAnAlbumWithItsCountAndOpensIt() throws {
        club = try TwoMemberClub(notes: ["Plan.md": "Lyon first\n"])
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let photo = try Data(contentsOf: repository.appendingPathComponent("Resources/SampleClub/byteclub/photos/desk-at-night.jpg"))
        let photos = club.notesFolder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("Sailing"), withIntermediateDirectories: true)
        try photo.write(to: photos.appendingPathComponent("Sailing/deck.jpg"))
        try photo.write(to: photos.appendingPathComponent("Sailing/mast.jpg"))
        try photo.write(to: photos.appendingPathComponent("top.jpg"))
        let ray = try club.launch(.ray)
        ray.waitFor("Plan")
        try ray.type("2")
        ray.waitFor(all: ["▸ Sailing/", "Album · 2 photos", "top.jpg"])
        XCTAssertFalse(ray.capture().contains("deck.jpg"), "an album's photos are inside it")
        try ray.press("Enter")
        ray.waitFor(all: [".. (all albums)", "deck.jpg", "mast.jpg"])
        XCTAssertFalse(ray.capture().contains("top.jpg"))
        try ray.press("BSpace")
        ray.waitFor(all: ["▸ Sailing/", "top.jpg"])
    }
}
