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

    /// Another process's concurrent session (the app's, handed to the agent): its mark says the
    /// block size and the acknowledged blocks; the plan hands out only the others, cut the same.
    func testAResumedUploadPlanSendsOnlyTheBlocksItsMarkDoesNotList() throws {
        var plan = ConcurrentUploadPlan(size: 40 * mib + 7, streams: 4, largestBlock: 32 * mib)
        XCTAssertEqual(plan.mark("s").blocksDone, [])
        XCTAssertEqual(plan.take(), 0)
        XCTAssertEqual(plan.take(), 1)
        XCTAssertEqual(plan.take(), 2)
        let mark = plan.acknowledge(2, session: "s")
        let both = plan.acknowledge(0, session: "s")
        XCTAssertEqual(both, UploadSessionMark(sessionID: "s", offset: 8 * mib, blockSize: 4 * mib, blocksDone: [0, 8 * mib]))
        XCTAssertEqual(mark.blocksDone, [8 * mib])

        var resumed = try XCTUnwrap(ConcurrentUploadPlan(size: 40 * mib + 7, block: 4 * mib, acknowledged: [0, 8 * mib]))
        XCTAssertEqual(resumed.blocks, plan.blocks, "cut as the first process cut it")
        XCTAssertEqual(resumed.done, 8 * mib)
        var handed: [Int] = []
        while let next = resumed.take() { handed.append(next) }
        XCTAssertEqual(handed, [1] + Array(3..<plan.blocks.count))
        XCTAssertEqual(resumed.mark("s").offset, 8 * mib)

        XCTAssertNil(ConcurrentUploadPlan(size: 40 * mib, block: 3 * mib, acknowledged: []), "a block off the 4 MiB grid")
        XCTAssertNil(ConcurrentUploadPlan(size: 40 * mib, block: 4 * mib, acknowledged: [2 * mib]), "an offset off the blocks")
        XCTAssertNil(ConcurrentUploadPlan(size: 40 * mib, block: 4 * mib, acknowledged: [40 * mib]), "an offset past the end")
    }

    func testDownloadPrefixIsWhatAResumeMayKeep() {
        var plan = ParallelDownloadPlan(size: 20 * mib + 5, streams: 5)
        XCTAssertEqual(plan.blocks.count, 21, "about four blocks a stream: 1 MiB each")
        XCTAssertEqual(plan.blocks.last?.upperBound, 20 * mib + 4)
        for _ in 0..<21 { _ = plan.take() }
        XCTAssertEqual(plan.finished(1), 1 * mib)
        XCTAssertEqual(plan.completePrefix, 0, "the first block is missing: nothing to resume from")
        XCTAssertEqual(plan.finished(0), 2 * mib)
        XCTAssertEqual(plan.completePrefix, 2 * mib)
        for block in 2..<21 { _ = plan.finished(block) }
        XCTAssertEqual(plan.completePrefix, 20 * mib + 5)
    }

    func testDownloadBlocksAreSizedForTheLinkNotForMemory() {
        // Bytes go to the file as they arrive, so a block may be as large as the link wants.
        XCTAssertEqual(ParallelDownloadPlan.blockSize(size: 256 * mib, streams: 4), 16 * mib)
        XCTAssertEqual(ParallelDownloadPlan.blockSize(size: 1024 * mib, streams: 1), 16 * mib, "at most 16 MiB")
        XCTAssertEqual(ParallelDownloadPlan.blockSize(size: 32 * mib, streams: 4), 2 * mib, "four blocks a stream")
        XCTAssertEqual(ParallelDownloadPlan.blockSize(size: 32 * mib, streams: 16), 1 * mib, "at least 1 MiB")
    }

    func testTheResumePrefixTakesInTheBytesOfABlockStillArriving() {
        var plan = ParallelDownloadPlan(size: 64 * mib, streams: 4)
        XCTAssertEqual(plan.blocks.count, 16)
        for _ in 0..<3 { _ = plan.take() }
        XCTAssertEqual(plan.wrote(0, upTo: 3 * mib), 3 * mib)
        XCTAssertEqual(plan.wrote(1, upTo: 4 * mib), 7 * mib, "block 1 complete but not yet marked finished")
        XCTAssertEqual(plan.completePrefix, 3 * mib, "block 0's first 3 MiB are on disk without a gap")
        // A retry of block 0 writes from its start again: what is on disk still counts.
        XCTAssertEqual(plan.wrote(0, upTo: 1 * mib), 7 * mib)
        XCTAssertEqual(plan.completePrefix, 3 * mib)
        XCTAssertFalse(plan.hasWritten(0))
        XCTAssertEqual(plan.wrote(0, upTo: 4 * mib), 8 * mib)
        XCTAssertTrue(plan.hasWritten(0))
        _ = plan.finished(0)
        _ = plan.finished(1)
        XCTAssertEqual(plan.wrote(2, upTo: mib / 2), 8 * mib + mib / 2)
        XCTAssertEqual(plan.completePrefix, 8 * mib + mib / 2, "blocks 0 and 1 whole, then half a MiB of block 2")
    }

    func testAParallelDownloadReportsItsCompletePrefixAsItGrowsSoAKillLeavesAResume() async throws {
        // 64 MiB over 2 streams (8 MiB blocks): the fetch serves blocks until 40 MiB, then fails.
        let mib = self.mib, size = 64 * mib
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parallel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let reported = Mutex2<[(String, Int64)]>([])
        struct Cut: Error {}
        do {
            _ = try await ParallelDownload.run(size: size, streams: 2, directory: directory, progress: nil, fetch: { range, write in
                guard range.lowerBound < 40 * mib else { throw Cut() }
                try write(Data(repeating: UInt8(range.lowerBound / mib), count: range.count), 0)
            }, resume: { _, _ in }, checkpoint: { partial, prefix in reported.set(reported.get() + [(partial, prefix)]) })
            XCTFail("the download cannot finish")
        } catch is Cut {}
        let prefixes = reported.get().map(\.1)
        XCTAssertFalse(prefixes.isEmpty, "checkpoints while the blocks came in")
        XCTAssertEqual(prefixes, prefixes.sorted(), "a prefix only grows")
        XCTAssertTrue(zip(prefixes, prefixes.dropFirst()).allSatisfy { $1 - $0 >= 4 * mib }, "at most one each 4 MiB: \(prefixes)")
        XCTAssertTrue(prefixes.allSatisfy { $0 <= 40 * mib }, "never past what is in: \(prefixes)")
        // What each names is on disk: the partial file holds the prefix's bytes.
        let (partial, prefix) = try XCTUnwrap(reported.get().last)
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: partial))
        XCTAssertGreaterThanOrEqual(Int64(bytes.count), prefix)
        let block = ParallelDownloadPlan.blockSize(size: size, streams: 2)
        XCTAssertEqual(bytes[Int(prefix) - 1], UInt8((prefix - 1) / block * block / mib))
    }
}
