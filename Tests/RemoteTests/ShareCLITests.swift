import Foundation
import TestSupport
import XCTest

/// `byteclub share PATH [--expires]`, `share --list [--json]` and `unshare URL`, run as a script
/// would, against a club server; the printed URL fetched by `curl` with no token.
final class ShareCLITests: XCTestCase {
    var club: ClubFixture!
    var cli: CLI!

    override func setUp() async throws {
        club = try await ClubFixture()
        cli = try CLI.isolated(in: club.base)
    }

    override func tearDown() async throws {
        await club?.close()
    }

    var server: [String] { ["--server", club.server.baseURL.absoluteString, "--token", club.token] }

    /// The status and body curl gets for `url`, without any token.
    func curl(_ url: String) throws -> (status: Int, body: Data) {
        let bodyFile = cli.directory.appendingPathComponent("curl-\(UUID().uuidString)")
        let process = Process()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "10", "-o", bodyFile.path, "-w", "%{http_code}", url]
        process.standardOutput = output
        try process.run()
        let status = Int(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)) ?? 0
        process.waitUntilExit()
        defer { try? FileManager.default.removeItem(at: bodyFile) }
        return (status, (try? Data(contentsOf: bodyFile)) ?? Data())
    }

    func testShareListAndUnshare() throws {
        let note = Data("a note for a friend ✓\n".utf8)
        try FileManager.default.createDirectory(at: club.file("byteclub"), withIntermediateDirectories: true)
        try note.write(to: club.file("byteclub/For Ada.txt"))

        let shared = try cli.run(["share", "/byteclub/For Ada.txt", "--expires", "7d"] + server)
        XCTAssertEqual(shared.status, 0, shared.stderr)
        let url = shared.stdout.trimmingCharacters(in: .newlines)
        XCTAssertTrue(url.hasPrefix(club.server.baseURL.absoluteString + "/s/") && url.hasSuffix("/For%20Ada.txt"), url)
        XCTAssertEqual(try curl(url).body, note)

        // Again, the note named by its title in the club's folder: the same link, said to be the one it had.
        let again = try cli.run(["share", "For Ada"] + server)
        XCTAssertEqual(again.stdout, shared.stdout)
        XCTAssertTrue(again.stderr.contains("already had this link"), again.stderr)

        let listed = try cli.run(["share", "--list", "--json"] + server)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let links = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(links.map { $0["url"] as? String }, [url])
        XCTAssertEqual(links.first?["path_display"] as? String, "/byteclub/For Ada.txt", "in the path's real case")
        let expires = try XCTUnwrap(links.first?["expires"] as? String)
        let week = try XCTUnwrap(ISO8601DateFormatter().date(from: expires)).timeIntervalSinceNow
        XCTAssertEqual(week, 7 * 86_400, accuracy: 120)
        let human = try cli.run(["share", "--list"] + server)
        XCTAssertTrue(human.stdout.hasPrefix(url + "  /byteclub/For Ada.txt  expires "), human.stdout)

        let unshared = try cli.run(["unshare", url] + server)
        XCTAssertEqual(unshared.status, 0, unshared.stderr)
        XCTAssertEqual(try curl(url).status, 404)
        let twice = try cli.run(["unshare", url] + server)
        XCTAssertEqual(twice.status, 3, "not found")
        XCTAssertTrue(twice.stderr.hasPrefix("byteclub: Not found"), twice.stderr)
        XCTAssertEqual(try cli.run(["share", "--list"] + server).stdout, "")
    }

    func testBadInputGetsAClearMessage() throws {
        for (expiry, words) in [("3x", "neither a duration"), ("2001-01-01", "in the past"), ("0d", "neither a duration")] {
            let bad = try cli.run(["share", "/byteclub/x.txt", "--expires", expiry] + server)
            XCTAssertNotEqual(bad.status, 0, expiry)
            XCTAssertTrue(bad.stderr.contains("--expires \(expiry) ") && bad.stderr.contains(words), bad.stderr)
        }
        let missing = try cli.run(["share", "/byteclub/nope.txt"] + server)
        XCTAssertEqual(missing.status, 3)
        XCTAssertEqual(missing.stderr, "byteclub: Not found: /byteclub/nope.txt (byteclub ls /byteclub lists what is there)\n")
        let noPath = try cli.run(["share"] + server)
        XCTAssertNotEqual(noPath.status, 0)
        XCTAssertTrue(noPath.stderr.contains("say which file to share"), noPath.stderr)
    }

    /// The embedded club is served only while a command runs, on a new port each time: a link
    /// made by `share` there would be dead at once, so it is refused, and nothing is kept.
    func testTheEmbeddedClubRefusesToMakeADeadLink() throws {
        let folder = club.base.appendingPathComponent("embedded")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        try Data("x\n".utf8).write(to: folder.appendingPathComponent("byteclub/a.txt"))
        let shared = try cli.run(["share", "/byteclub/a.txt", "--data-dir", folder.path])
        XCTAssertNotEqual(shared.status, 0)
        XCTAssertEqual(shared.stdout, "")
        XCTAssertTrue(shared.stderr.contains("embedded club") && shared.stderr.contains("byteclub serve"), shared.stderr)
        let listed = try cli.run(["share", "--list", "--data-dir", folder.path])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stdout, "", "no link was kept")
    }
}

/// WebDAV has no share links: `share` says so plainly and changes nothing.
final class ShareWebDAVCLITests: XCTestCase {
    func testWebDAVSaysItCannotShare() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        let server = try RcloneWebDAV()
        defer { server.remove() }
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        try Data("x".utf8).write(to: server.file("byteclub/a.txt"))
        var cli = try CLI.isolated(in: server.base.appendingPathComponent("cli"))
        var environment = cli.environment
        environment["BYTECLUB_WEBDAV_PASSWORD"] = server.password
        cli = CLI(environment: environment, directory: cli.directory)
        let shared = try cli.run(["share", "/byteclub/a.txt", "--webdav", server.url.absoluteString, "--user", server.user])
        XCTAssertEqual(shared.status, 1)
        XCTAssertEqual(shared.stderr, "byteclub: Not supported by this remote: share links (this WebDAV server cannot make them)\n")
        XCTAssertEqual(shared.stdout, "")
    }
}
