import Foundation
import XCTest
@testable import SearchIndex

/// The WAL is copied into the index file off the writer: a commit never checkpoints (that is
/// what pushed one note's re-index to 25 ms at p95), a background checkpoint does once writes pause.
final class CheckpointTests: XCTestCase {
    /// About 5 KiB of words, different for each `seed`.
    private func text(_ seed: Int) -> String {
        (0..<400).map { "w\(($0 &* 7919 &+ seed &* 104_729) % 50_000)" }.joined(separator: " ")
    }

    private func size(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? -1
    }

    func testACommitPastAThousandWALPagesLeavesTheFileAlone() throws {
        let folder = try IndexFolder()
        // A checkpoint far off: whatever reaches the file here was written by a commit.
        let index = try SearchIndex(directory: folder.url, checkpointDelay: 600)
        let before = size(folder.file)
        // 1,000 notes of 5 KiB in one commit: well past SQLite's default auto-checkpoint (1,000 pages).
        try index.upsert((0..<1_000).map { note("/byteclub/n\($0).txt", text($0)) })
        let wal = size(URL(fileURLWithPath: folder.file.path + "-wal"))
        XCTAssertGreaterThan(wal, 1_000 * 4_096, "the WAL holds the commit")
        XCTAssertEqual(size(folder.file), before, "the commit copied the WAL into the file")
        XCTAssertFalse(try index.search("w7919").isEmpty)
    }

    func testTheWALReachesTheFileInTheBackgroundOnceWritesPause() throws {
        let folder = try IndexFolder()
        let index = try SearchIndex(directory: folder.url, checkpointDelay: 0.05)
        let before = size(folder.file)
        try index.upsert((0..<100).map { note("/byteclub/n\($0).txt", text($0)) })
        let deadline = Date().addingTimeInterval(10)
        while size(folder.file) <= before, Date() < deadline { usleep(5_000) }
        XCTAssertGreaterThan(size(folder.file), before, "no checkpoint within 10 s")
        // Everything is in the file: a further checkpoint has nothing left to copy.
        let (frames, checkpointed) = try index.checkpoint()
        XCTAssertEqual(frames, checkpointed)
        XCTAssertFalse(try index.search("w7919").isEmpty)
    }
}
