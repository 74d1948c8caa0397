import Foundation
import TestSupport
import XCTest

/// Who deleted a file comes from the club's own route, `/2/byteclub/files/list_revisions`, never
/// from a byteclub-only field on Dropbox's `files/list_revisions` (issue 54: the client sent
/// `include_deleted_by` there, an argument the official API does not have). Read from a real
/// `byteclub serve`'s access log.
final class DeletedByCLITests: XCTestCase {
    var base: URL!

    override func setUp() async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("deleted-by-cli-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: base)
    }

    func testLogOfADeletedNoteNamesWhoDeletedItThroughTheClubsOwnRoute() throws {
        let root = base.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        let log = base.appendingPathComponent("serve.log")
        let server = try ServeProcess(root: root, token: nil, log: log, arguments: ["--member", "ann=ann-token-1", "--member", "bob=bob-token-1"])
        let cli = try CLI.isolated(in: base)
        let ann = ["--server", server.url, "--token", "ann-token-1"]
        let bob = ["--server", server.url, "--token", "bob-token-1"]

        let note = cli.directory.appendingPathComponent("Gone.txt")
        try Data("soon gone\n".utf8).write(to: note)
        let put = try cli.run(["put", note.path, "/byteclub/"] + ann)
        XCTAssertEqual(put.status, 0, put.stderr)
        let rm = try cli.run(["rm", "/byteclub/Gone.txt"] + bob)
        XCTAssertEqual(rm.status, 0, rm.stderr)

        let history = try cli.run(["log", "/byteclub/Gone.txt"] + ann)
        XCTAssertEqual(history.status, 0, history.stderr)
        XCTAssertTrue(history.stderr.contains("/byteclub/Gone.txt was deleted by bob; its revisions can still be restored"), history.stderr)
        XCTAssertTrue(history.stdout.contains("you (ann)"), "ann's revision is listed: \(history.stdout)")

        let requests = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(requests.contains("POST /2/byteclub/files/list_revisions 200"), requests)
        XCTAssertFalse(requests.contains(" /2/files/list_revisions "), "no byteclub-only question on Dropbox's route: \(requests)")
        XCTAssertTrue(server.isRunning)
    }
}
