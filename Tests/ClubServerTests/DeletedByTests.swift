import ClubServer
import DropboxWire
import Foundation
import XCTest

/// Who deleted a file: `list_revisions` of a deleted file says `deleted_by` (the member's
/// account id, as `modified_by` names who made a revision) once the club has members, when the
/// client asks (`include_deleted_by`, the server's own; Dropbox's SDKs refuse fields their spec
/// lacks), so an app with the note open can say `Deleted by bob` (issue 43). It survives a
/// restart, goes once the file is back, and a club of one shared token names no one.
final class DeletedByTests: XCTestCase {
    var club: ServerFixture!
    let bob = ClubMember(name: "bob", token: "bob-\(UUID().uuidString)")

    override func tearDown() async throws {
        await club?.tearDown()
    }

    private func revisions(_ path: String, asking: Bool = true) async throws -> ListRevisionsResult {
        let reply = try await club.rpc("2/files/list_revisions", ["path": path, "include_deleted_by": asking])
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
        XCTAssertNil(unasked.deletedBy, "Dropbox's shape unless asked")

        club = try await club.restart()
        let restarted = try await revisions("/Plans.txt")
        XCTAssertEqual(restarted.deletedBy, ClubMember.accountID(of: "bob"), "kept with the tombstone")

        let again = try await club.upload("/Plans.txt", Data("Day 2\n".utf8), mode: "add")
        XCTAssertEqual(again.status, 200, again.text)
        let back = try await revisions("/Plans.txt")
        XCTAssertFalse(back.isDeleted)
        XCTAssertNil(back.deletedBy, "back again: no one deleted it")
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
