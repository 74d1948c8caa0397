import DropboxWire
import Foundation
import XCTest

/// `restore` of a deleted file by `id:` never replaces what lives at its old path now.
final class RestoreConflictTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture()
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    func testRestoringADeletedFileByIDOntoAnotherFileIsAConflict() async throws {
        let note = try await club.upload("/n.txt", Data("note".utf8))
        XCTAssertEqual(note.status, 200, note.text)
        let noteID = try XCTUnwrap(note.json["id"] as? String)
        let noteRev = try XCTUnwrap(note.json["rev"] as? String)
        let deleted = try await club.rpc("2/files/delete_v2", ["path": "/n.txt"])
        XCTAssertEqual(deleted.status, 200, deleted.text)
        // Another file takes the path: moved there, so it keeps its own id.
        let other = try await club.upload("/other.txt", Data("other".utf8))
        let otherID = try XCTUnwrap(other.json["id"] as? String)
        let moved = try await club.rpc("2/files/move_v2", ["from_path": "/other.txt", "to_path": "/n.txt"])
        XCTAssertEqual(moved.status, 200, moved.text)

        let reply = try await club.rpc("2/files/restore", ["path": noteID, "rev": noteRev])
        XCTAssertEqual(reply.status, 409, reply.text)
        XCTAssertEqual(reply.summary, "path_write/conflict/file")
        XCTAssertEqual(club.read("n.txt"), "other", "the file living at the path is left alone")
        let now = try await club.rpc("2/files/get_metadata", ["path": "/n.txt"])
        XCTAssertEqual(now.json["id"] as? String, otherID)
        XCTAssertEqual(now.json["rev"] as? String, moved.json["metadata"].flatMap { ($0 as? [String: Any])?["rev"] as? String })

    }
}
