import XCTest
@testable import SearchIndex

final class SearchQueryTests: XCTestCase {
    func testHostileTextIsQuoted() throws {
        let query = try SearchQuery("NEAR(\"a\" b) -")
        XCTAssertFalse(query.terms.isEmpty)
    }
}
