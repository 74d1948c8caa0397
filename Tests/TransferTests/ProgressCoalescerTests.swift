@testable import Transfer
import XCTest

final class ProgressCoalescerTests: XCTestCase {
    /// 50 Hz, the session's default.
    private let interval = 0.02

    func testTheFirstReportComesOneIntervalIn() {
        var clock = FakeClock()
        var policy = ProgressCoalescer(interval: interval, now: clock.now)
        clock.advance(milliseconds: 5)
        XCTAssertEqual(policy.progressed(now: clock.now), .schedule(at: clock.after(milliseconds: 15)))
        clock.advance(milliseconds: 5)
        XCTAssertEqual(policy.progressed(now: clock.now), .wait, "one timer at a time")
        clock.advance(milliseconds: 10)
        XCTAssertEqual(policy.progressed(now: clock.now), .deliver)
    }

    func testReportsCloserThanTheIntervalAreDropped() {
        var clock = FakeClock()
        var policy = ProgressCoalescer(interval: interval, now: clock.now)
        var deliveries: [UInt64] = []
        var timer: UInt64?
        func record(_ decision: ProgressCoalescer.Decision) {
            switch decision {
            case .deliver: deliveries.append(clock.now)
            case .schedule(let due): XCTAssertNil(timer); timer = due
            case .wait: break
            }
        }
        // curl calls back every 0.1 ms for two seconds; the queue runs a due timer first.
        for _ in 0..<20_000 {
            clock.advance(milliseconds: 0.1)
            if let due = timer, due <= clock.now {
                timer = nil
                record(policy.timerFired(now: clock.now))
            }
            record(policy.progressed(now: clock.now))
        }
        XCTAssertEqual(deliveries.count, 100, "2 s at 50 Hz")
        for (earlier, later) in zip(deliveries, deliveries.dropFirst()) {
            XCTAssertGreaterThanOrEqual(later - earlier, 20_000_000)
        }
    }

    func testTheLatestValueGoesOutWhenABurstStops() {
        var clock = FakeClock()
        var policy = ProgressCoalescer(interval: interval, now: clock.now)
        clock.advance(milliseconds: 21)
        XCTAssertEqual(policy.progressed(now: clock.now), .deliver)
        clock.advance(milliseconds: 4)
        let due = clock.after(milliseconds: 16)
        XCTAssertEqual(policy.progressed(now: clock.now), .schedule(at: due))
        // Nothing more arrives; the timer sends the value held back.
        clock.advance(milliseconds: 16)
        XCTAssertEqual(clock.now, due)
        XCTAssertEqual(policy.timerFired(now: clock.now), .deliver)
    }

    func testATimerThatFindsTheValueSentOnTimeWaitsAgain() {
        var clock = FakeClock()
        var policy = ProgressCoalescer(interval: interval, now: clock.now)
        clock.advance(milliseconds: 5)
        XCTAssertEqual(policy.progressed(now: clock.now), .schedule(at: clock.after(milliseconds: 15)))
        clock.advance(milliseconds: 15)
        XCTAssertEqual(policy.progressed(now: clock.now), .deliver, "a busy queue got there before the timer")
        clock.advance(milliseconds: 1)
        XCTAssertEqual(policy.timerFired(now: clock.now), .schedule(at: clock.after(milliseconds: 19)))
    }

    func testAShortTransferReportsOnlyItsFinalValue() {
        var clock = FakeClock()
        var policy = ProgressCoalescer(interval: interval, now: clock.now)
        var decisions: [ProgressCoalescer.Decision] = []
        for _ in 0..<5 {
            clock.advance(milliseconds: 1)
            decisions.append(policy.progressed(now: clock.now))
        }
        XCTAssertFalse(decisions.contains(.deliver))
        clock.advance(milliseconds: 1)
        XCTAssertEqual(policy.finish(now: clock.now), .deliver)
        // The timer set on the way comes too late to say anything.
        clock.advance(milliseconds: 20)
        XCTAssertEqual(policy.timerFired(now: clock.now), .wait)
        XCTAssertEqual(policy.progressed(now: clock.now), .wait)
    }

    func testTheFinalValueGoesOutRightAfterAReport() {
        var clock = FakeClock()
        var policy = ProgressCoalescer(interval: interval, now: clock.now)
        clock.advance(milliseconds: 20)
        XCTAssertEqual(policy.progressed(now: clock.now), .deliver)
        XCTAssertEqual(policy.finish(now: clock.now), .deliver, "the interval never holds back the last value")
        XCTAssertEqual(policy.finish(now: clock.now), .wait, "and it goes once")
    }

    func testAZeroIntervalReportsEveryChange() {
        var clock = FakeClock()
        var policy = ProgressCoalescer(interval: 0, now: clock.now)
        for _ in 0..<10 {
            XCTAssertEqual(policy.progressed(now: clock.now), .deliver)
            clock.advance(nanoseconds: 1)
        }
        XCTAssertEqual(ProgressCoalescer(interval: -1, now: clock.now).interval, 0)
    }
}
