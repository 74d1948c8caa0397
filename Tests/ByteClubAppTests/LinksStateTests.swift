import XCTest
@testable import ByteClubApp

/// "Back"'s history: a few steps, the oldest dropped past the limit, the same note twice in a
/// row (in any case) kept once.
final class LinksStateTests: XCTestCase {
    func testHistoryKeepsTheLastStepsOnce() {
        var links = LinksState()
        links.push("/byteclub/A.md")
        links.push("/BYTECLUB/a.md")
        links.push("/byteclub/B.md")
        links.push("/byteclub/A.md")
        XCTAssertEqual(links.history, ["/byteclub/A.md", "/byteclub/B.md", "/byteclub/A.md"])
        for i in 0..<(LinksState.historyLimit + 5) { links.push("/byteclub/N\(i).md") }
        XCTAssertEqual(links.history.count, LinksState.historyLimit)
        XCTAssertEqual(links.history.first, "/byteclub/N5.md")
        XCTAssertEqual(links.history.last, "/byteclub/N\(LinksState.historyLimit + 4).md")
    }
}
