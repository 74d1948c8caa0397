import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Issue 53 §6: a note's front matter and its club tags agree on every path that makes or
/// changes a note, and export never removes a tag the note has. The built `byteclub` against a
/// real `byteclub serve` on a random loopback port.
final class FrontMatterTagsCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("front-matter-tags-\(UUID().uuidString)")
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

    /// `byteclub ARGUMENTS` with nothing on stdin, to its end or a deadline.
    func run(_ arguments: [String], environment: [String: String]? = nil) throws -> ChildProcess.Result {
        let binary = try Requirement.byteclub()
        return try ChildProcess.run([binary.path] + arguments, within: 60, environment: environment ?? cli.environment)
    }

    /// The note's club tags, as `byteclub tag` prints them, as a set.
    func tags(_ note: String, _ options: [String]) throws -> Set<String> {
        let shown = try run(["tag", note] + options)
        XCTAssertEqual(shown.status, 0, shown.stderr)
        return Set(shown.stdout.split(separator: "\n").map(String.init))
    }

    /// The trial's words: `new "Weekly sync" --template Meeting`, the template's front matter
    /// saying `tags: [meeting]`. The note is tagged `meeting` in the club (`tag`, `ls --tag`),
    /// and export writes its front matter back as it is; a tag removed in the club and another
    /// added since never take the note's own away: export writes both.
    func testATemplatesTagsBecomeTheNotesTagsAndExportKeepsThem() throws {
        let (server, root, options) = try club("template")
        defer { _ = server }
        try write("---\ntags: [meeting]\n---\n# {{title}}\n", "byteclub/templates/Meeting.md", in: root)

        let made = try run(["new", "Weekly sync", "--template", "Meeting", "--no-edit"] + options)
        XCTAssertEqual(made.status, 0, made.stderr)
        XCTAssertEqual(made.stdout, "/byteclub/Weekly sync.md\n")
        let text = "---\ntags: [meeting]\n---\n# Weekly sync\n"
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("byteclub/Weekly sync.md"), encoding: .utf8), text)
        XCTAssertEqual(try tags("Weekly sync", options), ["meeting"], "the template's tag is the note's club tag")
        let listed = try run(["ls", "/byteclub", "--tag", "meeting"] + options)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.contains("Weekly sync.md"), listed.stdout)

        let out = base.appendingPathComponent("out")
        let exported = try run(["export", out.path] + options)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("Weekly sync.md"), encoding: .utf8), text,
                       "front matter and club agree: kept byte for byte, never `tags: []`")

        // Its club tag taken away and another given: export keeps the note's own and adds the club's.
        let changed = try run(["tag", "Weekly sync", "-meeting", "+agenda"] + options)
        XCTAssertEqual(changed.status, 0, changed.stderr)
        let again = try run(["export", out.path] + options)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("Weekly sync.md"), encoding: .utf8),
                       "---\ntags: [agenda, meeting]\npinned: false\n---\n# Weekly sync\n")
    }

    /// Issue 69: a club note (not from a vault) whose tags are inline `#tags` is exported with
    /// front matter that lists the tags the club has; it said `tags: []` while `tag` listed them.
    func testExportOfANoteWithInlineTagsListsTheClubsTags() throws {
        let (server, root, options) = try club("inline")
        defer { _ = server }
        let local = base.appendingPathComponent("Tokyo.md")
        try Data("Ramen in #japan/tokyo on the #trip.\n".utf8).write(to: local)
        let put = try run(["put", local.path, "/byteclub/"] + options)
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertEqual(try tags("Tokyo", options), ["japan/tokyo", "trip"])

        let out = base.appendingPathComponent("out")
        let exported = try run(["export", out.path] + options)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        let text = try String(contentsOf: out.appendingPathComponent("Tokyo.md"), encoding: .utf8)
        XCTAssertTrue(text.hasPrefix("---\ntitle: Tokyo\ntags: [japan/tokyo, trip]\npinned: false\n"), text)
        XCTAssertTrue(text.hasSuffix("---\nRamen in #japan/tokyo on the #trip.\n"), text)
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("byteclub/Tokyo.md"), encoding: .utf8),
                       "Ramen in #japan/tokyo on the #trip.\n", "the club's note is not changed by an export")
    }

    /// `put` (one file, and `-r`) and `edit`: the front matter's tags and `pinned: true` become
    /// the note's club tags and pin; a tag name the club cannot keep is named on stderr and the
    /// rest still come.
    func testPutPutRecursiveAndEditTagTheNoteAsItsFrontMatterSays() throws {
        let (server, root, options) = try club("writes")
        defer { _ = server }
        let local = base.appendingPathComponent("local")
        try write("---\ntags: [boat, \"#Sea\", not-a-tag]\npinned: true\n---\nA day on the water\n", "Trip.md", in: local)
        let put = try run(["put", local.appendingPathComponent("Trip.md").path, "/byteclub/"] + options)
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertEqual(put.stdout, "/byteclub/Trip.md\n")
        XCTAssertTrue(put.stderr.contains("tag \"not-a-tag\" left out"), put.stderr)
        XCTAssertEqual(try tags("Trip", options), ["boat", "sea", "pinned"])

        let folder = base.appendingPathComponent("folder")
        try write("---\ntags: gear\n---\n- tent\n", "Gear.md", in: folder)
        try write("No front matter\n", "Plain.md", in: folder)
        let putFolder = try run(["put", "-r", folder.path, "/byteclub/"] + options)
        XCTAssertEqual(putFolder.status, 0, putFolder.stderr)
        XCTAssertEqual(try tags("folder/Gear", options), ["gear"])
        XCTAssertEqual(try tags("folder/Plain", options), [])

        // `edit`: the editor adds front matter to a note that had none; the save tags it.
        try write("day 1\n", "byteclub/Plan.md", in: root)
        let script = base.appendingPathComponent("editor.sh")
        try Data("#!/bin/sh\n{ printf '%s\\n' '---' 'tags: [plan]' '---'; cat \"$1\"; } > \"$1.new\" && mv \"$1.new\" \"$1\"\n".utf8).write(to: script)
        chmod(script.path, 0o755)
        var environment = cli.environment
        environment["VISUAL"] = nil
        environment["EDITOR"] = script.path
        let edited = try run(["edit", "Plan"] + options, environment: environment)
        XCTAssertEqual(edited.status, 0, edited.stderr)
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("byteclub/Plan.md"), encoding: .utf8), "---\ntags: [plan]\n---\nday 1\n")
        XCTAssertEqual(try tags("Plan", options), ["plan"])
    }
}
