@testable import Remote
import Foundation
import XCTest

/// The plans the streams of one transfer share, without a network.
final class ParallelPlanTests: XCTestCase {
    let mib: Int64 = 1 << 20

    func testUploadBlocksAreWholeFourMiBUnitsButTheClosingOne() {
        let plan = ConcurrentUploadPlan(size: 100 * mib + 123, streams: 4, largestBlock: 32 * mib)
        // 100 MiB over 4 streams: about four blocks each, rounded up to 8 MiB.
        XCTAssertEqual(plan.blocks.first?.length, 8 * mib)
        XCTAssertTrue(plan.blocks.dropLast().allSatisfy { $0.length % (4 * mib) == 0 && $0.offset % (4 * mib) == 0 && !$0.closing })
        XCTAssertEqual(plan.blocks.last?.closing, true)
        XCTAssertEqual(plan.blocks.last.map { $0.offset + $0.length }, 100 * mib + 123)
        // Contiguous, no overlap.
        for (before, after) in zip(plan.blocks, plan.blocks.dropFirst()) { XCTAssertEqual(before.offset + before.length, after.offset) }
    }

    func testUploadBlocksNeverExceedOneRequest() {
        let plan = ConcurrentUploadPlan(size: 10_000 * mib, streams: 2, largestBlock: 32 * mib)
        XCTAssertEqual(plan.blocks.map(\.length).max(), 32 * mib)
        // A file that is a whole number of blocks closes with a full block.
        let exact = ConcurrentUploadPlan(size: 64 * mib, streams: 4, largestBlock: 32 * mib)
        XCTAssertEqual(exact.blocks.last, .init(offset: 60 * mib, length: 4 * mib, closing: true))
    }

    func testUploadProgressSumsTheStreamsAndRestartsARetriedBlock() {
        var plan = ConcurrentUploadPlan(size: 40 * mib, streams: 4, largestBlock: 32 * mib)
        let first = plan.take(), second = plan.take()
        XCTAssertEqual([first, second], [0, 1])
        XCTAssertEqual(plan.progressed(0, sent: 3 * mib), 3 * mib)
        XCTAssertEqual(plan.progressed(1, sent: 2 * mib), 5 * mib)
        // Block 0 cut off and sent again from its start.
        XCTAssertEqual(plan.progressed(0, sent: 0), 2 * mib)
        while plan.take() != nil {}
        XCTAssertNil(plan.take(), "every block is handed out once")
    }

    func testDownloadPrefixIsWhatAResumeMayKeep() {
        var plan = ParallelDownloadPlan(size: 20 * mib + 5, streams: 4)
        XCTAssertEqual(ParallelDownloadPlan.blockSize(streams: 1), 8 * mib)
        XCTAssertEqual(ParallelDownloadPlan.blockSize(streams: 4), 2 * mib, "8 MiB over 4 streams")
        XCTAssertEqual(ParallelDownloadPlan.blockSize(streams: 16), 1 * mib)
        XCTAssertEqual(plan.blocks.count, 11)
        XCTAssertEqual(plan.blocks.last?.upperBound, 20 * mib + 4)
        for _ in 0..<11 { _ = plan.take() }
        XCTAssertEqual(plan.finished(1), 2 * mib)
        XCTAssertEqual(plan.completePrefix, 0, "the first block is missing: nothing to resume from")
        XCTAssertEqual(plan.finished(0), 4 * mib)
        XCTAssertEqual(plan.completePrefix, 4 * mib)
        for block in 2..<11 { _ = plan.finished(block) }
        XCTAssertEqual(plan.completePrefix, 20 * mib + 5)
    }
}
