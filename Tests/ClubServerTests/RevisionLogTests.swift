@testable import ClubServer
import DropboxWire
import Foundation
import XCTest

/// Histories as values, without a disk (``RevisionLog``, ``RevisionState``, ``HistoryTarget``):
/// names, the log's format, its growth and pages, and tombstones.
final class RevisionLogTests: XCTestCase {
    private func record(_ rev: String, hash: String? = nil, at time: Int64 = 1) -> RevisionRecord {
        RevisionRecord(rev: rev, size: 3, hash: hash ?? "h-" + rev, server: time, client: time, path: "/Notes/a.md", by: "ann")
    }

    func testHistoryKeysAndRevsAreOnlyWhatTheServerHandsOut() {
        XCTAssertEqual(RevisionLog.historyKey("id:AbC-9_z"), "AbC-9_z")
        XCTAssertNil(RevisionLog.historyKey("id:"))
        XCTAssertNil(RevisionLog.historyKey("id:revs"), "the links' folder is no history")
        XCTAssertNil(RevisionLog.historyKey("id:../x"))
        XCTAssertNil(RevisionLog.historyKey("abc"))
        XCTAssertTrue(RevisionLog.isWellFormedRev("0123456789abcdef"))
        XCTAssertFalse(RevisionLog.isWellFormedRev("12345678"), "Dropbox's revs have at least 9 digits")
        XCTAssertFalse(RevisionLog.isWellFormedRev("0123456789abcdeg"))
        XCTAssertEqual(RevisionLog.limit(for: "a.MD"), RevisionLog.noteRevisionLimit)
        XCTAssertEqual(RevisionLog.limit(for: "photo.jpg"), RevisionLog.otherRevisionLimit)
    }

    func testTheLogReadsBackItsLinesAndSkipsDamagedOnes() {
        let records = [record("aaaaaaaaa1"), record("aaaaaaaaa2")]
        let text = String(decoding: RevisionLog.text(records), as: UTF8.self)
        XCTAssertTrue(text.contains("\"path\":\"/Notes/a.md\""), "slashes are written plainly")
        XCTAssertEqual(text.split(separator: "\n").count, 2)
        XCTAssertEqual(RevisionLog.records(text + "{\"rev\":\"torn\n" + text), records + records)
    }

    func testAHistoryKeepsItsNewestAndFreesOnlyBytesNoKeptRevisionShares() {
        let old = [record("r1", hash: "same"), record("r2", hash: "own"), record("r3", hash: "same")]
        let (kept, dropped) = RevisionLog.appending(record("r4", hash: "new"), to: old, limit: 2)
        XCTAssertEqual(kept.map(\.rev), ["r3", "r4"])
        XCTAssertEqual(dropped.map(\.rev), ["r1", "r2"])
        let freed = RevisionLog.orphans(dropping: dropped, keeping: kept)
        XCTAssertEqual(freed.hashes, ["own"], "r1's bytes are r3's too")
        XCTAssertEqual(freed.revs, ["r1", "r2"])
        XCTAssertTrue(RevisionLog.appending(record("r4"), to: old, limit: 100).dropped.isEmpty)
    }

    func testPagesGoNewestFirstFromBeforeRev() throws {
        let history = (1...5).map { record("r\($0)") }
        let first = try XCTUnwrap(RevisionLog.page(history, beforeRev: nil, limit: 2))
        XCTAssertEqual(first.page.map(\.rev), ["r5", "r4"])
        XCTAssertTrue(first.hasMore)
        let last = try XCTUnwrap(RevisionLog.page(history, beforeRev: "r3", limit: 2))
        XCTAssertEqual(last.page.map(\.rev), ["r2", "r1"])
        XCTAssertFalse(last.hasMore)
        XCTAssertNil(RevisionLog.page(history, beforeRev: "r9", limit: 2), "a rev the history does not hold")
    }

    func testTheLastFileDeletedAtAPathIsFoundAndARestoreNamesItsOwn() {
        var state = RevisionState()
        state.tombstones = [
            "id:a": Tombstone(id: "id:a", path: "/Notes/A.md", deleted: 10, deletedNanoseconds: 10_000_000_001, by: "ann"),
            "id:b": Tombstone(id: "id:b", path: "/notes/a.md", deleted: 10, deletedNanoseconds: 10_000_000_002, by: "bob"),
            "id:c": Tombstone(id: "id:c", path: "/notes/a.md", deleted: 99, expired: true),
        ]
        XCTAssertEqual(state.tombstone(at: "/notes/a.md")?.id, "id:b", "the later of two deletes within a second")
        XCTAssertEqual(state.tombstone(at: "/notes/a.md", expired: true)?.id, "id:c")
        state.restoring = ("/notes/a.md", "id:a")
        XCTAssertEqual(state.reclaim("/notes/a.md")?.id, "id:a", "a restore brings back the file it names")
        state.restoring = nil
        XCTAssertNil(state.tombstones?["id:a"])
        XCTAssertEqual(state.reclaim("/notes/a.md")?.id, "id:b", "the path index follows the change")
        XCTAssertNil(state.reclaim("/notes/a.md"), "an expired file's id is not taken up")
    }

    func testTombstonesOfOldServersKeyedByPathAreReadById() throws {
        let old = #"{"/a.md":{"id":"id:x","path":"/a.md","deleted":5},"/b.md":{"id":"id:x","path":"/b.md","deleted":7}}"#
        let read = RevisionState.tombstones(stored: Data(old.utf8))
        XCTAssertEqual(Array(read.keys), ["id:x"])
        XCTAssertEqual(read["id:x"]?.path, "/b.md", "the newer delete wins")
        XCTAssertEqual(RevisionState.tombstones(stored: Data("not json".utf8)), [:])
        XCTAssertEqual(RevisionState.tombstones(stored: nil), [:])
    }

    func testARevisionIsToldAtTheFilesPathNowAndItsBytesComeFromItsCopyOrTheLiveFile() {
        let live = FileMetadata(name: "b.md", id: "id:k", pathLower: "/moved/b.md", pathDisplay: "/Moved/b.md",
                                clientModified: Date(), serverModified: Date(), rev: "r2", size: 3, contentHash: "h-r2")
        let target = HistoryTarget(id: "id:k", key: "k", live: live, resolved: FolderStore.Resolved(host: "/club/Moved/b.md", path: .root, exists: true, isDirectory: false))
        let told = target.metadata(of: record("r1"), sharingInfo: nil)
        XCTAssertEqual(told.pathDisplay, "/Moved/b.md")
        XCTAssertEqual(told.name, "b.md")
        XCTAssertEqual(told.rev, "r1")
        XCTAssertEqual(told.serverModified, Date(timeIntervalSince1970: 1))
        XCTAssertEqual(target.contentPath(of: record("r1"), copy: "/copy", hasCopy: true), "/copy")
        XCTAssertNil(target.contentPath(of: record("r1"), copy: "/copy", hasCopy: false))
        XCTAssertEqual(target.contentPath(of: record("r2"), copy: "/copy", hasCopy: false), "/club/Moved/b.md", "the live file holds the newest")
        let deleted = HistoryTarget(id: "id:k", key: "k", tombstone: Tombstone(id: "id:k", path: "/Old/c.md", deleted: 0))
        XCTAssertEqual(deleted.metadata(of: record("r1"), sharingInfo: nil).pathLower, "/old/c.md")
        let message = deleted.pastRetention(rev: "r1", days: 30, as: .endpoint([.invalidRevision])).wire?.userMessage ?? ""
        XCTAssertTrue(message.contains("/Old/c.md") && message.contains("30 day(s)"), message)
    }

    /// What is kept of a newest record: its rev (a server's 16 hex digits as a number, any other
    /// text as it is) and its author, matched exactly as the texts would be.
    func testTheNewestRevisionKeptMatchesOnlyItsOwnRev() {
        var state = RevisionState()
        state.remember(RevisionRecord(rev: "00000000deadbeef", size: 1, hash: "h", server: 0, client: 0, path: "/a.md", by: "ann"), for: "k1")
        state.remember(RevisionRecord(rev: "0123456789ABCDEF", size: 1, hash: "h", server: 0, client: 0, path: "/b.md", by: nil), for: "k2")
        state.remember(nil, for: "k3")
        let packed = state.newest["k1"] ?? nil, text = state.newest["k2"] ?? nil
        XCTAssertEqual(packed?.isRev("00000000deadbeef"), true)
        XCTAssertEqual(packed?.isRev("00000000DEADBEEF"), false, "another spelling is another rev")
        XCTAssertEqual(packed?.isRev("deadbeef"), false)
        XCTAssertEqual(packed?.by, "ann")
        XCTAssertEqual(text?.isRev("0123456789ABCDEF"), true)
        XCTAssertEqual(text?.isRev("0123456789abcdef"), false)
        XCTAssertNil(text?.by)
        XCTAssertNotNil(state.newest["k3"], "a history with no record is remembered as such")
        XCTAssertNil(state.newest["k3"] ?? nil)
    }
}
