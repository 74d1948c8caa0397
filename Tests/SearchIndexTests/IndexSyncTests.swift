import Foundation
import GRDB
import XCTest
@testable import SearchIndex

/// Bringing the index current from a listing, and rebuilding a damaged or outdated one.
final class IndexSyncTests: XCTestCase {
    var folder: IndexFolder!

    override func setUpWithError() throws {
        folder = try IndexFolder()
    }

    /// A club of `count` notes: path → (rev, text).
    func club(_ count: Int) -> [String: (rev: String, text: String)] {
        var notes: [String: (rev: String, text: String)] = [:]
        for i in 0..<count { notes["/club/Note \(i).txt"] = ("a\(i)", "Note number \(i)\nword\(i) and the common text") }
        return notes
    }

    func listing(_ notes: [String: (rev: String, text: String)]) -> [IndexSync.Entry] {
        notes.map { IndexSync.Entry(path: $0.key, rev: $0.value.rev, modified: Date(timeIntervalSince1970: 1000), modifiedBy: "dbid:carol") }
    }

    func sync(_ index: SearchIndex, _ notes: [String: (rev: String, text: String)], fetched: Recorder<String>,
              progress: Recorder<[Int]>? = nil) async throws -> IndexSync.Report {
        try await IndexSync(index: index, maxConcurrentFetches: 4, batchSize: 16).run(listing: listing(notes), fetch: { entry in
            fetched.append(entry.path)
            guard let text = notes[entry.path]?.text else { throw CocoaError(.fileNoSuchFile) }
            return text
        }, progress: { done, total in progress?.append([done, total]) })
    }

    func testSyncFetchesOnlyWhatChanged() async throws {
        let index = try SearchIndex(directory: folder.url)
        var notes = club(40)
        let first = Recorder<String>()
        let progress = Recorder<[Int]>()
        let report = try await sync(index, notes, fetched: first, progress: progress)
        XCTAssertEqual(report.indexed, 40)
        XCTAssertEqual(first.all.count, 40)
        XCTAssertEqual(progress.all.first, [0, 40])
        XCTAssertEqual(progress.all.last, [40, 40])
        XCTAssertEqual(try index.search("word17").map(\.path), ["/club/Note 17.txt"])
        XCTAssertEqual(try index.search("word17").first?.modifiedBy, "dbid:carol")

        notes["/club/Note 3.txt"] = ("b3", "rewritten with kiwis")
        notes["/club/Note 5.txt"] = ("b5", "and mangoes")
        notes["/club/Note 9.txt"] = nil
        notes["/club/New.txt"] = ("n1", "a brand new papaya")
        let second = Recorder<String>()
        let again = try await sync(index, notes, fetched: second)
        XCTAssertEqual(Set(second.all), ["/club/Note 3.txt", "/club/Note 5.txt", "/club/New.txt"])
        XCTAssertEqual(again.indexed, 3)
        XCTAssertEqual(again.removed, 1)
        XCTAssertEqual(again.unchanged, 37)
        XCTAssertEqual(try index.search("kiwis").map(\.path), ["/club/Note 3.txt"])
        XCTAssertEqual(try index.search("word3").map(\.path), [])
        XCTAssertEqual(try index.search("word9").map(\.path), [])
        XCTAssertEqual(try index.search("papaya").map(\.path), ["/club/New.txt"])

        let third = Recorder<String>()
        let quiet = try await sync(index, notes, fetched: third)
        XCTAssertEqual(third.all, [])
        XCTAssertEqual(quiet.unchanged, 40)
    }

    /// A change page is taken in alone: the notes it changed are fetched when the index lacks
    /// their rev (one it already has is not), the ones it removed are forgotten, and nothing
    /// else in the index is looked at or touched.
    func testAChangePageIsTakenInWithoutTheRestOfTheIndex() async throws {
        let index = try SearchIndex(directory: folder.url)
        var notes = club(40)
        _ = try await sync(index, notes, fetched: Recorder<String>())
        notes["/club/Note 3.txt"] = ("b3", "rewritten with kiwis")
        notes["/club/New.txt"] = ("n1", "a brand new papaya")
        let fetched = Recorder<String>()
        let changed = listing(notes.filter { ["/club/Note 3.txt", "/club/New.txt", "/club/Note 4.txt"].contains($0.key) })
        let texts = notes
        let report = try await IndexSync(index: index).apply(changed: changed, removed: ["/club/note 9.txt", "/club/never indexed.txt"], fetch: { entry in
            fetched.append(entry.path)
            return texts[entry.path]!.text
        })
        XCTAssertEqual(Set(fetched.all), ["/club/Note 3.txt", "/club/New.txt"], "Note 4 is indexed at its rev already")
        XCTAssertEqual(report.indexed, 2)
        XCTAssertEqual(report.unchanged, 1)
        XCTAssertEqual(try index.search("kiwis").map(\.path), ["/club/Note 3.txt"])
        XCTAssertEqual(try index.search("papaya").map(\.path), ["/club/New.txt"])
        XCTAssertEqual(try index.search("word9").map(\.path), [], "removed")
        XCTAssertEqual(try index.search("word17").map(\.path), ["/club/Note 17.txt"], "the rest as it was")
        XCTAssertEqual(try index.count(), 40)
        XCTAssertEqual(try index.revisions(of: ["/club/note 3.txt", "/club/nothing.txt"]), ["/club/note 3.txt": "b3"])
    }

    func testAFailedFetchIsReportedAndTheRestIndexed() async throws {
        let index = try SearchIndex(directory: folder.url)
        let notes = club(10)
        let report = try await IndexSync(index: index).run(listing: listing(notes) + [IndexSync.Entry(path: "/club/Gone.txt", rev: "g", modified: nil, modifiedBy: nil)],
                                                           fetch: { entry in
            guard let text = notes[entry.path]?.text else { throw CocoaError(.fileNoSuchFile) }
            return text
        })
        XCTAssertEqual(report.failed, ["/club/Gone.txt"])
        XCTAssertEqual(report.indexed, 10)
        XCTAssertEqual(try index.count(), 10)
    }

    func testAFileThatIsNotADatabaseIsRebuiltWithProgress() async throws {
        let notes = club(30)
        do {
            let index = try SearchIndex(directory: folder.url)
            _ = try await sync(index, notes, fetched: Recorder())
        }
        try Data(repeating: 0x5A, count: 64 * 1024).write(to: folder.file)
        try? FileManager.default.removeItem(atPath: folder.file.path + "-wal")

        let index = try SearchIndex(directory: folder.url)
        guard case .rebuilt = index.openOutcome else { return XCTFail("expected a rebuild, got \(index.openOutcome)") }
        XCTAssertEqual(try index.count(), 0)
        let progress = Recorder<[Int]>()
        let fetched = Recorder<String>()
        _ = try await sync(index, notes, fetched: fetched, progress: progress)
        XCTAssertEqual(fetched.all.count, 30)
        XCTAssertEqual(progress.all.last, [30, 30])
        XCTAssertEqual(try index.search("word29").map(\.path), ["/club/Note 29.txt"])
    }

    func testCorruptPagesFoundLaterAreRebuiltBySync() async throws {
        let notes = club(400)
        do {
            let index = try SearchIndex(directory: folder.url)
            _ = try await sync(index, notes, fetched: Recorder())
        }
        // Keep the first page (header and schema), garble the rest: tables and FTS segments.
        let handle = try FileHandle(forWritingTo: folder.file)
        let size = try handle.seekToEnd()
        XCTAssertGreaterThan(size, 16 * 4096)
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data((0..<Int(size) - 4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
        try handle.close()

        let index = try SearchIndex(directory: folder.url)
        XCTAssertThrowsError(try index.verify()) { error in
            guard case .damaged = error as? SearchIndexError else { return XCTFail("\(error)") }
        }
        let progress = Recorder<[Int]>()
        let report = try await sync(index, notes, fetched: Recorder(), progress: progress)
        XCTAssertTrue(report.rebuilt, "the damage was found by the sync, which started afresh")
        XCTAssertEqual(report.indexed, 400)
        XCTAssertEqual(progress.all.last, [400, 400])
        XCTAssertEqual(try index.search("word123").map(\.path), ["/club/Note 123.txt"])
        try index.verify()
    }

    func testAnIndexFromAnOlderVersionIsRebuilt() throws {
        do {
            let index = try SearchIndex(directory: folder.url)
            try index.upsert(note("/club/Old.txt", "old words"))
        }
        let queue = try DatabaseQueue(path: folder.file.path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = \(SearchIndex.schemaVersion - 1)") }
        try queue.close()

        let index = try SearchIndex(directory: folder.url)
        XCTAssertEqual(index.openOutcome, .rebuilt(reason: "version \(SearchIndex.schemaVersion - 1), now \(SearchIndex.schemaVersion)"))
        XCTAssertEqual(try index.count(), 0)
        XCTAssertEqual(try index.search("old").map(\.path), [])
    }

    /// With a batch fetch: the notes go in batches (each written as it arrives), a note a batch
    /// could not give and a note too big for a batch go alone, a failed batch goes alone note by
    /// note, and the rev indexed is the one the batch said it sent (newer than the listing's).
    func testBatchesFirstThenAloneForWhatABatchCouldNotGive() async throws {
        let index = try SearchIndex(directory: folder.url)
        let notes = club(50)
        // In path order, so the batches are the same every run: Note 3's (which fails) never
        // holds Note 5 (whose newer rev is checked) or Note 4.
        var listed = listing(notes).sorted { $0.path < $1.path }
        let big = listed.firstIndex { $0.path == "/club/Note 7.txt" }!
        listed[big].size = IndexSync.largestBatchedNote + 1
        let batches = Recorder<[String]>()
        let alone = Recorder<String>()
        var sync = IndexSync(index: index)
        sync.fetchBatchSize = 10
        let report = try await sync.run(listing: listed, fetch: { entry in
            alone.append(entry.path)
            return notes[entry.path]!.text
        }, fetchBatch: { entries in
            batches.append(entries.map(\.path))
            // The batch holding Note 3 fails whole; Note 4 is missing from its batch; Note 5
            // changed since the listing: its batch sends the new rev.
            if entries.contains(where: { $0.path == "/club/Note 3.txt" }) { throw CocoaError(.fileReadUnknown) }
            return entries.map { entry in
                if entry.path == "/club/Note 4.txt" { return nil }
                var sent = entry
                if entry.path == "/club/Note 5.txt" { sent.rev = "newer" }
                return IndexSync.Fetched(entry: sent, text: notes[entry.path]!.text)
            }
        })
        XCTAssertEqual(report.indexed, 50)
        XCTAssertEqual(report.failed, [])
        XCTAssertEqual(batches.all.count, 5, "49 batchable notes, 10 a batch")
        XCTAssertFalse(batches.all.joined().contains("/club/Note 7.txt"), "a big note never goes in a batch")
        let failedBatch = batches.all.first { $0.contains("/club/Note 3.txt") } ?? []
        XCTAssertEqual(Set(alone.all), Set(failedBatch + ["/club/Note 4.txt", "/club/Note 7.txt"]))
        XCTAssertEqual(try index.revisions()["/club/note 5.txt"], "newer")
        XCTAssertEqual(try index.search("word4").map(\.path), ["/club/Note 4.txt"])
    }
}
