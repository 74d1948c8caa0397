import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Issue 54, "Titles and links": the app resolves `[[Note]]` across folders, and the command line
/// now does by the same resolver (the core's `NoteResolver`). Before, `byteclub edit "Deep two"`
/// for `Old Stuff/2025/Deep two.md` said `Not found`, and `byteclub links "Vault/Home"` called
/// every `[[link]]` into a subfolder a missing note, with 0 backlinks (the CLI's index held the
/// club folder's own notes only). The built binary against `byteclub serve`.
final class OneResolverCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("resolver-cli-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    /// `notes` (paths in the club folder → texts) served by `byteclub serve`; the options that reach it.
    private func serve(_ notes: [String: String]) throws -> (server: ServeProcess, club: [String]) {
        let folder = base.appendingPathComponent("served/byteclub")
        for (path, text) in notes {
            let file = folder.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        let server = try ServeProcess(root: base.appendingPathComponent("served"), token: "resolver-token-1")
        return (server, ["--server", server.url, "--token", "resolver-token-1"])
    }

    private func text(_ path: String) -> String? {
        try? String(contentsOf: base.appendingPathComponent("served/byteclub").appendingPathComponent(path), encoding: .utf8)
    }

    func testEditAndCatFindATitleInAnyFolderNearestTheClubFolderFirst() throws {
        let (server, club) = try serve([
            "Old Stuff/2025/Deep two.md": "Down here\n",
            "Plan.md": "The top plan\n", "Old Stuff/Plan.md": "An old plan\n",
            "A/Same.md": "a\n", "B/Same.md": "b\n",
        ])
        defer { withExtendedLifetime(server) {} }

        let cat = try cli.run(["cat", "Deep two"] + club)
        XCTAssertEqual(cat.status, 0, cat.stderr)
        XCTAssertEqual(cat.stdout, "Down here\n")

        // $EDITOR adds a line to the file it is given.
        let script = base.appendingPathComponent("editor.sh")
        try Data("#!/bin/sh\nprintf 'and a new line\\n' >> \"$1\"\n".utf8).write(to: script)
        chmod(script.path, 0o755)
        var environment = cli.environment
        environment["VISUAL"] = nil
        environment["EDITOR"] = script.path
        let edited = try CLI(environment: environment, directory: cli.directory).run(["edit", "Deep two"] + club)
        XCTAssertEqual(edited.status, 0, edited.stderr)
        XCTAssertEqual(text("Old Stuff/2025/Deep two.md"), "Down here\nand a new line\n")

        // The club folder's note before a subfolder's; two as near are both named, nothing guessed.
        XCTAssertEqual(try cli.run(["cat", "plan"] + club).stdout, "The top plan\n")
        XCTAssertEqual(try cli.run(["cat", "2025/Deep two"] + club).stdout, "Down here\nand a new line\n", "a path's end")
        let same = try cli.run(["cat", "Same"] + club)
        XCTAssertEqual(same.status, 64, same.stderr)
        XCTAssertTrue(same.stderr.contains("/byteclub/A/Same.md") && same.stderr.contains("/byteclub/B/Same.md"), same.stderr)
    }

    func testLinksIntoSubfoldersLeadToTheirNotesAndTheirBacklinksAreListed() throws {
        let (server, club) = try serve([
            "Vault/Home.md": "# Home\nSee [[Lisbon]], [[2026/Day one]] and [[Nowhere]]\n",
            "Vault/Trips/Lisbon.md": "Back [[Home]]\n",
            "Vault/Trips/2026/Day one.md": "From [[Vault/Home]] we left\n",
        ])
        defer { withExtendedLifetime(server) {} }

        let run = try cli.run(["links", "Vault/Home", "--json"] + club)
        XCTAssertEqual(run.status, 0, run.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stdout)
        XCTAssertEqual(object["path_display"] as? String, "/byteclub/Vault/Home.md")
        let outgoing = try XCTUnwrap(object["outgoing"] as? [[String: Any]])
        XCTAssertEqual(outgoing.map { $0["destination"] as? String }, ["Lisbon", "2026/Day one", "Nowhere"])
        XCTAssertEqual(outgoing.map { $0["exists"] as? Bool }, [true, true, false], "as the app follows them")
        XCTAssertEqual(outgoing[0]["path_display"] as? String, "/byteclub/Vault/Trips/Lisbon.md")
        XCTAssertEqual(outgoing[1]["path_display"] as? String, "/byteclub/Vault/Trips/2026/Day one.md")
        XCTAssertTrue(outgoing[2]["path_display"] is NSNull)

        let backlinks = try XCTUnwrap(object["backlinks"] as? [[String: Any]])
        XCTAssertEqual(Set(backlinks.compactMap { $0["path_display"] as? String }),
                       ["/byteclub/Vault/Trips/Lisbon.md", "/byteclub/Vault/Trips/2026/Day one.md"], "notes in subfolders link here")

        let text = try cli.run(["links", "Vault/Home"] + club)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("  2: [[Lisbon]] → /byteclub/Vault/Trips/Lisbon.md\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("  2: [[2026/Day one]] → /byteclub/Vault/Trips/2026/Day one.md\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("  2: [[Nowhere]] → missing note\n"), text.stdout)
        XCTAssertTrue(text.stdout.contains("Backlinks (2):\n"), text.stdout)
    }

    /// "Renames": the app's `R` and `m` rewrite every link form into what moved; `mv` rewrote
    /// none (a note renamed from the shell left `[[Plan A]]`, `[[Old Stuff/Plan A]]` and
    /// `[the plan](<Old Stuff/Plan A.md>)` broken). `mv --update-links` goes through the same
    /// rewrite (the core's `LinkUpdates`), and a plain `mv` still leaves the notes alone.
    func testMvUpdateLinksRewritesEveryLinkFormAsTheAppDoes() throws {
        let (server, club) = try serve([
            "Old Stuff/Plan A.md": "the plan\n",
            "Home.md": "[[Plan A]] · [[Old Stuff/Plan A]] · [the plan](<Old Stuff/Plan A.md>) · [[Plan A#Top|top]] · [p](Old%20Stuff/Plan%20A.md)\n",
            "Other.md": "nothing here\n",
        ])
        defer { withExtendedLifetime(server) {} }

        let plain = try cli.run(["mv", "Old Stuff/Plan A.md", "Old Stuff/Plan B.md"] + club)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(text("Home.md")?.contains("[[Plan A]]"), true, "a plain mv rewrites no link")

        let moved = try cli.run(["mv", "--update-links", "Old Stuff/Plan B.md", "Archive/Plan C.md"] + club)
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertEqual(moved.stdout, "/byteclub/Archive/Plan C.md\n")
        XCTAssertTrue(moved.stderr.contains("Updated links in 0 notes"), moved.stderr)
        XCTAssertEqual(text("Other.md"), "nothing here\n")

        // Back where the links lead, then renamed with them.
        XCTAssertEqual(try cli.run(["mv", "Archive/Plan C.md", "Old Stuff/Plan A.md"] + club).status, 0)
        let renamed = try cli.run(["mv", "--update-links", "Old Stuff/Plan A.md", "Archive/Plan C.md"] + club)
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        XCTAssertTrue(renamed.stderr.contains("Updated links in 1 note"), renamed.stderr)
        XCTAssertEqual(text("Home.md"),
                       "[[Plan C]] · [[Archive/Plan C]] · [the plan](<Archive/Plan C.md>) · [[Plan C#Top|top]] · [p](<Archive/Plan C.md>)\n")
        let links = try cli.run(["links", "--json", "Home"] + club)
        XCTAssertEqual(links.status, 0, links.stderr)
        XCTAssertFalse(links.stdout.contains("missing"), links.stdout)
        XCTAssertEqual(text("Other.md"), "nothing here\n", "a note with no link into it is not written")
    }
}
