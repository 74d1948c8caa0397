import DropboxWire
import Foundation
import XCTest

/// Timestamps by arithmetic, checked against Foundation's ISO 8601 formatter.
final class TimestampTests: XCTestCase {
    func testParseAndFormatAgreeWithFoundation() {
        let formatter = ISO8601DateFormatter()
        let samples = ["1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "2000-02-29T12:34:56Z", "2026-11-21T20:56:10Z",
                       "2100-03-01T00:00:00Z", "1999-12-31T23:59:59Z", "2024-02-29T23:59:59Z", "2400-02-29T06:07:08Z"]
        for text in samples {
            XCTAssertEqual(DropboxTimestamp.parse(text), formatter.date(from: text), text)
            if let date = formatter.date(from: text) { XCTAssertEqual(DropboxTimestamp.format(date), text) }
        }
        // Every day of four years and more, at a time of day that changes too, both ways.
        let start = formatter.date(from: "1968-01-01T00:00:00Z")!
        for day in stride(from: 0, to: 60 * 366, by: 7) {
            let date = start.addingTimeInterval(TimeInterval(day * 86_400 + day * 37 % 86_400))
            let text = formatter.string(from: date)
            XCTAssertEqual(DropboxTimestamp.format(date), text)
            XCTAssertEqual(DropboxTimestamp.parse(text), date, text)
        }
    }

    func testFractionsAreDroppedBothWays() {
        XCTAssertEqual(DropboxTimestamp.format(Date(timeIntervalSince1970: 1.999)), "1970-01-01T00:00:01Z")
        XCTAssertEqual(DropboxTimestamp.format(Date(timeIntervalSince1970: -0.5)), "1969-12-31T23:59:59Z")
        // Dates no clock makes (a file's mtime can be set to anything): written, never a trap.
        for interval in [1e300, -1e300, Double.nan, Double.infinity, 9.3e18] {
            XCTAssertFalse(DropboxTimestamp.format(Date(timeIntervalSince1970: interval)).isEmpty, "\(interval)")
        }
        XCTAssertEqual(DropboxTimestamp.parse("2026-11-21T20:56:10.250Z"), DropboxTimestamp.parse("2026-11-21T20:56:10Z"))
    }

    func testBadInputIsRejected() {
        for bad in ["", "2026-11-21", "2026-13-01T00:00:00Z", "not a date", "2026-11-21T25:00:00Z", "2026-02-30T00:00:00Z",
                    "2025-02-29T00:00:00Z", "2026-11-21T20:56:10", "2026-11-21 20:56:10Z", "2026-11-21T20:56:10+01:00",
                    "2026-11-21T20:60:10Z", "2026-00-10T00:00:00Z", "2026-11-00T00:00:00Z", "2026-11-21T20:56:10.Z",
                    "2026-11-21T20:56:1xZ", "+2026-11-21T20:56:10Z", "2026-11-21T20:56:10ZZ", "２０２６-11-21T20:56:10Z"] {
            XCTAssertNil(DropboxTimestamp.parse(bad), bad)
        }
    }

    func testWireDateFieldsRejectBadText() throws {
        XCTAssertThrowsError(try JSONDecoder().decode(CommitInfo.self, from: Data(#"{"path":"/a","client_modified":"soon"}"#.utf8)))
        let commit = try JSONDecoder().decode(CommitInfo.self, from: Data(#"{"path":"/a","client_modified":"2020-01-02T03:04:05Z"}"#.utf8))
        XCTAssertEqual(commit.clientModified.map(DropboxTimestamp.format), "2020-01-02T03:04:05Z")
    }
}
