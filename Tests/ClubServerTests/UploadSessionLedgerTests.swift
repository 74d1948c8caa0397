@testable import ClubServer
import Foundation
import XCTest

/// The session ledger's rules, without a disk: leases, a member's bound, and what an expiry
/// sweep removes (``UploadSessionLedger``, ``SessionSweep``).
final class UploadSessionLedgerTests: XCTestCase {
    private let quota = UploadSessionLedger.Quota(maxSessions: 2, maxBytes: 100)

    func testASequentialSessionTakesOneAppendAtATime() {
        var ledger = UploadSessionLedger()
        XCTAssertTrue(ledger.lease("/s/a"))
        XCTAssertFalse(ledger.lease("/s/a"), "a second append to the same session waits")
        XCTAssertTrue(ledger.lease("/s/b"), "another session is not held up")
        ledger.release("/s/a")
        XCTAssertTrue(ledger.lease("/s/a"))
    }

    func testConcurrentBlocksGoTogetherButNotTwiceAndNotDuringAFinish() {
        var ledger = UploadSessionLedger()
        XCTAssertTrue(ledger.leaseBlock("/s/c", offset: 0))
        XCTAssertTrue(ledger.leaseBlock("/s/c", offset: 4_194_304), "different blocks are written at once")
        XCTAssertFalse(ledger.leaseBlock("/s/c", offset: 0), "the same block sent twice at once is refused")
        XCTAssertFalse(ledger.leaseSession("/s/c"), "a finish waits for every append")
        XCTAssertTrue(ledger.isLeased("/s/c"))
        XCTAssertFalse(ledger.isLeased("/s/cd"), "a session whose name only starts alike is free")
        ledger.release("/s/c@0")
        ledger.release("/s/c@4194304")
        XCTAssertFalse(ledger.isLeased("/s/c"))
        XCTAssertTrue(ledger.leaseSession("/s/c"))
        XCTAssertFalse(ledger.leaseBlock("/s/c", offset: 8_388_608), "no block lands while the session finishes")
    }

    func testAMemberOpensNoMoreSessionsThanTheBound() {
        let ledger = UploadSessionLedger()
        XCTAssertNoThrow(try ledger.admit(open: 1, quota: quota))
        XCTAssertThrowsError(try ledger.admit(open: 2, quota: quota)) { error in
            XCTAssertEqual(error as? UploadSessionLedger.Refusal, .tooManySessions(open: 2))
        }
    }

    func testAClaimCountsTheMembersOtherSessionsAndTheirClaimsInFlight() throws {
        var ledger = UploadSessionLedger()
        // /s/a holds 30 on disk, /s/b 10: this append may bring /s/c to at most 60.
        let room = try ledger.claimGrowth(of: "/s/c", to: 20, current: 0, owned: ["/s/a": 30, "/s/b": 10, "/s/c": 0], quota: quota)
        XCTAssertEqual(room, 60)
        XCTAssertEqual(ledger.claims, ["/s/c": 20])
        // /s/a's append claims 70, which with /s/c's claim in flight (20) and /s/b (10) passes 100.
        XCTAssertThrowsError(try ledger.claimGrowth(of: "/s/a", to: 71, current: 30, owned: ["/s/a": 30, "/s/b": 10, "/s/c": 0], quota: quota)) {
            XCTAssertEqual($0 as? UploadSessionLedger.Refusal, .tooManyBytes(wanted: 101))
        }
        XCTAssertNil(ledger.claims["/s/a"], "a refused claim holds nothing")
        XCTAssertEqual(try ledger.claimGrowth(of: "/s/a", to: 70, current: 30, owned: ["/s/a": 30, "/s/b": 10, "/s/c": 0], quota: quota), 70)
        ledger.releaseGrowth(of: "/s/c")
        XCTAssertEqual(ledger.claims, ["/s/a": 70], "a finished append's claim no longer counts")
    }

    func testASessionLargerOnDiskThanItsClaimCountsWhatItHolds() throws {
        var ledger = UploadSessionLedger()
        XCTAssertThrowsError(try ledger.claimGrowth(of: "/s/a", to: 10, current: 101, owned: ["/s/a": 101], quota: quota)) {
            XCTAssertEqual($0 as? UploadSessionLedger.Refusal, .tooManyBytes(wanted: 101))
        }
        _ = try ledger.claimGrowth(of: "/s/a", to: 50, current: 0, owned: ["/s/a": 0], quota: quota)
        _ = try ledger.claimGrowth(of: "/s/a", to: 40, current: 0, owned: ["/s/a": 0], quota: quota)
        XCTAssertEqual(ledger.claims["/s/a"], 50, "a smaller claim beside a larger one keeps the larger")
    }

    func testASweepRemovesOldUnleasedSessionsAndTheirMarkers() {
        let cutoff = 1_000.0
        let files: [String: Double] = [
            "old": 10, "old.owner": 999_999, "old.closed": 999_999, // its markers go with it, however new
            "new": 2_000, "new.owner": 10, // a marker of a live session stays, however old
            "leased": 10, "leased.owner": 10, "leased.concurrent": 10,
            "unreadable": .infinity,
            "lone.owner": 10, "fresh-lone.closed": 2_000, // a marker alone goes once it is old itself
        ]
        let removed = SessionSweep.expired(files, cutoff: cutoff) { $0 == "leased" }
        XCTAssertEqual(removed, ["old"])
        XCTAssertEqual(SessionSweep.markers(files, removed: Set(removed), cutoff: cutoff), ["lone.owner", "old.closed", "old.owner"])
        XCTAssertEqual(SessionSweep.session(ofMarker: "abc.concurrent"), "abc")
        XCTAssertNil(SessionSweep.session(ofMarker: "abc"))
    }

    func testTheSweepRunsOftenEnoughForItsExpiry() {
        XCTAssertEqual(SessionSweep.interval(for: .seconds(48 * 3600)), .seconds(3600))
        XCTAssertEqual(SessionSweep.interval(for: .seconds(4)), .seconds(1))
        XCTAssertEqual(SessionSweep.interval(for: .seconds(1)), .seconds(1), "at least a second")
        XCTAssertEqual(SessionSweep.cutoff(expiry: .milliseconds(1500), now: Date(timeIntervalSince1970: 10)), 8.5)
    }
}
