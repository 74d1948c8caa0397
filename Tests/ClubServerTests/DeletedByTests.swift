import ClubServer
import DropboxWire
import Foundation
import XCTest

/// Who deleted a file: the club's own `/2/byteclub/files/list_revisions` of a deleted file says
/// `deleted_by` (the member's account id, as `modified_by` names who made a revision) once the
/// club has members, so an app with the note open can say `Deleted by bob` (issue 43). It
/// survives a restart, goes once the file is back, and a club of one shared token names no one.
/// Dropbox's `files/list_revisions` answers Dropbox's fields only (issue 54: it carried
/// `deleted_by` when asked with `include_deleted_by`, an argument the official API lacks).
final class DeletedByTests: XCTestCase {
    var club: ServerFixture!
    let bob = ClubMember(name: "bob", token: "bob-\(UUID().uuidString)")

    override func tearDown() async throws {
        await club?.tearDown()
    }

    /// The club's route (`asking`), or Dropbox's.
    private func revisions(_ path: String, asking: Bool = true) async throws -> ListRevisionsResult {
        let reply = try await club.rpc(asking ? "2/byteclub/files/list_revisions" : "2/files/list_revisions", ["path": path])
        XCTAssertEqual(reply.status, 200, reply.text)
        return try JSONDecoder().decode(ListRevisionsResult.self, from: reply.body)
    }

    func testTheRevisionsOfADeletedFileNameTheMemberWhoDeletedIt() async throws {
        let bob = self.bob
        club = try await ServerFixture { $0.members = [bob] }
        let saved = try await club.upload("/Plans.txt", Data("Day 1\n".utf8), mode: "overwrite")
        XCTAssertEqual(saved.status, 200, saved.text)
        let live = try await revisions("/Plans.txt")
        XCTAssertNil(live.deletedBy, "a live file names no deleter")

        let deleted = try await club.rpc("2/files/delete_v2", ["path": "/Plans.txt"], token: bob.token)
        XCTAssertEqual(deleted.status, 200, deleted.text)
        let gone = try await revisions("/Plans.txt")
        XCTAssertTrue(gone.isDeleted)
        XCTAssertEqual(gone.deletedBy, ClubMember.accountID(of: "bob"))
        let unasked = try await revisions("/Plans.txt", asking: false)
        XCTAssertNil(unasked.deletedBy, "Dropbox's route: Dropbox's shape")

        club = try await club.restart()
        let restarted = try await revisions("/Plans.txt")
        XCTAssertEqual(restarted.deletedBy, ClubMember.accountID(of: "bob"), "kept with the tombstone")

        let again = try await club.upload("/Plans.txt", Data("Day 2\n".utf8), mode: "add")
        XCTAssertEqual(again.status, 200, again.text)
        let back = try await revisions("/Plans.txt")
        XCTAssertFalse(back.isDeleted)
        XCTAssertNil(back.deletedBy, "back again: no one deleted it")
    }

    /// Dropbox's route answers Dropbox's `ListRevisionsResult` and nothing more, whatever
    /// byteclub-only argument it is sent (an older byteclub's `include_deleted_by`); the club's
    /// own route takes the same argument and adds `deleted_by`.
    func testDropboxsRouteAnswersOnlyDropboxsFields() async throws {
        let bob = self.bob
        club = try await ServerFixture { $0.members = [bob] }
        let saved = try await club.upload("/Gone.txt", Data("soon gone\n".utf8), mode: "overwrite")
        XCTAssertEqual(saved.status, 200, saved.text)
        let deleted = try await club.rpc("2/files/delete_v2", ["path": "/Gone.txt"], token: bob.token)
        XCTAssertEqual(deleted.status, 200, deleted.text)

        let dropbox = try await club.rpc("2/files/list_revisions", ["path": "/Gone.txt", "include_deleted_by": true])
        XCTAssertEqual(dropbox.status, 200, dropbox.text)
        // files.stone's ListRevisionsResult: is_deleted, server_deleted?, entries, has_more.
        XCTAssertEqual(Set(dropbox.json.keys), ["is_deleted", "server_deleted", "entries", "has_more"], dropbox.text)
        XCTAssertFalse(dropbox.text.contains("deleted_by"), dropbox.text)

        let own = try await club.rpc("2/byteclub/files/list_revisions", ["path": "/Gone.txt", "limit": 5])
        XCTAssertEqual(own.status, 200, own.text)
        XCTAssertEqual(Set(own.json.keys), ["is_deleted", "server_deleted", "deleted_by", "entries", "has_more"], own.text)
        XCTAssertEqual(own.json["deleted_by"] as? String, ClubMember.accountID(of: "bob"))
        XCTAssertEqual((own.json["entries"] as? [[String: Any]])?.count, 1, own.text)
        // The same argument rules as Dropbox's route: a limit out of range is a 400.
        let bad = try await club.rpc("2/byteclub/files/list_revisions", ["path": "/Gone.txt", "limit": 0])
        XCTAssertEqual(bad.status, 400, bad.text)
    }

    func testAClubOfOneSharedTokenNamesNoOne() async throws {
        club = try await ServerFixture()
        _ = try await club.upload("/Plans.txt", Data("Day 1\n".utf8), mode: "overwrite")
        _ = try await club.rpc("2/files/delete_v2", ["path": "/Plans.txt"])
        let gone = try await revisions("/Plans.txt")
        XCTAssertTrue(gone.isDeleted)
        XCTAssertNil(gone.deletedBy)
    }
}
