@testable import Remote
import XCTest

/// A session another process began (the background agent after a `kill -9`): the first request
/// appends at the journaled offset, and the server's `correct_offset` wins over it.
final class UploadSessionResumeTests: XCTestCase {
    let mib: Int64 = 1 << 20

    func testAResumedSessionAppendsAtItsMarkAndFollowsTheServersOffset() {
        var machine = UploadSessionStateMachine(size: 10 * mib, chunkSize: 4 * mib, retry: RetryPolicy(), resuming: "s1", offset: 4 * mib)
        XCTAssertEqual(machine.begin(), .send(.append(sessionID: "s1", offset: 4 * mib, length: 4 * mib), reportProgress: nil))
        // The server had taken the next chunk too before the agent died.
        XCTAssertEqual(machine.failed(.incorrectOffset(correct: 8 * mib)),
                       .send(.finish(sessionID: "s1", offset: 8 * mib, length: 2 * mib), reportProgress: nil))
    }

    /// A session that may be handed to another process starts with no bytes, so its id is known
    /// (and journaled) before the first chunk goes.
    func testAnEmptyStartNamesTheSessionBeforeTheFirstChunk() {
        var machine = UploadSessionStateMachine(size: 10 * mib, chunkSize: 4 * mib, retry: RetryPolicy(), emptyStart: true)
        XCTAssertEqual(machine.begin(), .send(.start(length: 0), reportProgress: nil))
        XCTAssertEqual(machine.started(sessionID: "s3"), .send(.append(sessionID: "s3", offset: 0, length: 4 * mib), reportProgress: 0))
        XCTAssertEqual(machine.appended(), .send(.append(sessionID: "s3", offset: 4 * mib, length: 4 * mib), reportProgress: 4 * mib))
        XCTAssertEqual(machine.appended(), .send(.finish(sessionID: "s3", offset: 8 * mib, length: 2 * mib), reportProgress: 8 * mib))
    }

    func testAMarkPastTheEndIsClampedToTheFile() {
        var machine = UploadSessionStateMachine(size: 5 * mib, chunkSize: 4 * mib, retry: RetryPolicy(), resuming: "s2", offset: 9 * mib)
        XCTAssertEqual(machine.begin(), .send(.finish(sessionID: "s2", offset: 5 * mib, length: 0), reportProgress: nil))
    }
}
