@testable import Transfer
import XCTest

final class IdleWatchdogTests: XCTestCase {
    func testFiresOnlyAfterTheIdlePeriod() {
        var clock = FakeClock()
        var watchdog = IdleWatchdog(limit: 1, now: clock.now)
        XCTAssertEqual(watchdog.check(moved: 0, throttled: false, now: clock.now, isRunning: true), .fine)
        clock.advance(milliseconds: 500)
        XCTAssertEqual(watchdog.check(moved: 0, throttled: false, now: clock.now, isRunning: true), .fine)
        clock.advance(milliseconds: 500)
        XCTAssertEqual(watchdog.check(moved: 0, throttled: false, now: clock.now, isRunning: true), .fine, "exactly the limit is not past it")
        clock.advance(milliseconds: 1)
        XCTAssertEqual(watchdog.check(moved: 0, throttled: false, now: clock.now, isRunning: true), .expired)
    }

    func testBytesEitherWayResetIt() {
        var clock = FakeClock()
        var watchdog = IdleWatchdog(limit: 1, now: clock.now)
        var received: Int64 = 0
        var sent: Int64 = 0
        func check() -> IdleWatchdog.Decision {
            watchdog.check(moved: received + sent, throttled: false, now: clock.now, isRunning: true)
        }
        XCTAssertEqual(check(), .fine)
        clock.advance(milliseconds: 900)
        sent += 1
        XCTAssertEqual(check(), .fine)
        clock.advance(milliseconds: 900)
        received += 1
        XCTAssertEqual(check(), .fine, "1.8 s since the start, 0.9 s since a byte went up")
        clock.advance(milliseconds: 900)
        XCTAssertEqual(check(), .fine)
        clock.advance(milliseconds: 200)
        XCTAssertEqual(check(), .expired, "1.1 s since a byte came down")
    }

    func testTimeHeldBackByTheThrottleIsNotIdle() {
        var clock = FakeClock()
        var watchdog = IdleWatchdog(limit: 1, now: clock.now)
        XCTAssertEqual(watchdog.check(moved: 100, throttled: false, now: clock.now, isRunning: true), .fine)
        for _ in 0..<30 {
            clock.advance(milliseconds: 100)
            XCTAssertEqual(watchdog.check(moved: 100, throttled: true, now: clock.now, isRunning: true), .fine)
        }
        // The throttle let go 3 s in; the idle period counts from there.
        clock.advance(milliseconds: 900)
        XCTAssertEqual(watchdog.check(moved: 100, throttled: false, now: clock.now, isRunning: true), .fine)
        clock.advance(milliseconds: 200)
        XCTAssertEqual(watchdog.check(moved: 100, throttled: false, now: clock.now, isRunning: true), .expired)
    }

    func testTimeSuspendedIsNotIdle() {
        var clock = FakeClock()
        var watchdog = IdleWatchdog(limit: 1, now: clock.now)
        XCTAssertEqual(watchdog.check(moved: 7, throttled: false, now: clock.now, isRunning: true), .fine)
        // Suspended by its caller for ten seconds.
        for _ in 0..<10 {
            clock.advance(milliseconds: 1000)
            XCTAssertEqual(watchdog.check(moved: 7, throttled: false, now: clock.now, isRunning: false), .fine)
        }
        // Resumed: the idle period starts again from the last look while suspended.
        clock.advance(milliseconds: 600)
        XCTAssertEqual(watchdog.check(moved: 7, throttled: false, now: clock.now, isRunning: true), .fine)
        clock.advance(milliseconds: 600)
        XCTAssertEqual(watchdog.check(moved: 7, throttled: false, now: clock.now, isRunning: true), .expired)
    }

    func testTheTaskStateIsAskedOnlyOnceTheLimitHasPassed() {
        var clock = FakeClock()
        var watchdog = IdleWatchdog(limit: 1, now: clock.now)
        var asked = 0
        func running() -> Bool {
            asked += 1
            return true
        }
        for moved in 0..<100 {
            clock.advance(milliseconds: 10)
            XCTAssertEqual(watchdog.check(moved: Int64(moved), throttled: false, now: clock.now, isRunning: running()), .fine)
        }
        clock.advance(milliseconds: 500)
        XCTAssertEqual(watchdog.check(moved: 99, throttled: false, now: clock.now, isRunning: running()), .fine)
        XCTAssertEqual(asked, 0, "the lock behind it stays off the per-callback path")
        clock.advance(milliseconds: 501)
        XCTAssertEqual(watchdog.check(moved: 99, throttled: false, now: clock.now, isRunning: running()), .expired)
        XCTAssertEqual(asked, 1)
    }

    func testNoLimitNeverFires() {
        var clock = FakeClock()
        var watchdog = IdleWatchdog(limit: 0, now: clock.now)
        XCTAssertEqual(watchdog.check(moved: 0, throttled: false, now: clock.now, isRunning: true), .fine)
        clock.advance(milliseconds: 3_600_000)
        XCTAssertEqual(watchdog.check(moved: 0, throttled: false, now: clock.now, isRunning: true), .fine)
    }
}
