@testable import ClubServer
import Foundation
import Synchronization
import XCTest

/// The link registry on its own, with an injected clock: expiry to the second, tokens that
/// match only whole, and what is kept across a restart.
final class SharedLinksTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A clock the test moves.
    final class Clock: Sendable {
        let seconds = Mutex<Double>(1_000_000)
        var now: Date { Date(timeIntervalSince1970: seconds.withLock { $0 }) }
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    func links(_ clock: Clock) -> SharedLinks {
        SharedLinks(metaDirectory: directory.path, tempDirectory: directory.path, now: { clock.now })
    }

    func testExpiryIsJudgedByTheClockToTheSecond() async throws {
        let clock = Clock()
        let registry = links(clock)
        let (link, existed) = try await registry.make(fileID: "id:a", name: "a.txt", expires: clock.now.addingTimeInterval(60))
        XCTAssertFalse(existed)
        clock.advance(59.9)
        let live = await registry.live(token: link.token)
        XCTAssertEqual(live, link)
        clock.advance(0.1)
        let expired = await registry.live(token: link.token)
        XCTAssertNil(expired)
        // Gone for good, not only hidden: a new link for the file is a new token.
        let (again, existedAgain) = try await registry.make(fileID: "id:a", name: "a.txt", expires: nil)
        XCTAssertFalse(existedAgain)
        XCTAssertNotEqual(again.token, link.token)
    }

    func testTokensMatchOnlyWholeAndRevokesSurviveARestart() async throws {
        let clock = Clock()
        let registry = links(clock)
        let (a, _) = try await registry.make(fileID: "id:a", name: "a.txt", expires: nil)
        let (b, _) = try await registry.make(fileID: "id:b", name: "b.txt", expires: nil)
        XCTAssertEqual(a.token.count, 24)
        let prefix = await registry.live(token: String(a.token.dropLast()))
        let longer = await registry.live(token: a.token + "A")
        let empty = await registry.live(token: "")
        XCTAssertNil(prefix)
        XCTAssertNil(longer)
        XCTAssertNil(empty)
        let revoked = try await registry.revoke(token: a.token)
        XCTAssertTrue(revoked)

        let restarted = links(clock)
        let gone = await restarted.live(token: a.token)
        let kept = await restarted.live(token: b.token)
        XCTAssertNil(gone)
        XCTAssertEqual(kept, b)
        await restarted.forget(fileIDs: ["id:b"])
        let forgotten = await links(clock).live(token: b.token)
        XCTAssertNil(forgotten)
    }

    func testTheAccessLogNeverShowsALinksToken() {
        XCTAssertEqual(ClubAPI.loggedPath("/s/u7Ipj6MZLiBuVEv1aEL3x8rs/a.txt"), "/s/…")
        XCTAssertEqual(ClubAPI.loggedPath("/2/files/download"), "/2/files/download")
    }
}
