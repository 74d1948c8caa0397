import Foundation
import XCTest

/// `byteclub serve --history-days 0` keeps every revision: there is nothing to prune, and the
/// server must still run (a service that returns ends the whole service group, and the pruner
/// once returned at once, so such a server stopped as it started).
final class KeepEveryRevisionTests: XCTestCase {
    func testAServerThatKeepsEveryRevisionServesAndKeepsThem() async throws {
        let club = try await ServerFixture { $0.historyDays = 0 }
        let uploaded = try await club.upload("/byteclub/a.md", Data("one\n".utf8))
        XCTAssertEqual(uploaded.status, 200, uploaded.text)
        let again = try await club.upload("/byteclub/a.md", Data("two\n".utf8), mode: "overwrite")
        XCTAssertEqual(again.status, 200, again.text)
        let revisions = try await club.rpc("2/files/list_revisions", ["path": "/byteclub/a.md"])
        XCTAssertEqual(revisions.status, 200, revisions.text)
        XCTAssertEqual((revisions.json["entries"] as? [Any])?.count, 2, revisions.text)
        await club.tearDown()
    }
}
