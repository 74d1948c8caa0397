import Foundation
import TestSupport
import XCTest

/// Issue 55: Obsidian's Markdown and tags as people write them, through the built `byteclub`
/// against a real `byteclub serve` on a random loopback port.
///
/// - `cat --render` of a note with every construct (callouts, a folded one, highlights,
///   comments, footnotes, math, heading and block links, embeds of a section and of a note that
///   embeds it back) is compared with the stored snapshot
///   `Tests/Fixtures/obsidian-markdown/Showcase.rendered.txt` (`RECORD_SNAPSHOTS=1` rewrites it);
/// - inline `#tags` and nested tags (`project/alpha`) are club tags, and `ls --tag project`
///   lists the notes tagged under it too.
final class ObsidianCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/obsidian-markdown")

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("obsidian-cli-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    func run(_ arguments: [String]) throws -> ChildProcess.Result {
        let binary = try Requirement.byteclub()
        return try ChildProcess.run([binary.path] + arguments, within: 60, environment: cli.environment)
    }

    func listed(_ result: ChildProcess.Result) throws -> Set<String> {
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]],
                                    result.stdout + result.stderr)
        return Set(entries.compactMap { $0["path_display"] as? String })
    }

    func testCatRenderOfEveryConstructMatchesTheSnapshot() throws {
        let root = base.appendingPathComponent("served")
        let folder = root.appendingPathComponent("byteclub")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["Showcase.md", "Trip.md", "Loop.md"] {
            try FileManager.default.copyItem(at: Self.fixtures.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        let server = try ServeProcess(root: root, token: "owner-obsidian", arguments: ["--member", "ann=ann-obsidian"])
        defer { _ = server }
        let club = ["--server", server.url, "--token", "ann-obsidian"]

        let rendered = try run(["cat", "--render", "--width", "60", "Showcase"] + club)
        XCTAssertEqual(rendered.status, 0, rendered.stderr)
        // What the snapshot must hold whatever its layout: each construct drawn, nothing hidden shown.
        for drawn in ["╭─ Note · Packing list", "▸ Warning · Folded: the tide", "highlighted words", "╭─ math",
                      "e^{i\\pi} + 1 = 0", "[1] Where the claim comes from.", "┌─ ⧉ Trip#Day 2", "Swim to the rocks and back.",
                      "┌─ ⧉ Loop", "is already drawn around here: an embed loop is", "day two", "Trip › ^swim"] {
            XCTAssertTrue(rendered.stdout.contains(drawn), "\(drawn) is not drawn:\n\(rendered.stdout)")
        }
        for hidden in ["nobody sees this", "A block comment", "This body is not drawn", "^swim\n", "%%", "$$", "==", "tags: ["] {
            XCTAssertFalse(rendered.stdout.contains(hidden), "\(hidden) is shown:\n\(rendered.stdout)")
        }
        assertGoldenText(rendered.stdout, at: Self.fixtures.appendingPathComponent("Showcase.rendered.txt"))

        // The note itself is untouched by rendering.
        let raw = try run(["cat", "Showcase"] + club)
        XCTAssertEqual(raw.stdout, try String(contentsOf: Self.fixtures.appendingPathComponent("Showcase.md"), encoding: .utf8))
    }

    func testInlineAndNestedTagsAreClubTagsAndLsTagFindsThemUnderTheirParent() throws {
        let root = base.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        let server = try ServeProcess(root: root, token: "owner-tags55", arguments: ["--member", "ann=ann-tags55"])
        defer { _ = server }
        let club = ["--server", server.url, "--token", "ann-tags55"]
        let local = base.appendingPathComponent("notes")
        try FileManager.default.createDirectory(at: local, withIntermediateDirectories: true)
        let notes = [
            ("Alpha.md", "Work on #project/alpha today.\n"),
            ("Plain.md", "---\ntags: [project]\n---\nThe whole project.\n"),
            ("Deep/Beta.md", "# Beta #project/beta/one\n"),
            ("Code.md", "Only in code: `#project` and\n\n```\n#project\n```\n"),
            ("Other.md", "#projects is another tag, #2026 none.\n"),
        ]
        for (path, text) in notes {
            let file = local.appendingPathComponent((path as NSString).lastPathComponent)
            try Data(text.utf8).write(to: file)
            let put = try run(["put", file.path, path] + club)
            XCTAssertEqual(put.status, 0, "\(path): \(put.stderr)")
        }
        // Inline tags were taken in when the notes were written; a nested tag is kept whole.
        XCTAssertEqual(try run(["tag", "Alpha.md"] + club).stdout, "project/alpha\n")
        XCTAssertEqual(try run(["tag", "Deep/Beta.md"] + club).stdout, "project/beta/one\n")
        XCTAssertEqual(try run(["tag", "Code.md"] + club).stdout, "")
        XCTAssertEqual(try run(["tag", "Other.md"] + club).stdout, "projects\n")

        // The parent lists its nested tags' notes, in every folder; a longer name is no child.
        XCTAssertEqual(try listed(try run(["ls", "--tag", "project", "--json"] + club)),
                       ["/byteclub/Alpha.md", "/byteclub/Plain.md", "/byteclub/Deep/Beta.md"])
        XCTAssertEqual(try listed(try run(["ls", "--tag", "project/beta", "--json"] + club)), ["/byteclub/Deep/Beta.md"])
        XCTAssertEqual(try listed(try run(["ls", "--tag", "project/alpha", "--json"] + club)), ["/byteclub/Alpha.md"])

        // A vault's notes with inline tags: tagged in the club by import, and exported back byte
        // for byte (the tags their text says are not written again into front matter).
        let vault = base.appendingPathComponent("vault")
        try FileManager.default.createDirectory(at: vault, withIntermediateDirectories: true)
        let inline = "Plan #boat and #sail/main.\n", mixed = "---\ntags: [gear]\n---\nPack for #boat trips.\n"
        try Data(inline.utf8).write(to: vault.appendingPathComponent("Inline.md"))
        try Data(mixed.utf8).write(to: vault.appendingPathComponent("Mixed.md"))
        let imported = try run(["import", vault.path, "Vault"] + club)
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertEqual(Set(try run(["tag", "Vault/Inline.md"] + club).stdout.split(separator: "\n")), ["boat", "sail/main"])
        XCTAssertEqual(Set(try run(["tag", "Vault/Mixed.md"] + club).stdout.split(separator: "\n")), ["gear", "boat"])
        let out = base.appendingPathComponent("exported")
        let exported = try run(["export", out.path] + club)
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("Vault/Inline.md"), encoding: .utf8), inline)
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("Vault/Mixed.md"), encoding: .utf8), mixed)

        // `byteclub tag` takes nested names, and refuses empty parts with a clear message.
        let added = try run(["tag", "Plain.md", "+Project/Gamma"] + club)
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(Set(added.stdout.split(separator: "\n")), ["project", "project/gamma"])
        let empty = try run(["tag", "Plain.md", "+project//x"] + club)
        XCTAssertEqual(empty.status, 64, empty.stderr)
        XCTAssertTrue(empty.stderr.contains("nested tag"), empty.stderr)
    }
}
