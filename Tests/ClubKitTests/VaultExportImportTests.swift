import ClubKit
import Foundation
import Remote
import XCTest

/// `import` and `export` through ClubKit's own API, on the embedded club: a small vault comes
/// in, its manifest says what import rewrote, and the export gives it back byte for byte.
final class VaultExportImportTests: EmbeddedClubTestCase {
    private func write(_ text: String, _ relative: String, in folder: URL) throws {
        let file = folder.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    private func read(_ relative: String, in folder: URL) -> String? {
        (try? Data(contentsOf: folder.appendingPathComponent(relative))).map { String(decoding: $0, as: UTF8.self) }
    }

    func testAVaultComesInWithItsManifestAndGoesBackByteForByte() async throws {
        let vault = scratch.appendingPathComponent("Sailing")
        let day = "# Day one\n\n![the deck](assets/deck.jpg)\n"
        let plan = "---\ntags: [trip]\n---\nThe plan\n"
        try write(day, "day one.md", in: vault)
        try write("not really a JPEG", "assets/deck.jpg", in: vault)
        try write(plan, "notes/plan.md", in: vault)
        try write("{}", ".obsidian/app.json", in: vault)
        let store = backend.store
        let walked = VaultFiles(walking: vault)
        XCTAssertEqual(walked.skippedLines(), ["skipped .obsidian/ (Obsidian's settings, not notes)"])

        let imported = try await VaultImport(store: store, vault: walked, folder: "/byteclub/Sailing", photos: "/byteclub/photos")
            .run()
        XCTAssertEqual(imported.refused, [])
        XCTAssertEqual(imported.sent, 3)
        XCTAssertEqual(imported.counts, [.note: 2, .picture: 1])
        XCTAssertEqual(imported.summary, "3 imported, 0 already in the club: \(VaultFiles.summary([.note: 2, .picture: 1]))")

        // The picture went to the club's photos/, in an album named after its vault folder, and
        // the note's link follows it; the manifest remembers both ways.
        let moved = String(decoding: try await store.read("/byteclub/Sailing/day one.md").data, as: UTF8.self)
        XCTAssertTrue(moved.contains("photos/assets/deck.jpg"), moved)
        let manifest = try await VaultManifest.load(from: "/byteclub/Sailing", store: store)
        XCTAssertEqual(manifest.pictures, ["/byteclub/photos/assets/deck.jpg": "assets/deck.jpg"])
        XCTAssertEqual(manifest.notes["day one.md"]?.frontMatter, false)
        XCTAssertEqual(manifest.notes["day one.md"]?.pictures.count, 1)
        XCTAssertNil(manifest.notes["notes/plan.md"], "a note in its place, with front matter and no moved links, needs no entry")
        // The front matter's tag is a club tag.
        let tags = try await FileTags.apply(TagChange(), to: "/byteclub/Sailing/notes/plan.md", store: store)
        XCTAssertEqual(tags, ["trip"])

        // Again: everything is there already, the same.
        let again = try await VaultImport(store: store, vault: walked, folder: "/byteclub/Sailing", photos: "/byteclub/photos")
            .run()
        XCTAssertEqual(again.sent, 0)
        XCTAssertEqual(again.skipped, 3)

        let out = scratch.appendingPathComponent("out")
        let exported = try await VaultExport(store: store, folder: "/byteclub/Sailing", clubFolder: "/byteclub", destination: out)
            .run()
        XCTAssertEqual(exported.refused, [])
        XCTAssertEqual(exported.counts, [.note: 2, .picture: 1])
        XCTAssertEqual(read("day one.md", in: out), day, "the picture link as the vault wrote it, no front matter added")
        XCTAssertEqual(read("notes/plan.md", in: out), plan, "its own front matter names every club tag: byte for byte")
        XCTAssertEqual(read("assets/deck.jpg", in: out), "not really a JPEG", "the picture back at its vault path")
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent(".byteclub").path), "the manifest stays in the club")
    }

    func testAClubNoteGetsFrontMatterAndADryRunWritesNothing() async throws {
        let store = backend.store
        _ = try await store.upload(data: Data("Sails and ropes\n".utf8), to: "/byteclub/Ideas/Boat.txt", mode: .add, autorename: false)
        _ = try await FileTags.apply(TagChange(added: ["boats", ItemTags.pinTag]), to: "/byteclub/Ideas/Boat.txt", store: store)
        let out = scratch.appendingPathComponent("ideas")

        var events: [VaultExport.Event] = []
        let export = VaultExport(store: store, folder: "/byteclub/Ideas", clubFolder: "/byteclub", destination: out, dryRun: true)
        let dry = try await export.run(event: { events.append($0) })
        XCTAssertTrue(events.contains(.wouldWrite(out.appendingPathComponent("Boat.md"))), "\(events)")
        XCTAssertTrue(dry.summary.hasPrefix("would export "), dry.summary)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path))

        var real = export
        real.dryRun = false
        _ = try await real.run(names: { _ in [:] })
        let text = try XCTUnwrap(read("Boat.md", in: out), "a .txt note is exported as .md")
        let (matter, body) = FrontMatter.split(text)
        XCTAssertEqual(body, "Sails and ropes\n")
        XCTAssertEqual(matter?.value("title"), "Boat")
        XCTAssertEqual(matter?.tags, ["boats"])
        XCTAssertEqual(matter?.pinned, true)
        XCTAssertNotNil(matter?.value("created"))
    }

    func testFrontMatterEditsKeepEveryOtherLine() {
        var (matter, body) = FrontMatter.split("---\ntitle: Trip\ntags:\n  - a\n  - b\nsource: \"x: y\"\n---\nText\n")
        matter?.set("tags", FrontMatter.list(["a", "c"]))
        matter?.set("pinned", "true")
        XCTAssertEqual(matter?.text, "---\ntitle: Trip\ntags: [a, c]\nsource: \"x: y\"\npinned: true\n---\n")
        XCTAssertEqual(body, "Text\n")
        XCTAssertEqual(FrontMatter.quoted("yes"), "\"yes\"")
        XCTAssertEqual(FrontMatter.quoted("Day one"), "Day one")
    }
}
