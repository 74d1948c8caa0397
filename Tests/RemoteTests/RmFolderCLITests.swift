import Foundation
import TestSupport
import XCTest

/// Issue 53 §8, through the built binary: `rm FOLDER` deleted a folder and everything in it with
/// exit 0, no flag and no question, on WebDAV for good. A folder that holds files now needs
/// `-r` (exit 64 without, naming how many files it holds, nothing deleted); an empty one goes
/// without; on WebDAV, which keeps no history, the refusal says so and `rm -r` says on stderr
/// that it cannot be undone. And `put -r notes club:` where config.toml has no remote `club`
/// made a folder named `club:`: such a `NAME:` is refused with a line naming the remotes there are.
final class RmFolderCLITests: XCTestCase {
    var base: URL!
    var cli: CLI!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("rm-folder-cli-\(UUID().uuidString)")
        cli = try CLI.isolated(in: base)
    }

    override func tearDown() async throws {
        if let base { try? FileManager.default.removeItem(at: base) }
    }

    /// Three files in `Trips/` (one a folder deeper), an empty folder, a note beside them, in
    /// `club` (the club's folder on disk).
    private static func seed(_ club: URL) throws {
        for (path, text) in ["Trips/Lyon.md": "Day 1\n", "Trips/Rome.md": "Day 2\n", "Trips/2026/Oslo.md": "Day 3\n", "Plans.md": "Soon\n"] {
            let file = club.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        try FileManager.default.createDirectory(at: club.appendingPathComponent("Empty"), withIntermediateDirectories: true)
    }

    private static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    /// The same three steps on any backend: `rm Trips` refused with `refusal`, `rm Empty` done,
    /// `rm -r Trips` done saying `warning` (nothing when nil) on stderr.
    private func removeFolders(_ connection: [String], cli: CLI, club: URL, refusal: String, warning: String?,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let refused = try cli.run(["rm", "Trips"] + connection)
        XCTAssertEqual(refused.status, 64, refused.stderr, file: file, line: line)
        XCTAssertEqual(refused.stderr, "byteclub: \(refusal)\n", file: file, line: line)
        XCTAssertEqual(refused.stdout, "", file: file, line: line)
        for path in ["Trips/Lyon.md", "Trips/Rome.md", "Trips/2026/Oslo.md"] {
            XCTAssertTrue(Self.exists(club.appendingPathComponent(path)), "\(path) was deleted without -r", file: file, line: line)
        }

        let empty = try cli.run(["rm", "Empty"] + connection)
        XCTAssertEqual(empty.status, 0, empty.stderr, file: file, line: line)
        XCTAssertFalse(Self.exists(club.appendingPathComponent("Empty")), "an empty folder goes without -r", file: file, line: line)

        let removed = try cli.run(["rm", "-r", "Trips"] + connection)
        XCTAssertEqual(removed.status, 0, removed.stderr, file: file, line: line)
        XCTAssertEqual(removed.stderr, warning.map { "byteclub: \($0)\n" } ?? "", file: file, line: line)
        XCTAssertFalse(Self.exists(club.appendingPathComponent("Trips")), file: file, line: line)
        XCTAssertTrue(Self.exists(club.appendingPathComponent("Plans.md")), "only the folder went", file: file, line: line)

        let note = try cli.run(["rm", "Plans.md"] + connection)
        XCTAssertEqual(note.status, 0, note.stderr, file: file, line: line)
        XCTAssertEqual(note.stderr, "", "a file goes as before, without a word", file: file, line: line)
        XCTAssertFalse(Self.exists(club.appendingPathComponent("Plans.md")), file: file, line: line)
    }

    func testOnAClubServerAFolderThatHoldsFilesGoesOnlyWithDashR() throws {
        let root = base.appendingPathComponent("served")
        try Self.seed(root.appendingPathComponent("byteclub"))
        let server = try ServeProcess(root: root, token: "rm-owner-token-1")
        defer { withExtendedLifetime(server) {} }
        try removeFolders(["--server", server.url, "--token", "rm-owner-token-1"], cli: cli, club: root.appendingPathComponent("byteclub"),
                          refusal: "/byteclub/Trips is a folder with 3 files; use rm -r to delete it and everything in it",
                          warning: nil)
    }

    func testOnWebDAVTheRefusalAndDashRSayItCannotBeUndone() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        let server = try RcloneWebDAV()
        defer { server.remove() }
        try Self.seed(server.file("byteclub"))
        let webdav = CLI(environment: cli.environment.merging(["BYTECLUB_WEBDAV_PASSWORD": server.password]) { $1 }, directory: cli.directory)
        try removeFolders(["--webdav", server.url.absoluteString, "--user", server.user], cli: webdav, club: server.file("byteclub"),
                          refusal: "/byteclub/Trips is a folder with 3 files; use rm -r to delete it and everything in it (this server keeps no history: they could not be restored)",
                          warning: "deleting /byteclub/Trips and the 3 files in it: this server keeps no history, so this cannot be undone")
    }

    func testANameThatNamesNoRemoteIsRefusedNeverMadeAFolder() throws {
        let root = base.appendingPathComponent("served")
        let club = root.appendingPathComponent("byteclub")
        try FileManager.default.createDirectory(at: club, withIntermediateDirectories: true)
        let server = try ServeProcess(root: root, token: "name-token-1")
        defer { withExtendedLifetime(server) {} }
        let config = base.appendingPathComponent("home/config/byteclub/config.toml")
        try FileManager.default.createDirectory(at: config.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("""
            default = "home"

            [remote.home]
            type = "club"
            url = "\(server.url)"
            token = "name-token-1"
            """.utf8).write(to: config)
        let notes = cli.directory.appendingPathComponent("notes")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        try Data("Pack the tent\n".utf8).write(to: notes.appendingPathComponent("Tent.md"))

        let put = try cli.run(["put", "-r", notes.path, "club:"])
        XCTAssertEqual(put.status, 64, put.stderr)
        XCTAssertTrue(put.stderr.hasPrefix("byteclub: club: names no remote of config.toml (it has home); for a file or folder named so in the club, give its whole path: /byteclub/club:"),
                      put.stderr)
        XCTAssertEqual(put.stderr.split(separator: "\n").count, 1, put.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: club.path).filter { !$0.hasPrefix(".") }, [], "nothing was written")
        let listed = try cli.run(["ls", "club:trips"])
        XCTAssertEqual(listed.status, 64, listed.stderr)
        XCTAssertTrue(listed.stderr.contains("club: names no remote of config.toml (it has home)"), listed.stderr)

        // The remote config.toml has is taken as before; a title with a colon and a blank, and a
        // whole path, still name files in the club.
        let named = try cli.run(["put", "-r", notes.path, "home:"])
        XCTAssertEqual(named.status, 0, named.stderr)
        XCTAssertTrue(Self.exists(club.appendingPathComponent("notes/Tent.md")))
        let local = notes.appendingPathComponent("Tent.md").path
        let titled = try cli.run(["put", local, "Plan: June.md"])
        XCTAssertEqual(titled.status, 0, titled.stderr)
        XCTAssertTrue(Self.exists(club.appendingPathComponent("Plan: June.md")))
        let whole = try cli.run(["put", local, "/byteclub/club:"])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        XCTAssertTrue(Self.exists(club.appendingPathComponent("club:")), "a whole path names a file called club:")
    }
}
