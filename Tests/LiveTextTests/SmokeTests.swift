import XCTest
@testable import LiveText

final class SmokeTests: XCTestCase {
    func testInsert() {
        var doc = LiveDocument(clientID: 1)
        doc.insert("hello", at: 0)
        XCTAssertEqual(doc.text, "hello")
    }
}
