@testable import ClubServer
import Foundation
import XCTest

/// History retention's decisions, without a disk or a clock (``HistoryRetention``): which
/// revisions go, what becomes of a tombstone, and what the pruned memory keeps.
final class HistoryRetentionTests: XCTestCase {
    private func record(_ rev: String, madeAt server: Int64) -> RevisionRecord {
        RevisionRecord(rev: rev, size: 1, hash: "h-\(rev)", server: server, client: server, path: "/byteclub/a.txt", by: "ann")
    }

    func testAVersionGoesOnceItWasReplacedBeforeTheCutoffAndTheNewestAlwaysStays() throws {
        let day: Int64 = 86_400
        let now = Date(timeIntervalSince1970: TimeInterval(100 * day))
        let cutoff = try XCTUnwrap(HistoryRetention.cutoff(days: 30, now: now))
        XCTAssertEqual(cutoff, 70 * day)
        XCTAssertNil(HistoryRetention.cutoff(days: 0, now: now), "0 days keeps everything")

        // r1 replaced at day 10, r2 at day 69 (both long ago), r3 at day 71 (inside), r4 the newest.
        let history = [record("r1", madeAt: 1 * day), record("r2", madeAt: 10 * day), record("r3", madeAt: 69 * day),
                       record("r4", madeAt: 71 * day)]
        let (kept, dropped) = HistoryRetention.split(history, cutoff: cutoff)
        XCTAssertEqual(dropped.map(\.rev), ["r1", "r2"])
        XCTAssertEqual(kept.map(\.rev), ["r3", "r4"], "r3 was the file's until day 71: kept, however old it is")

        let ancient = [record("only", madeAt: 1)]
        XCTAssertEqual(HistoryRetention.split(ancient, cutoff: cutoff).kept.map(\.rev), ["only"], "the newest is never pruned")
    }

    func testATombstoneExpiresAfterTheRetentionAndIsForgottenAYearLater() throws {
        let cutoff: Int64 = 1_000_000_000
        func tombstone(deleted: Int64, expired: Bool? = nil) -> Tombstone {
            Tombstone(id: "id:1", path: "/byteclub/a.txt", deleted: deleted, deletedNanoseconds: nil, expired: expired, by: "ann")
        }
        XCTAssertEqual(HistoryRetention.fate(of: tombstone(deleted: cutoff + 1), cutoff: cutoff), .keep)
        XCTAssertEqual(HistoryRetention.fate(of: tombstone(deleted: cutoff - 1), cutoff: cutoff), .expire)
        let year = HistoryRetention.expiredTombstoneMemory
        XCTAssertEqual(HistoryRetention.fate(of: tombstone(deleted: cutoff - 1, expired: true), cutoff: cutoff), .keep,
                       "an expired tombstone stays a year to say so")
        XCTAssertEqual(HistoryRetention.fate(of: tombstone(deleted: cutoff - year - 1, expired: true), cutoff: cutoff), .forget)
    }

    func testTheLogsTimesAreReadWithoutDecodingAndThePrunedMemoryKeepsTheNewest() {
        let log = """
            {"rev":"a","server":5,"path":"/x \\"server\\":9"}
            {"rev":"b","server": 7}
            {"rev":"c","server":-3}
            no field here
            """
        XCTAssertEqual(HistoryRetention.replacedTimes(log), [7, -3], "the first record's time replaces nothing")

        let old = (1...HistoryRetention.prunedMemory).map { "rev\($0) key" }.joined(separator: "\n") + "\n"
        let remembered = HistoryRetention.remembered(old, adding: ["new1 key", "new2 key"])
        XCTAssertEqual(remembered.count, HistoryRetention.prunedMemory)
        XCTAssertEqual(remembered.first, "rev3 key")
        XCTAssertEqual(remembered.last, "new2 key")
        XCTAssertEqual(HistoryRetention.remembered("", adding: ["a k"]), ["a k"])

        let text = "r1 old\nr2 other\nr1 newer\n"
        XCTAssertEqual(HistoryRetention.prunedHistory(ofRev: "r1", in: text), "newer", "the newest line names it")
        XCTAssertEqual(HistoryRetention.prunedHistory(ofRev: "r2", in: text), "other")
        XCTAssertNil(HistoryRetention.prunedHistory(ofRev: "r3", in: text))
    }
}
