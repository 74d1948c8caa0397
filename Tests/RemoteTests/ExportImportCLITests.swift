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
        XCTAssertTrue(imported.stderr.contains("4 imported, 0 already in the club: 3 notes, 0 pictures and 1 other file"), imported.stderr)
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("byteclub/Trip.md"), encoding: .utf8), trip, "as it is, links and all")
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("byteclub/Projects/Deep/Budget.txt").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("byteclub/.obsidian").path))
        XCTAssertEqual(try? String(contentsOf: root.appendingPathComponent("byteclub/Projects/slides.pdf"), encoding: .utf8), "not a note",
                       "an attachment comes too, beside the notes")
        let names = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("byteclub").path)
        XCTAssertFalse(names.contains { $0.hasPrefix("Ring") }, "never renamed into the club: \(names)")

        let tags = try cli.run(["tag", "/byteclub/Trip.md", "--json"] + options)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(tags.stdout.utf8)) as? [String: Any], tags.stderr)
        XCTAssertEqual(Set(object["tags"] as? [String] ?? []), ["trip", "boat", "pinned"])
        XCTAssertEqual(try cli.run(["tag", "/byteclub/Projects/Packing list.md"] + options).stdout, "gear\n")

        // Again: nothing is sent twice, so an interrupted import resumes.
        let again = try cli.run(["import", vault.path] + options)
        XCTAssertTrue(again.stderr.contains("0 imported, 4 already in the club"), again.stderr)
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
        XCTAssertTrue(exported.stderr.contains("exported 3 notes, 1 picture and 0 other files to "), "one picture is \"1 picture\": \(exported.stderr)")
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
    /// were left out (exit 0: the note came whole), and goes out the same, byte for byte, even
    /// with a tag added since.
    func testFrontMatterThatDoesNotParseIsKeptAsItIsBothWays() throws {
        let (server, root, options) = try club("broken")
        defer { _ = server }
        let vault = base.appendingPathComponent("vault")
        let note = "---\ntags: [trip, boat\n---\nBody\n"
        try write(note, "Broken.md", in: vault)
        let imported = try cli.run(["import", vault.path] + options)
        XCTAssertEqual(imported.status, 0, "every file came: " + imported.stderr)
        XCTAssertTrue(imported.stderr.contains("/byteclub/Broken.md: front matter does not parse ("), imported.stderr)
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("byteclub/Broken.md"), encoding: .utf8), note)
        XCTAssertEqual(try cli.run(["tag", "/byteclub/Broken.md", "+sea"] + options).status, 0)
        let out = base.appendingPathComponent("out")
        let exported = try cli.run(["export", out.path] + options)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("Broken.md"), encoding: .utf8), note)
    }

    // MARK: - Every file of a vault (issue 53 §7)

    /// `count` bytes that are not text and do not repeat soon: an audio file's stand-in.
    func binary(_ count: Int, seed: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        var state = UInt32(truncatingIfNeeded: seed) &+ 0x9E37_79B9
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }

    func write(_ data: Data, _ relative: String, in folder: URL) throws {
        let url = folder.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    /// `tree(folder)` less what is hidden (a name starting with `.`), the way import leaves it.
    func visibleTree(_ folder: URL) -> [String: Data] {
        tree(folder).filter { path, _ in !path.split(separator: "/").contains { name in name.hasPrefix(".") } }
    }

    /// A vault as people keep one: notes, a JPEG, a PDF, an SVG icon, an mp3 bigger than a batch
    /// takes (5 MiB: the one-by-one path), JSON, an Obsidian canvas, its `.obsidian/` settings and
    /// a `.DS_Store`. Imported into a folder, every file is in the club (the picture in its album,
    /// the others byte for byte at their vault path beside the notes, so `[[paper.pdf]]` and
    /// `![logo](icons/logo.svg)` still find them), the import says what came and exits 0, and
    /// `--dry-run` said the same first. An export of that folder, of a `--flatten`ed import into
    /// another, and of the whole club give every vault file back byte for byte at its vault path.
    ///
    /// On the main this test was written against, the PDF, the SVG, the mp3, the JSON and the
    /// canvas were left out with exit 0 and no line, and an export of the folder brought back the
    /// notes and "0 photos".
    func testEveryFileOfAVaultComesInAndGoesBackByteForByte() throws {
        let (server, root, options) = try club("every")
        defer { _ = server }
        let vault = base.appendingPathComponent("Sailing")
        let welcome = "---\ntags: [boat]\n---\n# Welcome\nThe deck: ![[deck.jpg]]\nRead [[paper.pdf]]; the logo: ![logo](icons/logo.svg)\nThe route: [the plan](<Plans/route.canvas>)\n"
        try write(welcome, "Welcome.md", in: vault)
        try write("# Day one\n![the deck](../assets/deck.jpg)\nListen: ![[song.mp3]]\n", "Trips/Day one.md", in: vault)
        try write(Data([0xFF, 0xD8, 0xFF, 0xE0]) + binary(3_000, seed: 1), "assets/deck.jpg", in: vault)
        try write(Data("%PDF-1.4\n".utf8) + binary(20_000, seed: 2), "paper.pdf", in: vault)
        try write("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 8 8\"><circle r=\"4\"/></svg>\n", "icons/logo.svg", in: vault)
        try write(binary(5 << 20, seed: 3), "audio/song.mp3", in: vault)
        try write("{\"speed\": 6.5, \"crew\": [\"ann\", \"bob\"]}\n", "data/settings.json", in: vault)
        try write("{\"nodes\":[{\"id\":\"a\",\"type\":\"text\",\"text\":\"Lisbon\"}],\"edges\":[]}\n", "Plans/route.canvas", in: vault)
        try write("{\"theme\":\"dark\"}", ".obsidian/app.json", in: vault)
        try write(binary(64, seed: 4), ".DS_Store", in: vault)
        let original = visibleTree(vault)
        XCTAssertEqual(original.count, 8)
        let others = ["/paper.pdf", "/icons/logo.svg", "/audio/song.mp3", "/data/settings.json", "/Plans/route.canvas"]

        // --dry-run: every file with its place, and nothing sent.
        let dry = try cli.run(["import", vault.path, "Sailing", "--dry-run"] + options)
        XCTAssertEqual(dry.status, 0, dry.stderr)
        for path in others + ["/Welcome.md", "/Trips/Day one.md"] {
            XCTAssertTrue(dry.stdout.contains("→ /byteclub/Sailing\(path)\n"), "\(path) would come: \(dry.stdout)")
        }
        XCTAssertTrue(dry.stdout.contains("→ /byteclub/photos/assets/deck.jpg\n"), dry.stdout)
        XCTAssertTrue(dry.stderr.contains("8 would be imported, 0 already in the club: 2 notes, 1 picture and 5 other files"), dry.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("byteclub/Sailing").path), "a dry run sends nothing")

        let imported = try cli.run(["import", vault.path, "Sailing"] + options)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(imported.stderr.contains("skipped .obsidian/ (Obsidian's settings, not notes)"), imported.stderr)
        XCTAssertTrue(imported.stderr.contains("skipped .DS_Store (hidden)"), imported.stderr)
        XCTAssertTrue(imported.stderr.contains("8 imported, 0 already in the club: 2 notes, 1 picture and 5 other files"), imported.stderr)

        // Every file is in the club: the others byte for byte beside the notes, the picture in its album.
        let club = root.appendingPathComponent("byteclub")
        for path in others {
            XCTAssertEqual(try? Data(contentsOf: club.appendingPathComponent("Sailing" + path)), original[path], path)
        }
        XCTAssertEqual(try? Data(contentsOf: club.appendingPathComponent("photos/assets/deck.jpg")), original["/assets/deck.jpg"])
        let note = try String(contentsOf: club.appendingPathComponent("Sailing/Welcome.md"), encoding: .utf8)
        XCTAssertTrue(note.contains("Read [[paper.pdf]]; the logo: ![logo](icons/logo.svg)\nThe route: [the plan](<Plans/route.canvas>)\n"), note)
        XCTAssertFalse(FileManager.default.fileExists(atPath: club.appendingPathComponent("Sailing/.obsidian").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: club.appendingPathComponent("Sailing/.DS_Store").path))

        // [[paper.pdf]] finds the file beside its note, through the club as a member reads it.
        let fetched = base.appendingPathComponent("fetched.pdf")
        let got = try cli.run(["get", "/byteclub/Sailing/paper.pdf", fetched.path] + options)
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertEqual(try? Data(contentsOf: fetched), original["/paper.pdf"])
        // The note's picture link to the SVG leads to a file the club has.
        let links = try cli.run(["links", "/byteclub/Sailing/Welcome.md", "--json"] + options)
        XCTAssertEqual(links.status, 0, links.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(links.stdout.utf8)) as? [String: Any], links.stdout)
        let outgoing = try XCTUnwrap(object["outgoing"] as? [[String: Any]], links.stdout)
        let logo = try XCTUnwrap(outgoing.first { $0["destination"] as? String == "icons/logo.svg" }, links.stdout)
        XCTAssertEqual(logo["path_display"] as? String, "/byteclub/Sailing/icons/logo.svg")
        XCTAssertEqual(logo["exists"] as? Bool, true, links.stdout)

        // The folder the import went to, exported: the vault, every file, byte for byte.
        let folderOut = base.appendingPathComponent("out-folder")
        let exported = try cli.run(["export", "Sailing", folderOut.path] + options)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertTrue(exported.stderr.contains("exported 2 notes, 1 picture and 5 other files to "), exported.stderr)
        XCTAssertEqual(tree(folderOut).keys.sorted(), original.keys.sorted())
        XCTAssertEqual(tree(folderOut), original, "the folder's export is the vault, byte for byte")

        // Again: everything is there already, so an interrupted import resumes.
        let again = try cli.run(["import", vault.path, "Sailing"] + options)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("0 imported, 8 already in the club: 2 notes, 1 picture and 5 other files"), again.stderr)

        // --flatten into another folder: every file in it, and back at its vault path.
        let flat = try cli.run(["import", vault.path, "Flat", "--flatten"] + options)
        XCTAssertEqual(flat.status, 0, flat.stderr)
        for path in others {
            let name = (path as NSString).lastPathComponent
            XCTAssertEqual(try? Data(contentsOf: club.appendingPathComponent("Flat/" + name)), original[path], name)
        }
        let flatOut = base.appendingPathComponent("out-flat")
        let flatExported = try cli.run(["export", "Flat", flatOut.path] + options)
        XCTAssertEqual(flatExported.status, 0, flatExported.stderr)
        XCTAssertEqual(tree(flatOut).keys.sorted(), original.keys.sorted())
        XCTAssertEqual(tree(flatOut), original, "a flattened import's export is the vault, byte for byte")

        // The whole club: each vault under the folder it went to, nothing else (photos/ included).
        let clubOut = base.appendingPathComponent("out-club")
        let whole = try cli.run(["export", clubOut.path] + options)
        XCTAssertEqual(whole.status, 0, whole.stderr)
        var both: [String: Data] = [:]
        for (path, data) in original {
            both["/Sailing" + path] = data
            both["/Flat" + path] = data
        }
        XCTAssertEqual(tree(clubOut).keys.sorted(), both.keys.sorted())
        XCTAssertEqual(tree(clubOut), both, "the club's export gives both vaults back, byte for byte")
    }

    /// What cannot come is named, and the import exits 4; the rest still comes. A FIFO (named
    /// like audio, and never opened: opened, it would block the import), a symbolic link (not
    /// followed), and a file whose name the club refuses (a control character). On the main this
    /// test was written against, all three were left out with exit 0 and no line.
    func testAFileThatCannotComeIsNamedAndTheImportExits4() throws {
        let (server, root, options) = try club("left-out")
        defer { _ = server }
        let vault = base.appendingPathComponent("vault")
        try write("Listen: ![[stream.mp3]], read [[paper.pdf]]\n", "Note.md", in: vault)
        try write(Data("%PDF-1.4\n".utf8) + binary(1_000, seed: 5), "paper.pdf", in: vault)
        try write("{}\n", "bad\u{7}name.json", in: vault)
        try FileManager.default.createDirectory(at: vault.appendingPathComponent("audio"), withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(vault.appendingPathComponent("audio/stream.mp3").path, 0o644), 0)
        try FileManager.default.createSymbolicLink(atPath: vault.appendingPathComponent("link.pdf").path, withDestinationPath: "paper.pdf")

        let dry: CLI.Result
        do { dry = try cli.run(["import", vault.path, "--dry-run"] + options, timeout: 60) } catch {
            return XCTFail("import --dry-run did not finish: a FIFO must never be opened (\(error))")
        }
        XCTAssertEqual(dry.status, 4, dry.stderr)
        XCTAssertTrue(dry.stderr.contains("/vault/audio/stream.mp3: a FIFO, not a file; not imported"), dry.stderr)
        XCTAssertFalse(dry.stdout.contains("stream.mp3"), "what cannot come is not listed as coming: " + dry.stdout)

        let imported: CLI.Result
        do { imported = try cli.run(["import", vault.path] + options, timeout: 60) } catch {
            return XCTFail("import did not finish: a FIFO must never be opened (\(error))")
        }
        XCTAssertEqual(imported.status, 4, "a file left out is exit 4: " + imported.stderr)
        XCTAssertTrue(imported.stderr.contains("/vault/audio/stream.mp3: a FIFO, not a file; not imported"), imported.stderr)
        XCTAssertTrue(imported.stderr.contains("/vault/link.pdf: a symbolic link, not followed"), imported.stderr)
        XCTAssertTrue(imported.stderr.contains("\"bad\\x07name.json\" is not a safe file name"), imported.stderr)
        XCTAssertTrue(imported.stderr.contains("2 imported, 0 already in the club: 1 note, 0 pictures and 1 other file"), imported.stderr)
        let club = root.appendingPathComponent("byteclub")
        XCTAssertEqual(try? Data(contentsOf: club.appendingPathComponent("paper.pdf")), try Data(contentsOf: vault.appendingPathComponent("paper.pdf")))
        let names = try FileManager.default.contentsOfDirectory(atPath: club.path)
        XCTAssertEqual(Set(names.filter { !$0.hasPrefix(".") }), ["Note.md", "paper.pdf"], "nothing renamed or half-brought: \(names)")
    }
}
