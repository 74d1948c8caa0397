import ClubServer
import DropboxWire
import Foundation
import TestSupport
import XCTest

/// Revisions over real HTTP: `list_revisions`, `restore`, `rev:` downloads and `copy_v2`.
final class RevisionTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture()
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    /// Uploads `text` over whatever is at `path`; the new version's metadata.
    @discardableResult
    func save(_ path: String, _ text: String) async throws -> FileMetadata {
        let reply = try await club.upload(path, Data(text.utf8), mode: "overwrite")
        XCTAssertEqual(reply.status, 200, reply.text)
        guard case .file(let file) = try JSONDecoder().decode(Metadata.self, from: reply.body) else { throw CouldNotCheck("not a file: \(reply.text)") }
        return file
    }

    func revisions(_ argument: [String: Any]) async throws -> ListRevisionsResult {
        let reply = try await club.rpc("2/files/list_revisions", argument)
        XCTAssertEqual(reply.status, 200, reply.text)
        return try JSONDecoder().decode(ListRevisionsResult.self, from: reply.body)
    }

    func download(_ argument: [String: Any]) async throws -> ServerFixture.Reply {
        try await club.content("2/files/download", argument)
    }

    func testRevisionsNewestFirstWithLimitAndBeforeRev() async throws {
        var saved: [FileMetadata] = []
        for number in 1...5 { saved.append(try await save("/notes/a.txt", "version \(number)")) }
        let all = try await revisions(["path": "/notes/a.txt"])
        XCTAssertEqual(all.entries.map(\.rev), saved.reversed().map(\.rev))
        XCTAssertEqual(all.entries.map(\.contentHash), saved.reversed().map(\.contentHash))
        XCTAssertFalse(all.isDeleted)
        XCTAssertNil(all.serverDeleted)
        XCTAssertFalse(all.hasMore)
        XCTAssertEqual(Set(all.entries.map(\.id)), [saved[0].id])
        XCTAssertEqual(all.entries.first?.pathDisplay, "/notes/a.txt")

        // Paging back with before_rev, two at a time.
        var pages: [[String]] = []
        var before: String?
        repeat {
            var argument: [String: Any] = ["path": "/notes/a.txt", "limit": 2]
            if let before { argument["before_rev"] = before }
            let page = try await revisions(argument)
            pages.append(page.entries.map(\.rev))
            before = page.hasMore ? page.entries.last?.rev : nil
        } while before != nil
        XCTAssertEqual(pages, [[saved[4].rev, saved[3].rev], [saved[2].rev, saved[1].rev], [saved[0].rev]])

        // The mode union in both forms, and lookups by id.
        for mode in ["id", [".tag": "id"], "path", [".tag": "path"]] as [Any] {
            for path in ["/NOTES/A.txt", saved[0].id] {
                let result = try await revisions(["path": path, "mode": mode, "limit": 1])
                XCTAssertEqual(result.entries.map(\.rev), [saved[4].rev], "\(mode) \(path)")
                XCTAssertTrue(result.hasMore)
            }
        }

        for bad: [String: Any] in [["limit": 0], ["limit": 101], ["limit": "3"], ["mode": "sideways"], ["mode": [".tag": "both"]]] {
            var argument: [String: Any] = ["path": "/notes/a.txt"]
            argument.merge(bad) { _, new in new }
            let reply = try await club.rpc("2/files/list_revisions", argument)
            XCTAssertEqual(reply.status, 400, "\(bad): \(reply.text)")
        }
        let unknownBefore = try await club.rpc("2/files/list_revisions", ["path": "/notes/a.txt", "before_rev": "0123456789abcdef"])
        XCTAssertEqual(unknownBefore.summary, "invalid_before_rev")
        let missing = try await club.rpc("2/files/list_revisions", ["path": "/notes/none.txt"])
        XCTAssertEqual(missing.summary, "path/not_found")
        let malformed = try await club.rpc("2/files/list_revisions", ["path": "/notes/../a.txt"])
        XCTAssertEqual(malformed.summary, "path/malformed_path")
        let folder = try await club.rpc("2/files/list_revisions", ["path": "/notes"])
        XCTAssertEqual(folder.summary, "path/not_file")
        let unknownID = try await club.rpc("2/files/list_revisions", ["path": "id:nothing-like-it", "mode": "id"])
        XCTAssertEqual(unknownID.summary, "path/not_found")
    }

    func testNotesKeepOneHundredRevisionsAndPhotosThree() async throws {
        var revs: [String] = []
        for number in 1...105 { revs.append(try await save("/n.md", "save \(number)").rev) }
        let kept = try await revisions(["path": "/n.md", "limit": 100])
        XCTAssertEqual(kept.entries.count, 100)
        XCTAssertFalse(kept.hasMore)
        XCTAssertEqual(kept.entries.map(\.rev), Array(revs.suffix(100).reversed()))
        // A pruned revision is gone, bytes and all; the oldest kept one is still there.
        let pruned = try await download(["path": "rev:" + revs[4]])
        XCTAssertEqual(pruned.summary, "path/not_found")
        let oldest = try await download(["path": "rev:" + revs[5]])
        XCTAssertEqual(oldest.text, "save 6")

        var photos: [String] = []
        for number in 1...5 { photos.append(try await save("/p.jpg", "not really a jpeg \(number)").rev) }
        let photoRevisions = try await revisions(["path": "/p.jpg", "limit": 100])
        XCTAssertEqual(photoRevisions.entries.map(\.rev), Array(photos.suffix(3).reversed()))
    }

    func testRestoreMakesANewRevision() async throws {
        let first = try await save("/r.txt", "first")
        let second = try await save("/r.txt", "second")
        let other = try await save("/other.txt", "other")
        let reply = try await club.rpc("2/files/restore", ["path": "/r.txt", "rev": first.rev])
        XCTAssertEqual(reply.status, 200, reply.text)
        guard case .file(let restored) = try JSONDecoder().decode(Metadata.self, from: reply.body) else { return XCTFail(reply.text) }
        XCTAssertNotEqual(restored.rev, first.rev)
        XCTAssertNotEqual(restored.rev, second.rev)
        XCTAssertEqual(restored.contentHash, first.contentHash)
        XCTAssertEqual(restored.id, first.id)
        XCTAssertEqual(club.read("r.txt"), "first")
        let history = try await revisions(["path": "/r.txt"])
        XCTAssertEqual(history.entries.map(\.rev), [restored.rev, second.rev, first.rev])

        let foreign = try await club.rpc("2/files/restore", ["path": "/r.txt", "rev": other.rev])
        XCTAssertEqual(foreign.summary, "invalid_revision")
        let unknown = try await club.rpc("2/files/restore", ["path": "/r.txt", "rev": "0123456789abcdef"])
        XCTAssertEqual(unknown.summary, "invalid_revision")
        let garbage = try await club.rpc("2/files/restore", ["path": "/r.txt", "rev": "not a rev"])
        XCTAssertEqual(garbage.summary, "invalid_revision")
        let missing = try await club.rpc("2/files/restore", ["path": "/gone.txt", "rev": first.rev])
        XCTAssertEqual(missing.summary, "path_lookup/not_found")
        let malformed = try await club.rpc("2/files/restore", ["path": "/.byteclub/x", "rev": first.rev])
        XCTAssertEqual(malformed.summary, "path_lookup/malformed_path")
        let noRev = try await club.rpc("2/files/restore", ["path": "/r.txt"])
        XCTAssertEqual(noRev.status, 400)
    }

    func testDownloadsByRevision() async throws {
        let first = try await save("/d.txt", "one")
        let second = try await save("/d.txt", "two two")
        let other = try await save("/e.txt", "else")
        for (file, text) in [(first, "one"), (second, "two two")] {
            let reply = try await download(["path": "rev:" + file.rev])
            XCTAssertEqual(reply.status, 200, reply.text)
            XCTAssertEqual(reply.text, text)
            XCTAssertEqual(reply.result()["rev"] as? String, file.rev)
            XCTAssertEqual(reply.result()["path_display"] as? String, "/d.txt")
            XCTAssertEqual(reply.headers?.value(forHeader: "ETag"), "\"\(file.rev)\"")
        }
        // A Range works on a revision like on a file.
        let part = try await club.content("2/files/download", ["path": "rev:" + second.rev], extraHeaders: ["Range": "bytes=4-"])
        XCTAssertEqual(part.status, 206)
        XCTAssertEqual(part.text, "two")
        // The deprecated `rev` beside a path: that file's revision, not another's.
        let beside = try await download(["path": "/d.txt", "rev": first.rev])
        XCTAssertEqual(beside.text, "one")
        let foreign = try await download(["path": "/d.txt", "rev": other.rev])
        XCTAssertEqual(foreign.summary, "path/not_found")
        let unknown = try await download(["path": "rev:0123456789abcdef"])
        XCTAssertEqual(unknown.summary, "path/not_found")
        let malformed = try await download(["path": "rev:../../etc/passwd"])
        XCTAssertEqual(malformed.summary, "path/malformed_path")
    }

    func testHistoriesSurviveDeleteAndRestart() async throws {
        let first = try await save("/keep/h.txt", "before")
        let second = try await save("/keep/h.txt", "after")
        let deleted = try await club.rpc("2/files/delete_v2", ["path": "/keep/h.txt"])
        XCTAssertEqual(deleted.status, 200, deleted.text)
        let afterDelete = try await revisions(["path": "/keep/h.txt"])
        XCTAssertTrue(afterDelete.isDeleted)
        XCTAssertNotNil(afterDelete.serverDeleted)
        XCTAssertEqual(afterDelete.entries.map(\.rev), [second.rev, first.rev])

        let restarted = try await club.restart()
        club = restarted
        let again = try await revisions(["path": "/keep/h.txt", "mode": [".tag": "path"]])
        XCTAssertTrue(again.isDeleted)
        XCTAssertEqual(again.entries.map(\.rev), [second.rev, first.rev])
        let byID = try await revisions(["path": first.id, "mode": "id"])
        XCTAssertEqual(byID.entries.map(\.rev), [second.rev, first.rev])
        // The last version was live until the delete; its bytes were kept then.
        let bytes = try await download(["path": "rev:" + second.rev])
        XCTAssertEqual(bytes.text, "after")

        // Restoring a deleted file brings it back with its id and its history.
        let restore = try await club.rpc("2/files/restore", ["path": "/keep/h.txt", "rev": first.rev])
        XCTAssertEqual(restore.status, 200, restore.text)
        XCTAssertEqual(restore.json["id"] as? String, first.id)
        XCTAssertEqual(club.read("keep/h.txt"), "before")
        let back = try await revisions(["path": "/keep/h.txt"])
        XCTAssertFalse(back.isDeleted)
        XCTAssertEqual(back.entries.count, 3)
        XCTAssertEqual(Array(back.entries.map(\.rev).dropFirst()), [second.rev, first.rev])
    }

    func testHistoryFollowsAMoveAndOutlivesAFolderDelete() async throws {
        let first = try await save("/f/m.txt", "one")
        let second = try await save("/f/m.txt", "two")
        let moved = try await club.rpc("2/files/move_v2", ["from_path": "/f/m.txt", "to_path": "/g/moved.txt"])
        XCTAssertEqual(moved.status, 200, moved.text)
        let movedRev = (moved.json["metadata"] as? [String: Any])?["rev"] as? String
        let history = try await revisions(["path": "/g/moved.txt"])
        XCTAssertEqual(history.entries.first?.rev, movedRev)
        XCTAssertEqual(Array(history.entries.map(\.rev).suffix(2)), [second.rev, first.rev])
        XCTAssertEqual(Set(history.entries.map(\.pathDisplay)), ["/g/moved.txt"])
        let gone = try await club.rpc("2/files/list_revisions", ["path": "/f/m.txt"])
        XCTAssertEqual(gone.summary, "path/not_found")

        let deleted = try await club.rpc("2/files/delete_v2", ["path": "/g"])
        XCTAssertEqual(deleted.status, 200, deleted.text)
        let afterDelete = try await revisions(["path": "/G/MOVED.txt"])
        XCTAssertTrue(afterDelete.isDeleted)
        XCTAssertEqual(afterDelete.entries.count, history.entries.count)
        let old = try await download(["path": "rev:" + first.rev])
        XCTAssertEqual(old.text, "one")
    }

    func testChangesMadeOnDiskAreRecorded() async throws {
        let saved = try await save("/disk.txt", "by the server")
        try club.write("disk.txt", "edited in place by hand, longer")
        let history = try await revisions(["path": "/disk.txt"])
        XCTAssertEqual(history.entries.count, 2)
        XCTAssertEqual(history.entries.last?.rev, saved.rev)
        XCTAssertEqual(history.entries.first?.size, Int64("edited in place by hand, longer".utf8.count))
        // The note's earlier text was copied at commit, so it outlives the edit on disk.
        let earlier = try await download(["path": "rev:" + saved.rev])
        XCTAssertEqual(earlier.text, "by the server")
    }

    /// Restore and copy are commits: the change journal has them, as `list_folder/continue`
    /// shows straight after (no rescan needed).
    func testRestoreAndCopyReachTheChangeJournal() async throws {
        let first = try await save("/j/a.txt", "one")
        _ = try await save("/j/a.txt", "two")
        // Through the server, not the disk: a rescan between the cursor and the delta would
        // add a disk write to the delta.
        _ = try await save("/j/sub/n.md", "inside")
        let cursor = try await club.latestCursor("/j", recursive: true)
        let restored = try await club.rpc("2/files/restore", ["path": "/j/a.txt", "rev": first.rev])
        XCTAssertEqual(restored.status, 200, restored.text)
        let copied = try await club.rpc("2/files/copy_v2", ["from_path": "/j/a.txt", "to_path": "/j/b.txt"])
        XCTAssertEqual(copied.status, 200, copied.text)
        let folder = try await club.rpc("2/files/copy_v2", ["from_path": "/j/sub", "to_path": "/j/sub2"])
        XCTAssertEqual(folder.status, 200, folder.text)
        let delta = try await club.changes(cursor)
        XCTAssertEqual(Set(delta.paths), ["/j/a.txt", "/j/b.txt", "/j/sub2", "/j/sub2/n.md"])
        let restoredEntry = delta.entries.first { $0["path_lower"] as? String == "/j/a.txt" }
        XCTAssertEqual(restoredEntry?["rev"] as? String, restored.json["rev"] as? String)
    }

    func testCopyFilesAndFolders() async throws {
        let source = try await save("/c/a.txt", "copy me")
        let reply = try await club.rpc("2/files/copy_v2", ["from_path": "/c/a.txt", "to_path": "/c/b.txt"])
        XCTAssertEqual(reply.status, 200, reply.text)
        let copied = try JSONDecoder().decode(MetadataResult.self, from: reply.body)
        guard case .file(let file) = copied.metadata else { return XCTFail(reply.text) }
        XCTAssertEqual(file.pathDisplay, "/c/b.txt")
        XCTAssertNotEqual(file.id, source.id)
        XCTAssertEqual(file.contentHash, source.contentHash)
        XCTAssertEqual(club.read("c/a.txt"), "copy me")
        XCTAssertEqual(club.read("c/b.txt"), "copy me")
        let copyHistory = try await revisions(["path": "/c/b.txt"])
        XCTAssertEqual(copyHistory.entries.map(\.rev), [file.rev])

        let conflict = try await club.rpc("2/files/copy_v2", ["from_path": "/c/a.txt", "to_path": "/c/b.txt"])
        XCTAssertEqual(conflict.summary, "to/conflict/file")
        let renamed = try await club.rpc("2/files/copy_v2", ["from_path": "/c/a.txt", "to_path": "/c/b.txt", "autorename": true])
        XCTAssertEqual((renamed.json["metadata"] as? [String: Any])?["path_display"] as? String, "/c/b (1).txt")
        let missing = try await club.rpc("2/files/copy_v2", ["from_path": "/c/none.txt", "to_path": "/c/x.txt"])
        XCTAssertEqual(missing.summary, "from_lookup/not_found")
        let badTarget = try await club.rpc("2/files/copy_v2", ["from_path": "/c/a.txt", "to_path": "/c/../x.txt"])
        XCTAssertEqual(badTarget.summary, "to/malformed_path")

        // A folder, recursively, without following a symlink out of it.
        try club.write("c/deep/er/n.md", "nested")
        symlink(club.root.appendingPathComponent("c/a.txt").path, club.root.appendingPathComponent("c/deep/link.txt").path)
        let folder = try await club.rpc("2/files/copy_v2", ["from_path": "/c", "to_path": "/d/c2"])
        XCTAssertEqual(folder.status, 200, folder.text)
        XCTAssertEqual((folder.json["metadata"] as? [String: Any])?[".tag"] as? String, "folder")
        XCTAssertEqual(club.read("d/c2/deep/er/n.md"), "nested")
        XCTAssertEqual(club.read("d/c2/b (1).txt"), "copy me")
        XCTAssertNil(club.read("d/c2/deep/link.txt"))
        let nested = try await revisions(["path": "/d/c2/deep/er/n.md"])
        XCTAssertEqual(nested.entries.count, 1)
        let folderConflict = try await club.rpc("2/files/copy_v2", ["from_path": "/c", "to_path": "/d/c2"])
        XCTAssertEqual(folderConflict.summary, "to/conflict/folder")
        let intoItself = try await club.rpc("2/files/copy_v2", ["from_path": "/c", "to_path": "/c/deep/c"])
        XCTAssertEqual(intoItself.summary, "cant_move_folder_into_itself")
        let listing = try await club.rpc("2/files/list_folder", ["path": "/d/c2", "recursive": true])
        XCTAssertEqual(listing.status, 200)
        // a, b, b (1), deep, deep/er, deep/er/n.md; never the symlink
        XCTAssertEqual((listing.json["entries"] as? [[String: Any]])?.count, 6, listing.text)
    }
}
