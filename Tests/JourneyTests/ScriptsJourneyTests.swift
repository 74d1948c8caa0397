import Foundation
import TestSupport
import XCTest

/// Journey 6, scripts: a member who has joined a club scripts it by the remote's name, as with
/// rclone: `put -r` a folder of notes, a `watch --json` in the background sees each file land,
/// `cat` and `get` by title and by path, `export` the folder and `import` a vault elsewhere in
/// the club, `ls` it, every command naming the club `club:`.
///
/// The defects it holds (issue 43 §2): `club:/byteclub` was taken as a path on the default club;
/// `ls` listed `/` (one entry, `byteclub/`) rather than the notes; `watch` watched `/` without its
/// subfolders, so it saw nothing put into a folder of the club; a note could only be named by its
/// exact path; `--json` failures printed nothing on stdout.
final class ScriptsJourneyTests: XCTestCase {
    private var club: JourneyClub?
    private var work: URL?

    override func tearDown() {
        club?.close()
        club = nil
        if let work { try? FileManager.default.removeItem(at: work) }
    }

    private func write(_ relative: String, _ text: String, in folder: URL) throws {
        let file = folder.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }

    func testAScriptPutsWatchesReadsExportsAndImportsByTheRemotesName() throws {
        let club = try JourneyClub(notes: ["Welcome.md": "Hello, club\n"])
        self.club = club
        let ann = try club.invite("ann")
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-scripts-\(UUID().uuidString)")
        self.work = work
        try write("notes/Trip plan.md", "# Trip plan\nBoat at nine\n", in: work)
        try write("notes/gear/Tent.md", "Two poles\n", in: work)

        // `ls club:` lists the club's notes: the folder the app shows.
        let top = try Journey.run(ann, ["ls", "club:"])
        XCTAssertEqual(top.status, 0, top.stderr)
        XCTAssertTrue(top.stdout.contains("Welcome.md"), top.stdout)
        XCTAssertFalse(top.stdout.contains("byteclub/"), "the club's folder, not the remote's root: \(top.stdout)")

        // A watch in the background, on the remote by name.
        let watch = try ann.start(["watch", "club:", "--json"])
        defer { _ = watch.finish() }
        XCTAssertTrue(watch.waitForErrors("watching /byteclub and its subfolders"), watch.stderrSoFar)

        // The folder goes up under trip/, its subfolder too; the watch sees each file land.
        let put = try Journey.run(ann, ["put", "-r", work.appendingPathComponent("notes").path, "club:trip"])
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertEqual(club.text("trip/Trip plan.md"), "# Trip plan\nBoat at nine\n")
        XCTAssertEqual(club.text("trip/gear/Tent.md"), "Two poles\n")
        XCTAssertTrue(watch.waitForOutput(#""path_display":"/byteclub/trip/gear/Tent.md""#), watch.stdoutSoFar + watch.stderrSoFar)
        XCTAssertTrue(watch.stdoutSoFar.contains(#""path_display":"/byteclub/trip/Trip plan.md""#), watch.stdoutSoFar)
        XCTAssertTrue(watch.stdoutSoFar.contains(#""modified_by":"ann""#), watch.stdoutSoFar)

        // A note by its title, as the app shows it; a file by its path in the club's folder.
        let cat = try Journey.run(ann, ["cat", "club:trip/trip plan"])
        XCTAssertEqual(cat.status, 0, cat.stderr)
        XCTAssertEqual(cat.stdout, "# Trip plan\nBoat at nine\n")
        let got = try Journey.run(ann, ["get", "club:trip/gear/Tent.md", work.appendingPathComponent("Tent copy.md").path])
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertEqual(AppHarness.text(work.appendingPathComponent("Tent copy.md")), "Two poles\n")

        // The trip folder exported as Markdown with front matter, its subfolder kept.
        let out = work.appendingPathComponent("exported")
        let export = try Journey.run(ann, ["export", "club:trip", out.path])
        XCTAssertEqual(export.status, 0, export.stderr)
        let exported = try XCTUnwrap(AppHarness.text(out.appendingPathComponent("Trip plan.md")), export.stderr)
        XCTAssertTrue(exported.hasPrefix("---\n"), exported)
        XCTAssertTrue(exported.contains("modified_by: ann") || exported.contains("modified_by: \"ann\""), exported)
        XCTAssertTrue(exported.hasSuffix("# Trip plan\nBoat at nine\n"), exported)
        XCTAssertNotNil(AppHarness.text(out.appendingPathComponent("gear/Tent.md")))
        Journey.assertNamesPeople(exported, "export's front matter")

        // A vault imported into another folder of the club, by the remote's name, and listed.
        try write("vault/Ideas.md", "---\ntags: [boat]\n---\nA bigger boat\n", in: work)
        let imported = try Journey.run(ann, ["import", work.appendingPathComponent("vault").path, "club:vault"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(club.text("vault/Ideas.md"), "---\ntags: [boat]\n---\nA bigger boat\n")
        let listed = try Journey.run(ann, ["ls", "club:vault", "--json"])
        XCTAssertTrue(listed.stdout.contains(#""path_display":"/byteclub/vault/Ideas.md""#), listed.stdout)
        XCTAssertTrue(listed.stdout.contains(#""modified_by":"ann""#), listed.stdout)

        // What went wrong says so in one line, and with --json as an object on stdout.
        let missing = try Journey.run(ann, ["cat", "club:No such note", "--json"])
        XCTAssertEqual(missing.status, 3, missing.stderr)
        XCTAssertTrue(missing.stdout.hasPrefix(#"{"error":{"#), missing.stdout)
        XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1, missing.stderr)

        Journey.check(watch.finish(), "ann's watch --json")
    }
}
