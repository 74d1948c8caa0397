import Foundation
import TestSupport
import XCTest

/// Journey 2, bring a vault: ann imports an Obsidian-style vault (front matter with tags, a
/// subfolder, pictures in `assets/`, an `.obsidian` folder) into her club; its notes open in the
/// app, its tags are the club's tags, and its pictures are in PanoPhotos, where the notes' links
/// still find them.
///
/// The defects it holds (issue 43 §7.2, §2): the vault's pictures landed in `assets/`, where
/// PanoPhotos never looks, and the notes' `![[deck.jpg]]` pointed at nothing the club shows; a
/// note in a subfolder could not be named by its title from the shell.
final class BringAVaultJourneyTests: XCTestCase {
    private var club: JourneyClub?
    private var vault: URL?

    override func tearDown() {
        club?.close()
        club = nil
        if let vault { try? FileManager.default.removeItem(at: vault.deletingLastPathComponent()) }
    }

    /// A new vault folder, `Sailing`, and a real JPEG for it.
    private func newVault() throws -> Data {
        vault = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-vault-\(UUID().uuidString)/Sailing")
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return try Data(contentsOf: repository.appendingPathComponent("Resources/SampleClub/byteclub/photos/desk-at-night.jpg"))
    }

    private func write(_ relative: String, _ data: Data) throws {
        let file = try XCTUnwrap(vault).appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: file)
    }

    func testAnImportedVaultsNotesTagsAndPicturesAreWhereTheAppLooks() throws {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann")
        let deck = try newVault()
        try write("Welcome.md", Data("---\ntags: [boat, trip]\n---\n# Welcome aboard\nThe deck: ![[deck.jpg]]\n".utf8))
        try write("Trips/Day one.md", Data("# Day one\n![the deck](../assets/deck.jpg)\nWind from the west.\n".utf8))
        try write("assets/deck.jpg", deck)
        try write(".obsidian/app.json", Data("{}\n".utf8))

        // The vault comes in from the shell.
        let imported = try Journey.run(ann, ["import", try XCTUnwrap(vault).path])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stderr.contains("3 imported"), imported.stderr)

        // Its pictures are under photos/, in an album named after their folder; its notes' links follow.
        XCTAssertEqual(try? Data(contentsOf: club.notes.appendingPathComponent("photos/assets/deck.jpg")), deck)
        XCTAssertNil(club.text("assets/deck.jpg"))
        XCTAssertEqual(club.text("Welcome.md"), "---\ntags: [boat, trip]\n---\n# Welcome aboard\nThe deck: ![[photos/assets/deck.jpg]]\n", "a wiki link stays one")
        XCTAssertEqual(club.text("Trips/Day one.md"), "# Day one\n![the deck](<../photos/assets/deck.jpg>)\nWind from the west.\n")
        XCTAssertNil(club.text(".obsidian/app.json"), "the vault's own settings stay out")

        // Its tags are the club's tags.
        let tagged = try Journey.run(ann, ["ls", "--tag", "boat"])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        XCTAssertTrue(tagged.stdout.contains("Welcome.md"), tagged.stdout)
        // A note in a subfolder, by its title, from the shell.
        let day = try Journey.run(ann, ["cat", "Trips/day one"])
        XCTAssertEqual(day.status, 0, day.stderr)
        XCTAssertTrue(day.stdout.hasPrefix("# Day one\n"), day.stdout)
        let links = try Journey.run(ann, ["links", "Welcome", "--json"])
        XCTAssertEqual(links.status, 0, links.stderr)
        XCTAssertTrue(links.stdout.contains(#""path_display":"/byteclub/photos/assets/deck.jpg""#), links.stdout)
        XCTAssertTrue(links.stdout.contains(#""exists":true"#), links.stdout)

        // The app: the note opens, the tag filters it, the picture is in PanoPhotos.
        let screen = try ann.launch([])
        Journey.see(screen, ["Welcome"], "ann's notes")
        try screen.type("/#boat")
        // The filter's count, not the list before it: the tags come after the notes' first load
        // (of two rows: the vault's folder Trips is a row too).
        Journey.see(screen, ["Welcome", "1 of 2"], "the notes tagged boat")
        try screen.press("Enter")
        try screen.press("Enter")
        Journey.see(screen, ["# Welcome aboard", "photos/assets/deck.jpg"], "the imported note in the editor")
        // The rendered view: its front matter is a properties line, never a rule, a heading or `tags:` text.
        try screen.press("M-v")
        let view = Journey.see(screen, ["Rendered view", "tags: boat, trip", "Welcome aboard"], "the note's properties in the rendered view")
        XCTAssertFalse(view.contains("tags: [boat, trip]"), view)
        XCTAssertFalse(view.contains("─────────────────────────────────────────"), "no rule made of the front matter: \(view)")
        try screen.press("Escape")
        Journey.see(screen, ["tags: [boat, trip]"], "the editor again, the front matter as written")
        try screen.press("Escape")
        Journey.see(screen, ["Closed Welcome.md"], "the list again")
        // The subfolder's note, with the keys: its folder is a row of the list.
        try screen.press("Escape")
        Journey.see(screen, ["▸ Trips/", "1 note"], "the vault's folder in the Notes tab")
        try screen.press("Home")
        try screen.press("Enter")
        Journey.see(screen, ["◂ Trips/", "Day one"], "in the folder")
        try screen.press("End")
        try screen.press("Enter")
        Journey.see(screen, ["Title: Day one", "Wind from the west."], "the subfolder's note in the editor")
        try screen.press("Escape")
        Journey.see(screen, ["Closed Day one.md"], "the folder's list again")
        // The picture is in PanoPhotos, in the album named after the vault's folder.
        try screen.type("2")
        Journey.see(screen, ["▸ assets/", "Album · 1 photo"], "the vault's album in PanoPhotos")
        try screen.press("Enter")
        Journey.see(screen, ["deck.jpg"], "the vault's picture in its album")
        try screen.type("q")
        screen.waitFor(ann.exitLine(0))
    }

    /// Every file under `folder` by its relative path, with its bytes.
    private func tree(_ folder: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        let base = folder.standardizedFileURL.path
        let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = walk?.nextObject() as? URL {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true, let data = try? Data(contentsOf: url) else { continue }
            files[String(url.standardizedFileURL.path.dropFirst(base.count + 1))] = data
        }
        return files
    }

    /// The vault's way back, from the shell: front matter with tags and aliases, notes two
    /// folders deep, pictures in `assets/`, wiki links across folders. Imported, its tagged note
    /// is listed by tag; exported to a new folder, it is the vault again, byte for byte (less the
    /// `.obsidian` folder import skips, and says so); a tag and a pin added in the club show in
    /// the next export's front matter. In the app, the note two folders deep is reached with the
    /// mouse, and its backlinks come from across folders (by title, and by a path's end).
    func testAVaultComesBackFromExportByteForByte() throws {
        let club = try JourneyClub()
        self.club = club
        let ann = try club.invite("ann")
        let deck = try newVault()
        let welcome = "---\ntags: [trip, boat]\naliases:\n  - Sailing home\n  - Start\ncustom: \"kept: as is\"\n---\n# Welcome aboard\nThe deck: ![[deck.jpg]]\nFirst day: [[Day one]], the list: [[Gear/Packing]].\n"
        let day = "# Day one\r\n![the deck](../../assets/deck.jpg)\r\nWind from the west. Back to [[Welcome]].\r\n"
        let packing = "---\ntags:\n  - \"#gear\"\npinned: true\n---\n- tent\n- [[Trips/2026/Day one|day one]]\n"
        try write("Welcome.md", Data(welcome.utf8))
        try write("Trips/2026/Day one.md", Data(day.utf8))
        try write("Gear/Packing.md", Data(packing.utf8))
        try write("Gear/Plain.md", Data("No front matter here.\n".utf8))
        try write("assets/deck.jpg", deck)
        try write(".obsidian/app.json", Data("{}\n".utf8))
        let original = tree(try XCTUnwrap(vault)).filter { !$0.key.hasPrefix(".obsidian/") }

        let imported = try Journey.run(ann, ["import", try XCTUnwrap(vault).path])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stderr.contains("skipped .obsidian/"), imported.stderr)
        XCTAssertTrue(imported.stderr.contains("5 imported"), imported.stderr)
        XCTAssertEqual(club.text("Trips/2026/Day one.md"), "# Day one\r\n![the deck](<../../photos/assets/deck.jpg>)\r\nWind from the west. Back to [[Welcome]].\r\n")

        let tagged = try Journey.run(ann, ["ls", "--tag", "trip"])
        XCTAssertEqual(tagged.status, 0, tagged.stderr)
        XCTAssertTrue(tagged.stdout.contains("Welcome.md"), tagged.stdout)
        XCTAssertFalse(tagged.stdout.contains("Packing"), tagged.stdout)
        let pinned = try Journey.run(ann, ["tag", "Gear/Packing"])
        XCTAssertEqual(Set(pinned.stdout.split(separator: "\n").map(String.init)), ["gear", "pinned"], pinned.stderr)

        // Export to a new folder: the vault again, every file's bytes and the list of files.
        let out = try XCTUnwrap(vault).deletingLastPathComponent().appendingPathComponent("Back")
        let exported = try Journey.run(ann, ["export", out.path])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let back = tree(out)
        XCTAssertEqual(back.keys.sorted(), original.keys.sorted())
        for (path, data) in original where path.hasSuffix(".md") {
            XCTAssertEqual(back[path].map { String(decoding: $0, as: UTF8.self) }, String(decoding: data, as: UTF8.self), path)
        }
        XCTAssertEqual(back, original, "the vault back byte for byte")

        // A tag and a pin added in the club show in the next export's front matter; the rest of
        // it stays as the vault wrote it.
        XCTAssertEqual(try Journey.run(ann, ["tag", "Welcome", "+sea", "+pinned"]).status, 0)
        let again = try Journey.run(ann, ["export", out.path])
        XCTAssertEqual(again.status, 0, again.stderr)
        let text = try String(contentsOf: out.appendingPathComponent("Welcome.md"), encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("---\ntags: [boat, sea, trip]\naliases:\n  - Sailing home\n  - Start\ncustom: \"kept: as is\"\npinned: true\n---\n# Welcome aboard\nThe deck: ![[deck.jpg]]\n"), text)

        // The app: two folders down with double clicks; the note's backlinks come from other folders.
        let screen = try ann.launch([])
        func doubleClick(_ text: String) throws {
            let lines = screen.waitFor(text).components(separatedBy: "\n")
            let row = try XCTUnwrap(lines.firstIndex { $0.contains(text) })
            let click = "\u{1B}[<0;5;\(row + 1)M\u{1B}[<0;5;\(row + 1)m"
            try screen.type(click + click)
        }
        Journey.see(screen, ["▸ Gear/", "▸ Trips/", "Welcome"], "the vault's folders")
        XCTAssertFalse(screen.capture().contains(".byteclub"), "the club's own folder is not a folder of notes")
        try doubleClick("▸ Trips/")
        try doubleClick("▸ 2026/")
        try doubleClick("Day one")
        Journey.see(screen, ["Title: Day one", "Wind from the west."], "the note two folders deep")
        try screen.press("M-l")
        Journey.see(screen, ["Backlinks of \"Day one\"", "Welcome", "Packing"], "links from two other folders")
        try screen.press("Escape")
        screen.waitFor("the panel closed") { !$0.contains("Backlinks of") }
        try screen.press("Escape")
        Journey.see(screen, ["Closed Day one.md"], "the list again")
        try screen.type("q")
        screen.waitFor(ann.exitLine(0))
    }
}
