import Foundation
import TestSupport
import XCTest

/// `byteclub watch` on a WebDAV remote (a real `rclone serve webdav`): it used to stop with
/// "not supported"; now it polls and prints what another member (`byteclub put`, `rm`, in other
/// processes) changes, within one 10 s interval.
final class WebDAVWatchCLITests: XCTestCase {
    var server: RcloneWebDAV!
    var cli: CLI!

    override func setUpWithError() throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        server = try RcloneWebDAV()
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        try Data("already here\n".utf8).write(to: server.file("byteclub/old.txt"))
        let isolated = try CLI.isolated(in: server.base)
        var environment = isolated.environment
        environment["BYTECLUB_WEBDAV_PASSWORD"] = server.password
        cli = CLI(environment: environment, directory: isolated.directory)
    }

    override func tearDown() {
        server?.remove()
    }

    var webdav: [String] { ["--webdav", server.url.absoluteString, "--user", server.user] }

    func testWatchPrintsAnotherMembersAdditionAndDeletion() throws {
        let (watch, out, err) = try watchThenPut(["/byteclub"], banner: "watching /byteclub", "hello from bob\n", at: "/byteclub/hello.txt")
        defer { if watch.isRunning { watch.terminate() } }

        let rm = try cli.run(["rm", "/byteclub/old.txt"] + webdav)
        XCTAssertEqual(rm.status, 0, rm.stderr)
        XCTAssertNotNil(out.wait(for: "deleted /byteclub/old.txt\n", timeout: 20), "out: \(out.current) err: \(err.current)")
        XCTAssertEqual(out.current, "added /byteclub/hello.txt\ndeleted /byteclub/old.txt\n", "one line per change, nothing else")
        XCTAssertFalse(err.current.contains("ot supported"), err.current)
        // Issue 69: a note put, moved and removed within one look prints only what differs
        // between two looks; the watch says at its start that it compares listings.
        XCTAssertTrue(err.current.contains("watching /byteclub and its subfolders by comparing listings (WebDAV keeps no feed of changes"), err.current)

        watch.interrupt()
        let deadline = Date().addingTimeInterval(5)
        while watch.isRunning && Date() < deadline { usleep(2_000) }
        XCTAssertFalse(watch.isRunning, "Ctrl-C ends the watch")
    }

    /// Issue 31: a watch of the remote's root, which is rclone's `/`, used to stop at once with
    /// "the server answered a listing of / with /, which is not inside it".
    func testWatchOfTheRootPrintsAnotherMembersAddition() throws {
        let (watch, out, err) = try watchThenPut(["/"], banner: "watching / and its subfolders", "hello\n", at: "/new.txt")
        defer { if watch.isRunning { watch.terminate() } }
        XCTAssertEqual(out.current, "added /new.txt\n", "one line, nothing else")
        XCTAssertFalse(err.current.contains("not inside"), err.current)
    }

    /// Issue 43: `ls` with no folder listed the remote's root (one entry, `byteclub/`); it lists
    /// the club's folder, the notes the app shows, on WebDAV as on a club server.
    func testLsWithNoFolderListsTheClubsNotes() throws {
        let listed = try cli.run(["ls"] + webdav)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.contains("old.txt"), listed.stdout)
        XCTAssertFalse(listed.stdout.contains("byteclub/"), listed.stdout)
    }

    /// Issue 43: `watch` with no folder watched `/` without its subfolders, so on WebDAV it
    /// printed nothing when a member added a note. It now watches the club's folder, the one the
    /// app shows, with its subfolders (the photos, folders of notes).
    func testWatchWithNoFolderSeesANoteAddedInAFolderOfTheClub() throws {
        let (watch, out, err) = try watchThenPut([], banner: "watching /byteclub and its subfolders", "plan\n", at: "/byteclub/trip/plan.md")
        defer { if watch.isRunning { watch.terminate() } }
        XCTAssertTrue(out.current.hasSuffix("added /byteclub/trip/plan.md\n"), "out: \(out.current) err: \(err.current)")
        XCTAssertFalse(out.current.contains("added /new"), out.current)
    }

    struct WatchDidNotStart: Error, CustomStringConvertible {
        var description: String
    }

    /// `byteclub watch ARGUMENTS` started and followed; once it says `banner` on stderr,
    /// another member (another process) puts `text` at `remote`, and its `added` line is
    /// waited for. Answers the watch (still running) and its output and errors.
    private func watchThenPut(_ arguments: [String], banner: String, _ text: String, at remote: String) throws -> (Process, PipeTail, PipeTail) {
        let watch = try cli.start(["watch"] + arguments + webdav)
        let out = PipeTail(watch.standardOutput as! Pipe)
        let err = PipeTail(watch.standardError as! Pipe)
        guard err.wait(for: banner, timeout: 20) != nil else {
            watch.terminate()
            throw WatchDidNotStart(description: "watch \(arguments) did not start: \(err.current)")
        }
        let local = cli.directory.appendingPathComponent(UUID().uuidString)
        try Data(text.utf8).write(to: local)
        let put = try cli.run(["put", local.path, remote] + webdav)
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertNotNil(out.wait(for: "added \(remote)\n", timeout: 25), "out: \(out.current) err: \(err.current)")
        return (watch, out, err)
    }
}
