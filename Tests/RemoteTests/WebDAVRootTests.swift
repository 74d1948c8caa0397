import Foundation
@testable import Remote
import TestSupport
import Transfer
import XCTest

/// A WebDAV remote whose URL is the server's `/`, as `rclone serve webdav DIR` serves a folder:
/// `ls` and `watch` of its root used to stop with "the server answered a listing of / with /,
/// which is not inside it" (the root's own entry, the href `/`, was taken for an intruder).
/// Against a real rclone at its root, through the built `byteclub`.
final class WebDAVRootTests: XCTestCase {
    var server: RcloneWebDAV!
    var cli: CLI!

    override func setUpWithError() throws {
        guard RcloneWebDAV.executable != nil else { throw XCTSkip("rclone is not installed (make deps)") }
        server = try RcloneWebDAV()
        try FileManager.default.createDirectory(at: server.file("byteclub"), withIntermediateDirectories: true)
        try Data("at the top\n".utf8).write(to: server.file("top.txt"))
        let isolated = try CLI.isolated(in: server.base)
        var environment = isolated.environment
        environment["BYTECLUB_WEBDAV_PASSWORD"] = server.password
        cli = CLI(environment: environment, directory: isolated.directory)
    }

    override func tearDown() {
        server?.remove()
    }

    var webdav: [String] { ["--webdav", server.url.absoluteString, "--user", server.user] }

    func testLsOfTheRootOfRcloneServingAFolderAtSlashLists() throws {
        XCTAssertEqual(server.url.path, "/", "rclone serves the folder at the server's root")
        let ls = try cli.run(["ls"] + webdav)
        XCTAssertEqual(ls.status, 0, ls.stderr)
        XCTAssertFalse(ls.stderr.contains("not inside"), ls.stderr)
        let names = ls.stdout.split(separator: "\n").map { $0.split(separator: " ").last.map(String.init) ?? "" }
        XCTAssertEqual(names, ["byteclub/", "top.txt"], ls.stdout)

        let json = try cli.run(["ls", "/", "--json"] + webdav)
        XCTAssertEqual(json.status, 0, json.stderr)
        let entries = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]] ?? []
        XCTAssertEqual(entries.compactMap { $0["name"] as? String }.sorted(), ["byteclub", "top.txt"], json.stdout)
    }

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
        XCTAssertFalse(err.current.contains("not inside"), err.current)
        watch.interrupt()
        let deadline = Date().addingTimeInterval(5)
        while watch.isRunning && Date() < deadline { usleep(2_000) }
        XCTAssertFalse(watch.isRunning, "Ctrl-C ends the watch")
    }

    /// The store itself, at the server's root: the root's entry is the folder, not a child.
    func testTheStoreAtTheServersRootMapsHrefs() throws {
        let store = WebDAVStore(root: server.url, configuration: .ephemeral)
        XCTAssertEqual(store.storePath(ofHref: "/"), "")
        XCTAssertEqual(store.storePath(ofHref: "/top.txt"), "/top.txt")
        XCTAssertEqual(store.storePath(ofHref: "/byteclub/"), "/byteclub")
        XCTAssertEqual(store.storePath(ofHref: server.url.absoluteString + "top.txt"), "/top.txt", "a whole URL on the same server")
    }
}
