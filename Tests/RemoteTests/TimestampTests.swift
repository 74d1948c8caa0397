@testable import Remote
import Foundation
import XCTest

/// Dropbox timestamps are parsed by arithmetic; it must agree with Foundation's ISO 8601 parser.
final class TimestampTests: XCTestCase {
    func testTimestampsMatchFoundation() {
        let formatter = ISO8601DateFormatter()
        let samples = ["1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "2000-02-29T12:34:56Z", "2026-11-21T20:56:10Z",
                       "2100-03-01T00:00:00Z", "1999-12-31T23:59:59Z", "2024-02-29T23:59:59Z", "2400-02-29T06:07:08Z"]
        for text in samples {
            XCTAssertEqual(DropboxStore.parseTimestamp(text), formatter.date(from: text), text)
        }
        // Every day of four years, at a time of day that changes too.
        let start = formatter.date(from: "2023-01-01T00:00:00Z")!
        for day in 0..<(4 * 366) {
            let date = start.addingTimeInterval(TimeInterval(day * 86_400 + day * 37 % 86_400))
            XCTAssertEqual(DropboxStore.parseTimestamp(formatter.string(from: date)), date)
        }
        for bad in ["", "2026-11-21", "2026-13-01T00:00:00Z", "not a date", "2026-11-21T25:00:00Z"] {
            XCTAssertNil(DropboxStore.parseTimestamp(bad), bad)
        }
    }
}
