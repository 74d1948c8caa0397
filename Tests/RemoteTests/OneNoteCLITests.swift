import Foundation
import TestSupport
import XCTest

/// Issue 71, "one note costs one note": once this machine's index of the club is current (a
/// `links` or `search` made it so), `cat TITLE` and `links TITLE` ask the server what changed
/// since (`list_folder/continue`) and for the note, never for a listing of the club
/// (`list_folder`). The built binary against a real `byteclub serve`, read from its access log.
final class OneNoteCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("one-note-cli-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    /// The requests the server logged after `offset` bytes of its log: each line's route. The
    /// server writes a request's line before it sends the answer, so the lines of a command that
    /// has ended are all there; the wait for `count` lines of `last` (a request the command made)
    /// only makes sure the log is the one this run writes.
    private func requests(in log: URL, after offset: Int, through last: String, count: Int = 1) throws -> [String] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let data = try Data(contentsOf: log)
            let lines = String(decoding: data.dropFirst(offset), as: UTF8.self).split(separator: "\n")
            let routes = lines.compactMap { line -> String? in
                guard let post = line.range(of: "POST ") else { return nil }
                return line[post.upperBound...].split(separator: " ").first.map(String.init)
            }
            if routes.filter({ $0 == last }).count >= count { return routes }
            guard Date() < deadline else { throw CouldNotCheck("the server never logged \(last) after byte \(offset): \(routes)") }
            usleep(20_000)
        }
    }

    private func size(_ log: URL) throws -> Int { try Data(contentsOf: log).count }

    func testCatAndLinksOfATitleListNothingOnceTheIndexIsCurrent() throws {
        let root = base.appendingPathComponent("served")
        let club = root.appendingPathComponent("byteclub")
        var notes: [String: String] = [
            "Home.md": "# Home\nSee [[Ledger]], [[Trips/Lisbon]], [the plan](Plan.md) and [[Boss]]\n",
            "Plan.md": "the plan\n",
            "Far/Deep/Ledger.md": "far ledger\n",
            "Trips/Lisbon.md": "Back [[Home]]\n",
            "People/Ann.md": "---\naliases: [Boss]\n---\nAnn\n",
        ]
        for number in 0..<200 { notes["Filler/\(number / 50)/Note \(number).md"] = "filler \(number) [[Home]]\n" }
        for (path, text) in notes {
            let file = club.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        let log = base.appendingPathComponent("serve.log")
        let server = try ServeProcess(root: root, token: "one-note-token-1", log: log)
        let options = ["--server", server.url, "--token", "one-note-token-1"]

        // Before any index, a note at the top of the club is asked for by its name: nothing is
        // nearer, so no listing is needed to know it is the one.
        var offset = try size(log)
        let top = try cli.run(["cat", "plan"] + options)
        XCTAssertEqual(top.status, 0, top.stderr)
        XCTAssertEqual(top.stdout, "the plan\n")
        var routes = try requests(in: log, after: offset, through: "/2/files/download")
        XCTAssertFalse(routes.contains("/2/files/list_folder"), "cat of a note at the top listed the club: \(routes)")
        // Deeper, a title is found from a listing, as it always was.
        let cold = try cli.run(["cat", "Ledger"] + options)
        XCTAssertEqual(cold.status, 0, cold.stderr)
        XCTAssertEqual(cold.stdout, "far ledger\n")
        // `links` makes the index current, listing the club once.
        let first = try cli.run(["links", "Home"] + options)
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.contains("Backlinks (201):"), first.stdout)

        // From now on: the changes since, and the note.
        offset = try size(log)
        let cat = try cli.run(["cat", "ledger"] + options)
        XCTAssertEqual(cat.status, 0, cat.stderr)
        XCTAssertEqual(cat.stdout, "far ledger\n")
        routes = try requests(in: log, after: offset, through: "/2/files/download")
        XCTAssertFalse(routes.contains("/2/files/list_folder"), "cat of a title listed the club: \(routes)")
        XCTAssertTrue(routes.contains("/2/files/list_folder/continue"), "the changes since the index was current: \(routes)")

        offset = try size(log)
        let links = try cli.run(["links", "Home"] + options)
        XCTAssertEqual(links.status, 0, links.stderr)
        XCTAssertEqual(links.stdout, first.stdout, "the same answer as from a listing")
        XCTAssertTrue(links.stdout.contains("[[Ledger]] → /byteclub/Far/Deep/Ledger.md"), links.stdout)
        XCTAssertTrue(links.stdout.contains("[[Boss]] → /byteclub/People/Ann.md"), "an alias: \(links.stdout)")
        XCTAssertTrue(links.stdout.contains("[the plan](Plan.md) → /byteclub/Plan.md"), links.stdout)
        routes = try requests(in: log, after: offset, through: "/2/files/download")
        XCTAssertFalse(routes.contains("/2/files/list_folder"), "links of a title listed the club: \(routes)")

        // A nearer note of the title, put since: found without a listing, and it is the answer.
        let near = cli.directory.appendingPathComponent("Ledger.md")
        try Data("near ledger\n".utf8).write(to: near)
        let put = try cli.run(["put", near.path, "Far/"] + options)
        XCTAssertEqual(put.status, 0, put.stderr)
        offset = try size(log)
        let nearer = try cli.run(["cat", "Ledger"] + options)
        XCTAssertEqual(nearer.status, 0, nearer.stderr)
        XCTAssertEqual(nearer.stdout, "near ledger\n", "the nearer note, put after the index was current")
        routes = try requests(in: log, after: offset, through: "/2/files/download")
        XCTAssertFalse(routes.contains("/2/files/list_folder"), "\(routes)")

        // Gone: no such note, exit 3 as before.
        XCTAssertEqual(try cli.run(["rm", "Far/Ledger.md"] + options).status, 0)
        XCTAssertEqual(try cli.run(["rm", "Far/Deep/Ledger.md"] + options).status, 0)
        let gone = try cli.run(["cat", "Ledger"] + options)
        XCTAssertEqual(gone.status, 3, gone.stderr)
        XCTAssertTrue(gone.stdout.isEmpty)
        XCTAssertTrue(server.isRunning)
    }
}
