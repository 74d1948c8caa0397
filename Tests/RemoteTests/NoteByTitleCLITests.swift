import Foundation
import TestSupport
import XCTest

/// Issue 43 §2: a note is named the same way in every command that takes one, by its path or by
/// its title as the app shows it, with or without `.md`/`.txt`, in any case. `cat "Café
/// notes.md"` worked while `links` and `log` of the same name said `Not found`; here `get`,
/// `tag`, `log`, `restore`, `mv` and `rm` each take a title, on a real `byteclub serve`.
final class NoteByTitleCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("title-cli-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    func testEveryCommandThatTakesANoteTakesItsTitle() throws {
        let root = base.appendingPathComponent("served")
        let notes = root.appendingPathComponent("byteclub")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        try Data("Soup at noon\n".utf8).write(to: notes.appendingPathComponent("Café notes.md"))
        try Data("Day 1: Lyon\n".utf8).write(to: notes.appendingPathComponent("Trip plan.txt"))
        let server = try ServeProcess(root: root, token: "title-token-1")
        let club = ["--server", server.url, "--token", "title-token-1"]
        func run(_ arguments: [String]) throws -> CLI.Result {
            let result = try cli.run(arguments + club)
            XCTAssertEqual(result.status, 0, "byteclub \(arguments.joined(separator: " ")): \(result.stderr)")
            return result
        }

        // ls: sizes through the one formatter the app's rows use (10,650 bytes: 10.4 KiB in both;
        // the app said 10.6 KB before issue 43).
        try Data(repeating: UInt8(ascii: "a"), count: 10_650).write(to: notes.appendingPathComponent("Long.md"))
        let listed = try run(["ls"])
        XCTAssertTrue(listed.stdout.split(separator: "\n").contains { $0.contains("Long.md") && $0.contains("10.4 KiB") }, listed.stdout)

        // get: the title in another case, without its extension.
        let copy = base.appendingPathComponent("soup.md")
        _ = try run(["get", "café NOTES", copy.path])
        XCTAssertEqual(try String(contentsOf: copy, encoding: .utf8), "Soup at noon\n")

        // tag: the title; the tag lands on the note's path.
        _ = try run(["tag", "Café notes", "+food"])
        XCTAssertTrue(try run(["ls", "--tag", "food"]).stdout.contains("Café notes.md"))

        // log and restore: a second version, then the first one back, both by title.
        let second = base.appendingPathComponent("second.txt")
        try Data("Day 1: Paris\n".utf8).write(to: second)
        _ = try run(["put", second.path, "Trip plan.txt", "--mode", "overwrite"])
        let log = try run(["log", "trip plan", "--json"])
        let revisions = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(revisions.count, 2, log.stdout)
        let first = try XCTUnwrap(revisions.last?["rev"] as? String)
        _ = try run(["restore", "Trip plan", first])
        XCTAssertEqual(try String(contentsOf: notes.appendingPathComponent("Trip plan.txt"), encoding: .utf8), "Day 1: Lyon\n")

        // mv and rm: the title with its extension.
        _ = try run(["mv", "trip plan.txt", "Trip.txt"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: notes.appendingPathComponent("Trip.txt").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: notes.appendingPathComponent("Trip plan.txt").path))
        _ = try run(["rm", "Café notes.md"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: notes.appendingPathComponent("Café notes.md").path))

        // A title no note has says so in one line, and names where to look.
        let missing = try cli.run(["rm", "Nothing here"] + club)
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.hasPrefix("byteclub: Not found"), missing.stderr)
        XCTAssertEqual(missing.stderr.split(separator: "\n").count, 1, missing.stderr)
    }

    /// `join` of something that is no invite says so in the one-line form every error takes.
    func testJoinOfGarbageIsOneLineThatSaysWhatAnInviteIs() throws {
        let joined = try cli.run(["join", "garbage"])
        XCTAssertEqual(joined.status, 64, joined.stderr)
        XCTAssertTrue(joined.stderr.hasPrefix("byteclub: "), joined.stderr)
        XCTAssertEqual(joined.stderr.split(separator: "\n").count, 1, joined.stderr)
        XCTAssertTrue(joined.stdout.isEmpty, joined.stdout)
    }
}
