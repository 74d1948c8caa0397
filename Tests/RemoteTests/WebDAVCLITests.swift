import Foundation
import TestSupport
import XCTest

/// `byteclub --webdav URL --user NAME` against a real `rclone serve webdav`, run as a script
/// would run it: put and get byte for byte (a Unicode name, 64 MiB), a get resumed after
/// Ctrl-C, ls --json, mv, rm; a wrong password exits 5 and is printed nowhere.
final class WebDAVCLITests: XCTestCase {
    var server: RcloneWebDAV!
    var cli: CLI!

    override func setUpWithError() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        server = try RcloneWebDAV()
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        let home = server.base.appendingPathComponent("home")
        let work = server.base.appendingPathComponent("work")
        let temp = server.base.appendingPathComponent("tmp")
        for folder in [work, temp] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home.path
        for (variable, folder) in [("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"), ("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache")] {
            environment[variable] = home.appendingPathComponent(folder).path
        }
        environment["TMPDIR"] = temp.path
        environment["BYTECLUB_TOKEN"] = nil
        environment["BYTECLUB_WEBDAV_PASSWORD"] = server.password
        cli = CLI(environment: environment, directory: work)
    }

    override func tearDown() {
        server?.remove()
    }

    var webdav: [String] { ["--webdav", server.url.absoluteString, "--user", server.user] }

    /// A file of `size` bytes that never repeats at a power-of-two period.
    private func makeFile(_ name: String, size: Int) throws -> URL {
        let url = server.base.appendingPathComponent(name)
        var data = Data(count: size)
        data.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) in
            for index in 0..<size { raw[index] = UInt8(truncatingIfNeeded: index % 251 &+ index / 65_521) }
        }
        try data.write(to: url)
        return url
    }

    /// Issue 68 (7): a new note's piped text, while the WebDAV server is down, waits in the outbox
    /// (exit 75) as it does for a club server, and reaches the server when it is back. It was exit 6
    /// and the text, read from the pipe already, was gone.
    func testPipedTextForANewNoteWaitsInTheOutboxWhileTheServerIsDown() throws {
        let first = server!
        defer { first.remove() }
        first.stop()
        let hold = try PortHold(port: first.port)
        let offline = try cli.run(["new", "Offline idea", "--no-edit"] + webdav, input: Data("kept while the server was down\n".utf8))
        XCTAssertEqual(offline.status, 75, offline.stderr)
        XCTAssertTrue(offline.stderr.contains("waits in the outbox: byteclub outbox --send sends it"), offline.stderr)

        hold.release()
        server = try RcloneWebDAV(user: first.user, password: first.password, root: first.root, port: first.port)
        let sent = try cli.run(["outbox", "--send"] + webdav)
        XCTAssertEqual(sent.status, 0, sent.stderr)
        XCTAssertEqual(try String(contentsOf: server.file("byteclub/Offline idea.md"), encoding: .utf8), "kept while the server was down\n")
    }

    func testPutGetLsMvRmByteExact() throws {
        let local = cli.directory.appendingPathComponent("Grüße ✓ 你好.txt")
        try Data("hello over WebDAV\n".utf8).write(to: local)
        let put = try cli.run(["put", local.path, "/byteclub/"] + webdav)
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertEqual(put.stdout, "/byteclub/Grüße ✓ 你好.txt\n")
        XCTAssertEqual(try Data(contentsOf: server.file("byteclub/Grüße ✓ 你好.txt")), try Data(contentsOf: local))

        let big = try makeFile("pano.bin", size: 64 << 20)
        let putBig = try cli.run(["put", big.path, "/byteclub/photos/pano.bin"] + webdav, timeout: 120)
        XCTAssertEqual(putBig.status, 0, putBig.stderr)
        let gotBig = try cli.run(["get", "/byteclub/photos/pano.bin", "pano-copy.bin"] + webdav, timeout: 120)
        XCTAssertEqual(gotBig.status, 0, gotBig.stderr)
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: big.path, andPath: cli.directory.appendingPathComponent("pano-copy.bin").path))

        let listing = try cli.run(["ls", "/byteclub", "--json"] + webdav)
        XCTAssertEqual(listing.status, 0, listing.stderr)
        let entries = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(entries.compactMap { $0["name"] as? String }.sorted(), ["Grüße ✓ 你好.txt", "photos"])
        XCTAssertEqual(entries.first { $0["name"] as? String == "Grüße ✓ 你好.txt" }?["size"] as? Int, 18)

        // The same bytes again are done and write nothing, as on a club (issue 69); other bytes
        // under the name are refused.
        let again = try cli.run(["put", local.path, "/byteclub/"] + webdav)
        XCTAssertEqual(again.status, 0, "the same bytes again: \(again.stderr)")
        let other = cli.directory.appendingPathComponent("other/Grüße ✓ 你好.txt")
        try FileManager.default.createDirectory(at: other.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("other bytes, 18 B.".utf8).write(to: other)
        let taken = try cli.run(["put", other.path, "/byteclub/"] + webdav)
        XCTAssertEqual(taken.status, 4, "add never replaces: \(taken.stderr)")
        let moved = try cli.run(["mv", "/byteclub/Grüße ✓ 你好.txt", "/byteclub/Archive/ñ.txt"] + webdav)
        XCTAssertEqual(moved.status, 0, moved.stderr)
        XCTAssertEqual(moved.stdout, "/byteclub/Archive/ñ.txt\n")
        let got = try cli.run(["get", "/byteclub/Archive/ñ.txt", "back.txt"] + webdav)
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertEqual(try Data(contentsOf: cli.directory.appendingPathComponent("back.txt")), try Data(contentsOf: local))

        let removed = try cli.run(["rm", "/byteclub/Archive/ñ.txt"] + webdav)
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: server.file("byteclub/Archive/ñ.txt").path))
        let missing = try cli.run(["get", "/byteclub/Archive/ñ.txt"] + webdav)
        XCTAssertEqual(missing.status, 3)
        XCTAssertEqual(missing.stderr, "byteclub: Not found: /byteclub/Archive/ñ.txt (byteclub ls /byteclub/Archive lists what is there)\n")
    }

    /// Issue 31: `server.url` is rclone's `/`; a listing of it used to stop with "the server
    /// answered a listing of / with /, which is not inside it".
    func testLsOfTheRootOfRcloneServingAFolderAtSlashLists() throws {
        XCTAssertEqual(server.url.path, "/", "rclone serves the folder at the server's root")
        try Data("at the top\n".utf8).write(to: server.file("top.txt"))
        let ls = try cli.run(["ls", "/"] + webdav)
        XCTAssertEqual(ls.status, 0, ls.stderr)
        let names = ls.stdout.split(separator: "\n").map { $0.split(separator: " ").last.map(String.init) ?? "" }
        XCTAssertEqual(names, ["byteclub/", "top.txt"], ls.stdout)
        let json = try cli.run(["ls", "/", "--json"] + webdav)
        XCTAssertEqual(json.status, 0, json.stderr)
        let entries = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
        XCTAssertEqual(entries.compactMap { $0["name"] as? String }.sorted(), ["byteclub", "top.txt"], json.stdout)
    }

    func testWrongPasswordExits5AndPrintsNoPassword() throws {
        let wrong = CLI(environment: cli.environment.merging(["BYTECLUB_WEBDAV_PASSWORD": "correct-horse-wrong"]) { $1 }, directory: cli.directory)
        let result = try wrong.run(["ls", "/byteclub"] + webdav)
        XCTAssertEqual(result.status, 5, result.stderr)
        XCTAssertFalse((result.stdout + result.stderr).contains("correct-horse-wrong"))
        XCTAssertFalse((result.stdout + result.stderr).contains(server.password))

        // No password and no terminal to ask on: a clear message, not a hang.
        let none = CLI(environment: cli.environment.merging(["BYTECLUB_WEBDAV_PASSWORD": ""]) { $1 }, directory: cli.directory)
        let asked = try none.run(["ls"] + webdav)
        XCTAssertNotEqual(asked.status, 0)
        XCTAssertTrue(asked.stderr.contains("BYTECLUB_WEBDAV_PASSWORD"), asked.stderr)
        let noUser = try cli.run(["ls", "--webdav", server.url.absoluteString])
        XCTAssertTrue(noUser.stderr.contains("--user"), noUser.stderr)
    }

    func testNoPasswordExits5LikeARefusedOne() throws {
        // No password and no terminal to ask on: an authentication failure, said clearly.
        let none = CLI(environment: cli.environment.merging(["BYTECLUB_WEBDAV_PASSWORD": ""]) { $1 }, directory: cli.directory)
        let listed = try none.run(["ls", "/byteclub"] + webdav)
        XCTAssertEqual(listed.status, 5, listed.stderr)
        XCTAssertEqual(listed.stderr, "byteclub: --webdav needs a password: set BYTECLUB_WEBDAV_PASSWORD, or run byteclub on a terminal to be asked\n")
        let put = try none.run(["put", "/dev/null", "/byteclub/x.txt"] + webdav)
        XCTAssertEqual(put.status, 5, put.stderr)
    }

    func testInterruptedGetResumesInANewProcess() throws {
        let source = try makeFile("pano.bin", size: 32 << 20)
        try FileManager.default.copyItem(at: source, to: server.file("byteclub/pano.bin"))
        // Ctrl-C once a good part of it is on disk.
        let first = try cli.interrupt(["get", "/byteclub/pano.bin", "pano.bin", "--bwlimit", "8M"] + webdav,
                                      partialIn: server.base.appendingPathComponent("tmp"))
        XCTAssertGreaterThanOrEqual(first.partial, 4 << 20)
        let firstError = first.stderr
        XCTAssertEqual(first.status, 130, "Ctrl-C is 130 (docs/cli.md): " + firstError)
        XCTAssertTrue(firstError.contains("run the same command again to resume"), firstError)

        let second = try cli.run(["get", "/byteclub/pano.bin", "pano.bin"] + webdav)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stderr.contains("resuming /byteclub/pano.bin at"), second.stderr)
        XCTAssertTrue(FileManager.default.contentsEqual(atPath: source.path, andPath: cli.directory.appendingPathComponent("pano.bin").path))
    }
}
