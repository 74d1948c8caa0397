import Foundation
import TestSupport
import XCTest

/// `byteclub export` and `byteclub import` on real `byteclub serve`s: a vault as Obsidian writes
/// it comes in with its tags, pins and [[links]], and export → import into an empty club →
/// export is byte for byte the same.
final class ExportImportCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("export-import-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    /// A club server over a new folder, and the options that reach it as its member ann.
    func club(_ name: String) throws -> (ServeProcess, root: URL, options: [String]) {
        let root = base.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        let server = try ServeProcess(root: root, token: "owner-\(name)", arguments: ["--member", "ann=ann-\(name)"])
        return (server, root, ["--server", server.url, "--token", "ann-\(name)"])
    }

    func write(_ text: String, _ relative: String, in folder: URL) throws {
        let url = folder.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// Every file under `folder` by relative path, with its bytes.
    func tree(_ folder: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = walk?.nextObject() as? URL {
            if let data = try? Data(contentsOf: url), !url.hasDirectoryPath {
                files[String(url.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count))] = data
            }
        }
        return files
    }

    func testImportsAnObsidianVaultWithFrontMatterNestedFoldersAndLinks() throws {
        let (server, root, options) = try club("vault-club")
        defer { _ = server }
        let vault = base.appendingPathComponent("vault")
        let trip = "---\ntags:\n  - trip\n  - \"#Boat\"\npinned: true\naliases: [Holiday]\n---\n# Trip\nSee [[Packing list]] and [[Budget|the budget]].\n"
        try write(trip, "Trip.md", in: vault)
        try write("---\ntags: [gear]\n---\n- tent\n- [[Trip]]\n", "Projects/Packing list.md", in: vault)
        try write("100 for the boat\n", "Projects/Deep/Budget.txt", in: vault)
        try write("{\"theme\":\"dark\"}", ".obsidian/app.json", in: vault)
        try write("not a note", "Projects/slides.pdf", in: vault)
        try write("bell", "Ring\u{7}.md", in: vault)

        let imported = try cli.run(["import", vault.path] + options)
        XCTAssertEqual(imported.status, 4, "a refused name is exit 4: " + imported.stderr)
        XCTAssertTrue(imported.stderr.contains("Ring"), "the refused name is reported: " + imported.stderr)
        XCTAssertTrue(imported.stderr.contains("3 imported"), imported.stderr)
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("byteclub/Trip.md"), encoding: .utf8), trip, "as it is, links and all")
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("byteclub/Projects/Deep/Budget.txt").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("byteclub/.obsidian").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("byteclub/Projects/slides.pdf").path))
        let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("byteclub").path)
        XCTAssertFalse(names.contains { $0.hasPrefix("Ring") }, "never renamed into the club: \(names)")

        let tags = try cli.run(["tag", "/byteclub/Trip.md", "--json"] + options)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(tags.stdout.utf8)) as? [String: Any], tags.stderr)
        XCTAssertEqual(Set(object["tags"] as? [String] ?? []), ["trip", "boat", "pinned"])
        XCTAssertEqual(try cli.run(["tag", "/byteclub/Projects/Packing list.md"] + options).stdout, "gear\n")

        // Again: nothing is sent twice, so an interrupted import resumes.
        let again = try cli.run(["import", vault.path] + options)
        XCTAssertTrue(again.stderr.contains("0 imported, 3 already in the club"), again.stderr)
        let flat = try cli.run(["import", vault.path, "--flatten", "--dry-run"] + options)
        XCTAssertTrue(flat.stdout.contains("→ /byteclub/Budget.txt"), flat.stdout)
    }

    func testExportImportExportIsByteIdentical() throws {
        let (first, firstRoot, firstOptions) = try club("first")
        defer { _ = first }
        // Written by ann through the API, so the server knows who: `modified_by`.
        try write("Packing\nBoat hire on the lake\n", "Trip.txt", in: base)
        XCTAssertEqual(try cli.run(["put", base.appendingPathComponent("Trip.txt").path, "/byteclub/"] + firstOptions).status, 0)
        try write("---\ntitle: Own\ncustom: kept\n---\nMine, see [[Trip]]\n", "byteclub/Own.md", in: firstRoot)
        try write("inside\n", "byteclub/Archive/Old.md", in: firstRoot)
        try write("\u{FF}\u{D8}\u{FF}fake jpeg", "byteclub/photos/desk.jpg", in: firstRoot)
        XCTAssertEqual(try cli.run(["tag", "/byteclub/Trip.txt", "+trip", "+pinned"] + firstOptions).status, 0)
        XCTAssertEqual(try cli.run(["tag", "/byteclub/Own.md", "+mine"] + firstOptions).status, 0)

        let one = base.appendingPathComponent("one")
        let exported = try cli.run(["export", one.path] + firstOptions)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertTrue(exported.stderr.contains("notes and 1 photo to "), "one photo is \"1 photo\": \(exported.stderr)")
        let trip = try String(contentsOf: one.appendingPathComponent("Trip.md"), encoding: .utf8)
        XCTAssertTrue(trip.hasPrefix("---\ntitle: Trip\ntags: [trip]\npinned: true\ncreated: "), trip)
        XCTAssertTrue(trip.contains("\nmodified_by: ann\n---\nPacking\nBoat hire on the lake\n"), trip)
        let own = try String(contentsOf: one.appendingPathComponent("Own.md"), encoding: .utf8)
        XCTAssertEqual(own, "---\ntitle: Own\ncustom: kept\ntags: [mine]\npinned: false\n---\nMine, see [[Trip]]\n")
        XCTAssertNotNil(tree(one)["/photos/desk.jpg"])

        let (second, _, secondOptions) = try club("second")
        defer { _ = second }
        let imported = try cli.run(["import", one.path] + secondOptions)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let two = base.appendingPathComponent("two")
        let again = try cli.run(["export", two.path] + secondOptions)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(tree(one).keys.sorted(), tree(two).keys.sorted())
        XCTAssertEqual(tree(one), tree(two), "export → import → export is byte for byte the same")
    }

    /// A note imported from a vault and edited in the club since: export keeps the edit, puts
    /// the picture links import wrote back as the vault had them (the one the member changed
    /// stays as it is now), and gives a note that had no front matter the club's once it has a tag.
    func testAnImportedNoteEditedSinceExportsWithItsEditsAndTheVaultsLinks() throws {
        let (server, root, options) = try club("edited")
        defer { _ = server }
        let vault = base.appendingPathComponent("vault")
        try write("Deck: ![[deck.jpg]]\nStern: ![](assets/stern.jpg)\n", "Boat.md", in: vault)
        try write("\u{FF}\u{D8}\u{FF}deck", "assets/deck.jpg", in: vault)
        try write("\u{FF}\u{D8}\u{FF}stern", "assets/stern.jpg", in: vault)
        try write("{}", ".zk/config.toml", in: vault)
        let imported = try cli.run(["import", vault.path] + options)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stderr.contains("skipped .zk/ (zk's settings, not notes)"), imported.stderr)
        let manifest = try String(contentsOf: root.appendingPathComponent("byteclub/.byteclub/import.json"), encoding: .utf8)
        XCTAssertTrue(manifest.contains(#""photos/vault/deck.jpg" : "assets/deck.jpg""#) || manifest.contains(#""photos/assets/deck.jpg" : "assets/deck.jpg""#), manifest)

        // A member edits the note in the club: a new first line, the stern's link changed.
        let club = root.appendingPathComponent("byteclub/Boat.md")
        let text = try String(contentsOf: club, encoding: .utf8)
        let edited = "Moored.\n" + text.replacingOccurrences(of: "![](<photos/assets/stern.jpg>)", with: "![stern](<photos/assets/stern.jpg>)")
        XCTAssertNotEqual(edited, "Moored.\n" + text, "the stern's link was written as expected: \(text)")
        try Data(edited.utf8).write(to: club)
        let out = base.appendingPathComponent("out")
        XCTAssertEqual(try cli.run(["export", out.path] + options).status, 0)
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("Boat.md"), encoding: .utf8),
                       "Moored.\nDeck: ![[deck.jpg]]\nStern: ![stern](<photos/assets/stern.jpg>)\n")
        XCTAssertEqual(tree(out).keys.sorted(), ["/Boat.md", "/assets/deck.jpg", "/assets/stern.jpg"])

        // Tagged in the club, it gets front matter in the next export.
        XCTAssertEqual(try cli.run(["tag", "/byteclub/Boat.md", "+sea"] + options).status, 0)
        XCTAssertEqual(try cli.run(["export", out.path] + options).status, 0)
        let tagged = try String(contentsOf: out.appendingPathComponent("Boat.md"), encoding: .utf8)
        XCTAssertTrue(tagged.hasPrefix("---\ntitle: Boat\ntags: [sea]\npinned: false\n"), tagged)
        XCTAssertTrue(tagged.hasSuffix("---\nMoored.\nDeck: ![[deck.jpg]]\nStern: ![stern](<photos/assets/stern.jpg>)\n"), tagged)
    }

    /// Front matter whose YAML does not parse comes in as it is, with a line saying its tags
    /// were left out (exit 4), and goes out the same, byte for byte, even with a tag added since.
    func testFrontMatterThatDoesNotParseIsKeptAsItIsBothWays() throws {
        let (server, root, options) = try club("broken")
        defer { _ = server }
        let vault = base.appendingPathComponent("vault")
        let note = "---\ntags: [trip, boat\n---\nBody\n"
        try write(note, "Broken.md", in: vault)
        let imported = try cli.run(["import", vault.path] + options)
        XCTAssertEqual(imported.status, 4, imported.stderr)
        XCTAssertTrue(imported.stderr.contains("/byteclub/Broken.md: front matter does not parse ("), imported.stderr)
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("byteclub/Broken.md"), encoding: .utf8), note)
        XCTAssertEqual(try cli.run(["tag", "/byteclub/Broken.md", "+sea"] + options).status, 0)
        let out = base.appendingPathComponent("out")
        let exported = try cli.run(["export", out.path] + options)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("Broken.md"), encoding: .utf8), note)
    }
}
