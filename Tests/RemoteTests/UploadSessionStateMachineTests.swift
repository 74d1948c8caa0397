@testable import Remote
import Foundation
import Transfer
import XCTest

/// The upload-session loop without a server: events in, actions out.
final class UploadSessionStateMachineTests: XCTestCase {
    typealias Machine = UploadSessionStateMachine

    private func policy(attempts: Int = 8, maxRetryAfter: TimeInterval = 60) -> RetryPolicy {
        var retry = RetryPolicy()
        retry.maxAttempts = attempts
        retry.maxRetryAfter = maxRetryAfter
        return retry
    }

    private let committed = RemoteEntry(kind: .file, name: "big.bin", path: "/byteclub/big.bin", rev: "0123456789", size: 25)

    func testHappyPathStartsAppendsAndFinishes() {
        var machine = Machine(size: 25, chunkSize: 10, retry: policy())
        XCTAssertEqual(machine.begin(), .send(.start(length: 10), reportProgress: nil))
        XCTAssertEqual(machine.started(sessionID: "s1"), .send(.append(sessionID: "s1", offset: 10, length: 10), reportProgress: 10))
        XCTAssertEqual(machine.appended(), .send(.finish(sessionID: "s1", offset: 20, length: 5), reportProgress: 20))
        XCTAssertTrue(machine.finishTried)
        XCTAssertEqual(machine.finished(committed), .succeed(committed))
        XCTAssertEqual(machine.state, .done)
    }

    func testAFileOfExactlyOneChunkFinishesEmpty() {
        var machine = Machine(size: 10, chunkSize: 10, retry: policy())
        XCTAssertEqual(machine.begin(), .send(.start(length: 10), reportProgress: nil))
        XCTAssertFalse(machine.finishTried)
        XCTAssertEqual(machine.started(sessionID: "s"), .send(.finish(sessionID: "s", offset: 10, length: 0), reportProgress: 10))
    }

    func testZeroLengthFile() {
        var machine = Machine(size: 0, chunkSize: 10, retry: policy())
        XCTAssertEqual(machine.begin(), .send(.start(length: 0), reportProgress: nil))
        XCTAssertEqual(machine.started(sessionID: "s"), .send(.finish(sessionID: "s", offset: 0, length: 0), reportProgress: 0))
        XCTAssertEqual(machine.finished(committed), .succeed(committed))
    }

    func testWrongOffsetContinuesFromTheServersOffset() {
        var machine = Machine(size: 40, chunkSize: 10, retry: policy())
        _ = machine.begin()
        _ = machine.started(sessionID: "s")
        // The first append landed but its answer was lost; the retry learns the truth.
        XCTAssertEqual(machine.failed(.error(.network("connection reset"))), .wait(.backoff(attempt: 0)))
        XCTAssertEqual(machine.waited(), .send(.append(sessionID: "s", offset: 10, length: 10), reportProgress: nil))
        XCTAssertEqual(machine.failed(.incorrectOffset(correct: 20)), .send(.append(sessionID: "s", offset: 20, length: 10), reportProgress: nil))
        XCTAssertEqual(machine.failures, 0, "a corrected offset is progress, not a failure")
        XCTAssertEqual(machine.appended(), .send(.finish(sessionID: "s", offset: 30, length: 10), reportProgress: 30))
        // The server may also hold less than we thought.
        XCTAssertEqual(machine.failed(.incorrectOffset(correct: 25)), .send(.append(sessionID: "s", offset: 25, length: 10), reportProgress: nil))
        XCTAssertEqual(machine.appended(), .send(.finish(sessionID: "s", offset: 35, length: 5), reportProgress: 35))
    }

    /// Issue 69: a refused connection is tried once more and then said, as the store's other
    /// requests say it (RetryPolicy.refusedAttempts); a big `put` with nothing listening took 19 s.
    /// Once a request of the same policy gave up on a refusal, a session gives up at once.
    func testARefusedConnectionEndsTheSessionAsTheStoresOtherRequestsDo() {
        let refused = RemoteError.network("can't connect to 127.0.0.1:1 (connection refused)")
        let retry = policy()
        var machine = Machine(size: 30, chunkSize: 10, retry: retry)
        _ = machine.begin()
        XCTAssertEqual(machine.failed(.error(refused)), .wait(.backoff(attempt: 0)))
        XCTAssertEqual(machine.waited(), .send(.start(length: 10), reportProgress: nil))
        XCTAssertEqual(machine.failed(.error(refused)), .fail(refused))

        var next = Machine(size: 30, chunkSize: 10, retry: retry)
        _ = next.begin()
        XCTAssertEqual(next.failed(.error(refused)), .fail(refused), "the server is known to refuse until it answers")
        // Any other failure is still waited out.
        var other = Machine(size: 30, chunkSize: 10, retry: retry)
        _ = other.begin()
        XCTAssertEqual(other.failed(.error(.network("connection reset"))), .wait(.backoff(attempt: 0)))
    }

    func testRetriesRunOutAfterMaxAttemptsInARow() {
        var machine = Machine(size: 30, chunkSize: 10, retry: policy(attempts: 3))
        _ = machine.begin()
        _ = machine.started(sessionID: "s")
        let error = RemoteError.server(status: 503, detail: "busy")
        XCTAssertEqual(machine.failed(.error(error)), .wait(.backoff(attempt: 0)))
        _ = machine.waited()
        XCTAssertEqual(machine.failed(.error(error)), .wait(.backoff(attempt: 1)))
        _ = machine.waited()
        XCTAssertEqual(machine.failed(.error(error)), .fail(error))
        XCTAssertEqual(machine.state, .done)
    }

    func testSuccessResetsTheFailureCount() {
        var machine = Machine(size: 40, chunkSize: 10, retry: policy(attempts: 2))
        _ = machine.begin()
        XCTAssertEqual(machine.failed(.error(.network("reset"))), .wait(.backoff(attempt: 0)))
        XCTAssertEqual(machine.waited(), .send(.start(length: 10), reportProgress: nil))
        _ = machine.started(sessionID: "s")
        XCTAssertEqual(machine.failures, 0)
        XCTAssertEqual(machine.failed(.error(.network("reset"))), .wait(.backoff(attempt: 0)))
    }

    func testAStartWithoutSessionIDStartsAgain() {
        var machine = Machine(size: 30, chunkSize: 10, retry: policy())
        _ = machine.begin()
        XCTAssertEqual(machine.started(sessionID: nil), .wait(.backoff(attempt: 0)))
        XCTAssertNil(machine.sessionID)
        XCTAssertEqual(machine.waited(), .send(.start(length: 10), reportProgress: nil))
    }

    func testRateLimitsWaitForRetryAfterUnlessTooLong() {
        var machine = Machine(size: 30, chunkSize: 10, retry: policy(maxRetryAfter: 5))
        _ = machine.begin()
        XCTAssertEqual(machine.failed(.error(.rateLimited(retryAfter: 2))), .wait(.retryAfter(2)))
        _ = machine.waited()
        XCTAssertEqual(machine.failed(.error(.rateLimited(retryAfter: 30))), .fail(.rateLimited(retryAfter: 30)))
    }

    func testPermanentErrorsFailAtOnce() {
        var machine = Machine(size: 30, chunkSize: 10, retry: policy())
        _ = machine.begin()
        XCTAssertEqual(machine.failed(.error(.local("Cannot read /x"))), .fail(.local("Cannot read /x")))

        var refused = Machine(size: 30, chunkSize: 10, retry: policy())
        _ = refused.begin()
        _ = refused.started(sessionID: "s")
        XCTAssertEqual(refused.failed(.refused(.insufficientSpace, summary: "path/insufficient_space/")), .fail(.insufficientSpace))
    }

    func testCancelEndsAtAnyPoint() {
        var sending = Machine(size: 30, chunkSize: 10, retry: policy())
        _ = sending.begin()
        XCTAssertEqual(sending.cancelled(), .fail(.cancelled))
        XCTAssertEqual(sending.state, .done)

        var waiting = Machine(size: 30, chunkSize: 10, retry: policy())
        _ = waiting.begin()
        _ = waiting.failed(.error(.network("reset")))
        XCTAssertEqual(waiting.cancelled(), .fail(.cancelled))

        var transfer = Machine(size: 30, chunkSize: 10, retry: policy())
        _ = transfer.begin()
        XCTAssertEqual(transfer.failed(.error(.cancelled)), .fail(.cancelled), "a transfer cancelled under us is not retried")
    }

    func testAnExpiredTokenIsRefreshedAndTheRequestRepeated() {
        var machine = Machine(size: 30, chunkSize: 10, retry: policy())
        _ = machine.begin()
        _ = machine.started(sessionID: "s")
        XCTAssertEqual(machine.failed(.error(.server(status: 401, detail: "expired_access_token"))), .refreshToken)
        XCTAssertEqual(machine.tokenRefreshed(true, credential: .dropboxLogin), .send(.append(sessionID: "s", offset: 10, length: 10), reportProgress: nil))
        XCTAssertEqual(machine.failures, 0)
        XCTAssertEqual(machine.failed(.error(.server(status: 401, detail: "expired_access_token"))), .refreshToken)
        XCTAssertEqual(machine.tokenRefreshed(false, credential: .dropboxLogin), .fail(.unauthorized(.dropboxLogin)))
    }

    func testFinishWhoseAnswerWasLostIsVerified() {
        var machine = Machine(size: 15, chunkSize: 10, retry: policy())
        _ = machine.begin()
        _ = machine.started(sessionID: "s")
        XCTAssertEqual(machine.finished(nil), .verifyCommitted, "a cut-off answer to finish: look at what landed")
    }

    func testFailureAfterFinishWasTried() {
        var machine = Machine(size: 15, chunkSize: 10, retry: policy())
        _ = machine.begin()
        XCTAssertEqual(machine.started(sessionID: "s"), .send(.finish(sessionID: "s", offset: 10, length: 5), reportProgress: 10))
        // The finish's answer is lost: it is sent again, as it is.
        XCTAssertEqual(machine.failed(.error(.network("reset"))), .wait(.backoff(attempt: 0)))
        XCTAssertEqual(machine.waited(), .send(.finish(sessionID: "s", offset: 10, length: 5), reportProgress: nil))
        // The first one had committed: the session is gone, so the owner checks the path.
        XCTAssertEqual(machine.failed(.refused(.notFound("/byteclub/big.bin"), summary: "lookup_failed/not_found/..")), .verifyCommitted)
        XCTAssertEqual(machine.state, .done)
    }

    func testSessionNotFoundBeforeAnyFinishIsAnError() {
        var machine = Machine(size: 30, chunkSize: 10, retry: policy())
        _ = machine.begin()
        _ = machine.started(sessionID: "s")
        XCTAssertFalse(machine.finishTried)
        XCTAssertEqual(machine.failed(.refused(.notFound("/p"), summary: "lookup_failed/not_found/..")), .fail(.notFound("/p")))
    }

    func testAConflictOnFinishIsAConflict() {
        var machine = Machine(size: 15, chunkSize: 10, retry: policy())
        _ = machine.begin()
        _ = machine.started(sessionID: "s")
        XCTAssertEqual(machine.failed(.refused(.conflict("/p"), summary: "path/conflict/file/..")), .fail(.conflict("/p")))
    }

    func testRepliesAreClassifiedForTheMachine() {
        let offset = Data(#"{"error_summary":"incorrect_offset/..","error":{".tag":"incorrect_offset","correct_offset":42}}"#.utf8)
        XCTAssertEqual(DropboxStore.sessionFailure(.httpStatus(409, body: offset), response: nil, path: "/p", credential: .memberToken), .incorrectOffset(correct: 42))
        let nested = Data(#"{"error_summary":"lookup_failed/incorrect_offset/..","error":{".tag":"lookup_failed","lookup_failed":{".tag":"incorrect_offset","correct_offset":7}}}"#.utf8)
        XCTAssertEqual(DropboxStore.sessionFailure(.httpStatus(409, body: nested), response: nil, path: "/p", credential: .memberToken), .incorrectOffset(correct: 7))
        let gone = Data(#"{"error_summary":"lookup_failed/not_found/..","error":{".tag":"lookup_failed","lookup_failed":{".tag":"not_found"}}}"#.utf8)
        XCTAssertEqual(DropboxStore.sessionFailure(.httpStatus(409, body: gone), response: nil, path: "/p", credential: .memberToken),
                       .refused(.notFound("/p"), summary: "lookup_failed/not_found/.."))
        XCTAssertEqual(DropboxStore.sessionFailure(.httpStatus(503, body: Data()), response: nil, path: "/p", credential: .memberToken), .error(.server(status: 503, detail: "HTTP 503")))
        XCTAssertEqual(DropboxStore.sessionFailure(.cancelled, response: nil, path: "/p", credential: .memberToken), .error(.cancelled))
    }
}
