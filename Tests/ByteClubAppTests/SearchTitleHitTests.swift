import Foundation
import Remote
import XCTest
@testable import ByteClubApp

/// A note found by its title alone shows its title on the results screen with the match
/// highlighted, as a line of text would be.
final class SearchTitleHitTests: XCTestCase {
    func testATitleOnlyHitHighlightsTheTitle() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("search-title-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let index = try AppConfiguration.searchIndex(in: folder)()
        let entry = RemoteEntry(kind: .file, name: "Boat hire in Annecy.txt", path: "/byteclub/Boat hire in Annecy.txt", rev: "r1")
        try index.upsert(entry, text: "Ask Paul on Saturday\n")

        let hits = try index.search("annecy", limit: 10)
        XCTAssertEqual(hits.count, 1)
        XCTAssertEqual(hits.first?.line, "Boat hire in Annecy")
        XCTAssertNil(hits.first?.lineNumber)
        XCTAssertEqual(hits.first?.ranges, [13..<19])
        // A phrase across two title words is one highlight.
        XCTAssertEqual(try index.search("\"boat hire\"", limit: 10).first?.ranges, [0..<9])
    }
}
