@testable import Transfer
import XCTest

final class ReceiveThrottleTests: XCTestCase {
    func testNoLimitMeansNoThrottle() {
        XCTAssertNil(ReceiveThrottle(limit: nil))
        XCTAssertNil(ReceiveThrottle(limit: 0))
        XCTAssertNil(ReceiveThrottle(limit: -5))
    }

    func testTheFirstChunkAlwaysGoesThrough() throws {
        let clock = FakeClock()
        var throttle = try XCTUnwrap(ReceiveThrottle(limit: 1000))
        XCTAssertEqual(throttle.admit(16384, now: clock.now), .accept, "nothing to average over yet")
        guard case .pause(let nanoseconds) = throttle.admit(1, now: clock.now) else {
            return XCTFail("16 KiB at 1000 B/s must be paid for")
        }
        // (16385 bytes - 100 bytes of burst) at 1000 B/s.
        XCTAssertEqual(Double(nanoseconds) / 1e9, 16.285, accuracy: 0.001)
    }

    func testATenthOfASecondMayArriveAsABurst() throws {
        var clock = FakeClock()
        var throttle = try XCTUnwrap(ReceiveThrottle(limit: 1_000_000))
        for _ in 0..<10 {
            XCTAssertEqual(throttle.admit(10_000, now: clock.now), .accept)
        }
        XCTAssertFalse(throttle.isPausing)
        XCTAssertEqual(throttle.admit(10_000, now: clock.now), .pause(nanoseconds: 10_000_000), "10 KB over at 1 MB/s: 10 ms")
        XCTAssertTrue(throttle.isPausing)
        XCTAssertEqual(throttle.admit(10_000, now: clock.now), .stayPaused, "one pause at a time")
        clock.advance(milliseconds: 10.001)
        throttle.pauseEnded()
        XCTAssertFalse(throttle.isPausing)
        XCTAssertEqual(throttle.admit(10_000, now: clock.now), .accept, "the pause was long enough")
        XCTAssertEqual(throttle.accepted, 110_000)
    }

    func testAPauseLastsAtLeastAMillisecond() throws {
        let clock = FakeClock()
        var throttle = try XCTUnwrap(ReceiveThrottle(limit: 1_000_000))
        XCTAssertEqual(throttle.admit(100_000, now: clock.now), .accept)
        XCTAssertEqual(throttle.admit(1, now: clock.now), .pause(nanoseconds: 1_000_000), "1 byte over would be 1 µs")
    }

    /// A link far faster than the limit: curl offers 16 KiB every 10 µs. Paused for what the
    /// throttle says, then offered the same chunk again, the transfer averages the limit.
    func testPausesKeepTheAverageAtTheLimit() throws {
        let limit: Int64 = 2_000_000
        let chunk = 16 * 1024
        var clock = FakeClock()
        let start = clock.now
        var throttle = try XCTUnwrap(ReceiveThrottle(limit: limit))
        var acceptedAtOneSecond: Int64?
        var pauses = 0
        while clock.now - start < 5_000_000_000 {
            switch throttle.admit(chunk, now: clock.now) {
            case .accept:
                clock.advance(nanoseconds: 10_000)
            case .pause(let nanoseconds):
                pauses += 1
                XCTAssertGreaterThanOrEqual(nanoseconds, 1_000_000)
                clock.advance(nanoseconds: nanoseconds)
                throttle.pauseEnded()
            case .stayPaused:
                return XCTFail("curl does not call back while the transfer is paused")
            }
            if acceptedAtOneSecond == nil, clock.now - start >= 1_000_000_000 {
                acceptedAtOneSecond = throttle.accepted
            }
        }
        let seconds = Double(clock.now - start) / 1e9
        let overall = Double(throttle.accepted) / seconds
        // Over the whole run the burst allowance adds 0.1 s worth: 2 % over 5 s.
        XCTAssertEqual(overall / Double(limit), 1.02, accuracy: 0.01)
        // After the first second the rate is the limit itself.
        let steady = Double(throttle.accepted - (acceptedAtOneSecond ?? 0)) / (seconds - 1)
        XCTAssertEqual(steady / Double(limit), 1.0, accuracy: 0.01)
        XCTAssertGreaterThan(pauses, 100)
    }
}
