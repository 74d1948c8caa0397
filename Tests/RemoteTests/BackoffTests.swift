import Remote
import XCTest

/// The one backoff: doubling from the first wait, capped, reset by a success.
final class BackoffTests: XCTestCase {
    func testDoublesFromTheFirstWaitUpToTheLongest() {
        var backoff = Backoff(first: 0.5, longest: 30)
        XCTAssertEqual(backoff.wait, 0)
        XCTAssertEqual((1...8).map { _ in backoff.failed() }, [0.5, 1, 2, 4, 8, 16, 30, 30])
        XCTAssertEqual(backoff.failures, 8)
    }

    func testASuccessStartsOver() {
        var backoff = Backoff(first: 1, longest: 60)
        _ = backoff.failed()
        _ = backoff.failed()
        backoff.succeeded()
        XCTAssertEqual(backoff.failures, 0)
        XCTAssertEqual(backoff.failed(), 1)
    }

    func testAnOutageOfAnyLengthStaysCapped() {
        var backoff = Backoff(first: 0.5, longest: 30)
        for _ in 0..<10_000 { _ = backoff.failed() }
        XCTAssertEqual(backoff.wait, 30)
    }
}
