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
        guard RcloneWebDAV.executable != nil else { throw XCTSkip("rclone is not installed (make deps)") }
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
        let watch = try cli.start(["watch", "/byteclub"] + webdav)
        let out = PipeTail(watch.standardOutput as! Pipe)
        let err = PipeTail(watch.standardError as! Pipe)
        defer { if watch.isRunning { watch.terminate() } }
        guard err.wait(for: "watching /byteclub", timeout: 20) != nil else {
            return XCTFail("watch did not start: \(err.current)")
        }

        let local = cli.directory.appendingPathComponent("hello.txt")
        try Data("hello from bob\n".utf8).write(to: local)
        let put = try cli.run(["put", local.path, "/byteclub/"] + webdav)
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertNotNil(out.wait(for: "added /byteclub/hello.txt\n", timeout: 20), "out: \(out.current) err: \(err.current)")

        let rm = try cli.run(["rm", "/byteclub/old.txt"] + webdav)
        XCTAssertEqual(rm.status, 0, rm.stderr)
        XCTAssertNotNil(out.wait(for: "deleted /byteclub/old.txt\n", timeout: 20), "out: \(out.current) err: \(err.current)")
        XCTAssertEqual(out.current, "added /byteclub/hello.txt\ndeleted /byteclub/old.txt\n", "one line per change, nothing else")
        XCTAssertFalse(err.current.contains("ot supported"), err.current)

        watch.interrupt()
        let deadline = Date().addingTimeInterval(5)
        while watch.isRunning && Date() < deadline { usleep(2_000) }
        XCTAssertFalse(watch.isRunning, "Ctrl-C ends the watch")
    }

    /// Issue 31: a watch of the remote's root, which is rclone's `/`, used to stop at once with
    /// "the server answered a listing of / with /, which is not inside it".
    func testWatchOfTheRootPrintsAnotherMembersAddition() throws {
        let watch = try cli.start(["watch"] + webdav)
        let out = PipeTail(watch.standardOutput as! Pipe)
        let err = PipeTail(watch.standardError as! Pipe)
        defer { if watch.isRunning { watch.terminate() } }
        guard err.wait(for: "watching /", timeout: 20) != nil else {
            return XCTFail("watch of / did not start: \(err.current)")
        }
        let local = cli.directory.appendingPathComponent("new.txt")
        try Data("hello\n".utf8).write(to: local)
        let put = try cli.run(["put", local.path, "/new.txt"] + webdav)
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertNotNil(out.wait(for: "added /new.txt\n", timeout: 25), "out: \(out.current) err: \(err.current)")
        XCTAssertEqual(out.current, "added /new.txt\n", "one line, nothing else")
        XCTAssertFalse(err.current.contains("not inside"), err.current)
    }
}
