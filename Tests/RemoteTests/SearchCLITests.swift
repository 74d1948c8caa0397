import Foundation
import TestSupport
import XCTest

/// `byteclub search` as a script runs it: on a real `byteclub serve` (the server searches) and on
/// a real `rclone serve webdav` (the local index, brought current, then offline).
final class SearchCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("search-cli-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    func hits(_ stdout: String) throws -> [[String: Any]] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [[String: Any]], stdout)
    }

    func testSearchJSONOnAClubServer() throws {
        let root = base.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        try Data("Packing\nBoat hire on the lake\n".utf8).write(to: root.appendingPathComponent("byteclub/Trip.txt"))
        try Data("旅行の計画\n東京都に行きます".utf8).write(to: root.appendingPathComponent("byteclub/Tokyo.md"))
        try Data("nothing here".utf8).write(to: root.appendingPathComponent("byteclub/Other.txt"))
        let server = try ServeProcess(root: root, token: "search-token-1")
        let club = ["--server", server.url, "--token", "search-token-1"]

        let found = try cli.run(["search", "HIRE", "--json"] + club)
        XCTAssertEqual(found.status, 0, found.stderr)
        let hit = try XCTUnwrap(try hits(found.stdout).first)
        XCTAssertEqual(try hits(found.stdout).count, 1)
        XCTAssertEqual(hit["path_display"] as? String, "/byteclub/Trip.txt")
        XCTAssertEqual(hit["name"] as? String, "Trip.txt")
        XCTAssertEqual(hit["match"] as? String, "content")
        XCTAssertNotNil(hit["modified"] as? String)
        XCTAssertTrue(hit.keys.contains("modified_by"))
        let line = try XCTUnwrap(hit["line"] as? [String: Any])
        XCTAssertEqual(line["number"] as? Int, 2)
        XCTAssertEqual(line["column"] as? Int, 5)
        XCTAssertEqual(line["text"] as? String, "Boat hire on the lake")
        XCTAssertEqual(line["ranges"] as? [[Int]], [[5, 9]])

        let cjk = try cli.run(["search", "東京", "--json"] + club)
        XCTAssertEqual(try hits(cjk.stdout).map { $0["path_display"] as? String }, ["/byteclub/Tokyo.md"], cjk.stderr)

        // Plain lines for people: no escape codes into a pipe.
        let plain = try cli.run(["search", "boat", "hire"] + club)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertTrue(plain.stdout.hasPrefix("Trip  "), plain.stdout)
        XCTAssertTrue(plain.stdout.hasSuffix("  2: Boat hire on the lake\n"), plain.stdout)
        XCTAssertFalse(plain.stdout.contains("\u{1B}"), plain.stdout)

        // No hit: with --json an empty array and exit 0 (not an error); without, exit 1 as grep.
        let none = try cli.run(["search", "zebra", "--json"] + club)
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(none.stdout, "[]\n")

        let bad = try cli.run(["search", "-boat"] + club)
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("not only words to leave out"), bad.stderr)
    }

    func testSearchOnWebDAVUsesTheIndexAndWorksOffline() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        let server = try RcloneWebDAV()
        defer { server.remove() }
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        try Data("Notes on kayaks\nthe résumé is due".utf8).write(to: server.file("byteclub/Kayak.txt"))
        try Data("unrelated".utf8).write(to: server.file("byteclub/Other.txt"))
        var environment = cli.environment
        environment["BYTECLUB_WEBDAV_PASSWORD"] = server.password
        let webdavCLI = CLI(environment: environment, directory: cli.directory)
        let webdav = ["--webdav", server.url.absoluteString, "--user", server.user]

        let online = try webdavCLI.run(["search", "resume", "--json"] + webdav)
        XCTAssertEqual(online.status, 0, online.stderr)
        let hit = try XCTUnwrap(try hits(online.stdout).first)
        XCTAssertEqual(hit["path_display"] as? String, "/byteclub/Kayak.txt")
        XCTAssertEqual((hit["line"] as? [String: Any])?["number"] as? Int, 2)
        let cache = base.appendingPathComponent("home/cache/byteclub")
        let indexes = (FileManager.default.enumerator(atPath: cache.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix("search.sqlite") }
        XCTAssertEqual(indexes.count, 1, "the index lives under $XDG_CACHE_HOME/byteclub/<remote>/")

        // A change on the server is fetched by the next search.
        try Data("now about canoes".utf8).write(to: server.file("byteclub/Kayak.txt"))
        let changed = try webdavCLI.run(["search", "canoes", "--json"] + webdav)
        XCTAssertEqual(try hits(changed.stdout).map { $0["path_display"] as? String }, ["/byteclub/Kayak.txt"], changed.stderr)

        server.stop()
        let offline = try webdavCLI.run(["search", "canoes", "--json", "--timeout", "2"] + webdav)
        XCTAssertEqual(offline.status, 0, offline.stderr)
        XCTAssertTrue(offline.stderr.contains("offline"), offline.stderr)
        XCTAssertEqual(try hits(offline.stdout).map { $0["path_display"] as? String }, ["/byteclub/Kayak.txt"])
    }

    /// Issue 54: `byteclub search` on WebDAV missed every note in a subfolder (it listed the top
    /// folder only, so its index held the 4 top-level notes). It now indexes what the app's
    /// Notes tab lists: notes at any depth, not the photos folder's files nor hidden folders'.
    func testSearchOnWebDAVFindsNotesInEverySubfolder() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        let server = try RcloneWebDAV()
        defer { server.remove() }
        func write(_ text: String, _ relative: String) throws {
            let url = server.file(relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        for number in 1...4 { try write("top note \(number) about the harbour\n", "byteclub/Top \(number).md") }
        try write("# Day one\nkayak to the island\n", "byteclub/Trips/Day one.md")
        try write("the lighthouse keeper\nand his kayak\n", "byteclub/Old Stuff/2025/Deep two.md")
        try write("a kayak in the vault's settings\n", "byteclub/.obsidian/kayak.md")
        try write("a kayak under photos\n", "byteclub/photos/kayak.md")
        var environment = cli.environment
        environment["BYTECLUB_WEBDAV_PASSWORD"] = server.password
        let webdavCLI = CLI(environment: environment, directory: cli.directory)
        let webdav = ["--webdav", server.url.absoluteString, "--user", server.user]

        let kayak = try webdavCLI.run(["search", "kayak", "--json"] + webdav)
        XCTAssertEqual(kayak.status, 0, kayak.stderr)
        XCTAssertEqual(Set(try hits(kayak.stdout).compactMap { $0["path_display"] as? String }),
                       ["/byteclub/Trips/Day one.md", "/byteclub/Old Stuff/2025/Deep two.md"], kayak.stdout)
        let deep = try webdavCLI.run(["search", "lighthouse"] + webdav)
        XCTAssertEqual(deep.status, 0, deep.stderr)
        XCTAssertTrue(deep.stdout.hasPrefix("Deep two  "), deep.stdout)

        // A note added to a subfolder is found by the next search; one deleted there is forgotten.
        try write("kayak again\n", "byteclub/Trips/Day two.md")
        try FileManager.default.removeItem(at: server.file("byteclub/Old Stuff/2025/Deep two.md"))
        let changed = try webdavCLI.run(["search", "kayak", "--json"] + webdav)
        XCTAssertEqual(Set(try hits(changed.stdout).compactMap { $0["path_display"] as? String }),
                       ["/byteclub/Trips/Day one.md", "/byteclub/Trips/Day two.md"], changed.stderr)
        let top = try webdavCLI.run(["search", "harbour", "--json"] + webdav)
        XCTAssertEqual(try hits(top.stdout).count, 4, top.stderr)
    }
}
