@testable import Remote
import XCTest

/// The tries of one command, bounded on the clock from their first failure: the waits and the
/// tries' own time, so a busy machine's slow tries do not stretch `--timeout`.
final class RetryBudgetTests: XCTestCase {
    func testTheTriesOwnTimeCountsAgainstTheLimit() {
        let budget = RetryBudget()
        let start = ContinuousClock.now
        XCTAssertTrue(budget.take(0.2, within: 2, now: start))
        // Slow tries (0.6 s each on a loaded machine) and short waits: the clock, not the waits' sum.
        XCTAssertTrue(budget.take(0.4, within: 2, now: start + .milliseconds(800)))
        XCTAssertTrue(budget.take(0.2, within: 2, now: start + .milliseconds(1_700)))
        XCTAssertFalse(budget.take(0.2, within: 2, now: start + .milliseconds(1_900)),
                       "a wait past 2 s from the first failure is refused, though the waits add up to 0.8 s")
    }

    func testAnAnswerStartsTheClockAgain() {
        let budget = RetryBudget()
        let start = ContinuousClock.now
        XCTAssertTrue(budget.take(1, within: 2, now: start))
        XCTAssertFalse(budget.take(1.5, within: 2, now: start + .seconds(1)))
        budget.answered()
        XCTAssertTrue(budget.take(1.5, within: 2, now: start + .seconds(10)), "the clock starts at the first failure after an answer")
    }

    func testNoLimitNeverRefuses() {
        let budget = RetryBudget()
        let start = ContinuousClock.now
        XCTAssertTrue(budget.take(5, within: .infinity, now: start))
        XCTAssertTrue(budget.take(60, within: .infinity, now: start + .seconds(3_600)))
    }

    func testATryThatRanLongerThanTheLimitStartsTheClockAgain() {
        let budget = RetryBudget()
        let start = ContinuousClock.now
        XCTAssertTrue(budget.take(0.2, within: 5, now: start))
        // The next try moved bytes for 30 s before it was cut: its failure is a new start.
        XCTAssertTrue(budget.take(0.4, within: 5, now: start + .seconds(30)))
        XCTAssertTrue(budget.take(0.8, within: 5, now: start + .milliseconds(31_000)))
        XCTAssertFalse(budget.take(4, within: 5, now: start + .milliseconds(32_000)), "then fast failures are bounded again")
    }

    func testAWaitLongerThanTheLimitIsRefusedAtOnce() {
        XCTAssertFalse(RetryBudget().take(2.5, within: 2))
    }
}
