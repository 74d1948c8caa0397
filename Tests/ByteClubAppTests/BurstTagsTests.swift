@testable import ByteClubApp
import ClubServer
import Foundation
import Remote
import TestSupport
import XCTest

/// Another member's burst of commits (issue 56): the change pages it makes are listed as they
/// come, but the tags of the notes they name are asked for once, when the burst has passed
/// (``TagsSync``, ``BurstWindow``), not a call per page beside the uploads. Nothing is lost: a
/// tag given during the burst is there after it.
@MainActor
final class BurstTagsTests: XCTestCase {
    var club: MembersClub?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    private func store(_ club: MembersClub, _ token: String) -> DropboxStore {
        DropboxStore(displayName: "club", endpoints: .club(club.server.baseURL), tokens: StaticToken(token), configuration: .ephemeral)
    }

    func testTheTagsOfABurstsNotesAreAskedForOnceItHasPassed() async throws {
        let club = try await MembersClub(notes: ["Plans.txt": "x\n"])
        self.club = club
        let harness = Harness(store: store(club, club.annToken))
        await harness.start()
        // The server's longpoll told of a burst, the list to be looked at again in 5 s: the
        // burst is taken to end twice that from now, unless told of again.
        let told = Date(), window = 10.0
        harness.app.live.onBurst?(.notes, window / 2)
        let ray = store(club, club.rayToken)
        _ = try await ray.upload(data: Data("burst\n".utf8), to: "/byteclub/Burst.txt", mode: .add, autorename: false)
        try await ray.changeTags(of: "/byteclub/Burst.txt", TagChange(added: ["trip"]))
        await harness.waitUntil("ray's note in ann's list") {
            harness.app.state.notes.entries.contains { $0.pathLower == "/byteclub/burst.txt" }
        }
        if Date().timeIntervalSince(told) < window - 0.5 {
            XCTAssertEqual(harness.app.tagsSync.waitingForBurst, ["/byteclub/burst.txt"], "its tags wait for the burst's end")
            XCTAssertNil(harness.app.state.tags.byPath["/byteclub/burst.txt"])
        }
        await harness.waitUntil("the tag once the burst has passed", timeout: 30) {
            harness.app.state.tags.byPath["/byteclub/burst.txt"]?.all == ["trip"]
        }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(told), window - 0.5, "not before the burst's end")
        harness.app.stopLiveUpdates()
    }
}
