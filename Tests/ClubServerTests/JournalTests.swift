@testable import ClubServer
import Foundation
import XCTest

/// Listings as journal positions: deltas with deletions, paging, restarts, compaction, changes
/// made on disk, get_latest_cursor and cursors the server did not make. Over real HTTP.
final class JournalTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture { $0.rescanInterval = .milliseconds(50) }
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    func testDeltaHasWritesAndDeletions() async throws {
        try await club.upload("/byteclub/a.txt", Data("a".utf8))
        try await club.upload("/byteclub/b.txt", Data("b".utf8))
        let listed = try await club.listAll("/byteclub")
        XCTAssertEqual(listed.paths, ["/byteclub/a.txt", "/byteclub/b.txt"])

        try await club.upload("/byteclub/C.txt", Data("c".utf8))
        _ = try await club.rpc("2/files/delete_v2", ["path": "/byteclub/a.txt"])
        try await club.upload("/byteclub/b.txt", Data("b2".utf8), mode: "overwrite")
        let delta = try await club.changes(listed.cursor)
        XCTAssertEqual(delta.entries.map { $0[".tag"] as? String ?? "" }, ["deleted", "file", "file"])
        XCTAssertEqual(delta.paths, ["/byteclub/a.txt", "/byteclub/b.txt", "/byteclub/c.txt"])
        let deleted = try XCTUnwrap(delta.entries.first)
        XCTAssertEqual(deleted as NSDictionary, [".tag": "deleted", "name": "a.txt", "path_lower": "/byteclub/a.txt",
                                                 "path_display": "/byteclub/a.txt"] as NSDictionary)
        XCTAssertEqual(delta.entries[1]["size"] as? Int, 2)
        XCTAssertEqual(delta.entries[2]["path_display"] as? String, "/byteclub/C.txt")

        // Nothing since: an empty page, and the cursor still works.
        let quiet = try await club.changes(delta.cursor)
        XCTAssertEqual(quiet.paths, [])
        try await club.upload("/elsewhere.txt", Data("x".utf8))
        let unrelated = try await club.changes(quiet.cursor)
        XCTAssertEqual(unrelated.paths, [], "a change outside the folder is not in its delta")
    }

    func testFirstListingPagesByKeyAndMissesNothingThatChangesMeanwhile() async throws {
        for name in ["a", "b", "c", "d", "e"] { try await club.upload("/f/\(name).txt", Data(name.utf8)) }
        var reply = try await club.rpc("2/files/list_folder", ["path": "/f", "limit": 2])
        var seen = Self.paths(reply)
        // Between pages: one entry not yet sent is deleted, one already sent too, one is added.
        _ = try await club.rpc("2/files/delete_v2", ["path": "/f/a.txt"])
        _ = try await club.rpc("2/files/delete_v2", ["path": "/f/c.txt"])
        try await club.upload("/f/b2.txt", Data("n".utf8))
        while reply.json["has_more"] as? Bool == true {
            reply = try await club.rpc("2/files/list_folder/continue", ["cursor": reply.json["cursor"] as? String ?? ""])
            XCTAssertEqual(reply.status, 200, reply.text)
            seen += Self.paths(reply)
        }
        XCTAssertEqual(seen.first, "/f/a.txt")
        XCTAssertTrue(seen.contains("/f/d.txt") && seen.contains("/f/e.txt"), "\(seen)")
        // The listing's cursor predates it: all three changes come in the first delta.
        let delta = try await club.changes(reply.json["cursor"] as? String ?? "")
        XCTAssertEqual(delta.paths, ["/f/a.txt", "/f/b2.txt", "/f/c.txt"])
        XCTAssertEqual(delta.entries.map { $0[".tag"] as? String ?? "" }, ["deleted", "file", "deleted"])
    }

    func testDeltaPagesWithHasMore() async throws {
        try await club.upload("/p/seed.txt", Data("s".utf8))
        let listed = try await club.listAll("/p", limit: 2)
        for index in 0..<5 { try await club.upload("/p/n\(index).txt", Data("\(index)".utf8)) }
        var reply = try await club.rpc("2/files/list_folder/continue", ["cursor": listed.cursor])
        var pages = [Self.paths(reply)]
        while reply.json["has_more"] as? Bool == true {
            reply = try await club.rpc("2/files/list_folder/continue", ["cursor": reply.json["cursor"] as? String ?? ""])
            XCTAssertEqual(reply.status, 200, reply.text)
            pages.append(Self.paths(reply))
        }
        XCTAssertEqual(pages, [["/p/n0.txt", "/p/n1.txt"], ["/p/n2.txt", "/p/n3.txt"], ["/p/n4.txt"]])
    }

    func testRecursiveAndNonRecursiveDeltasAndFolderMoves() async throws {
        try await club.upload("/club/top.txt", Data("t".utf8))
        try await club.upload("/club/deep/a.txt", Data("a".utf8))
        let flat = try await club.listAll("/club")
        let deep = try await club.listAll("/club", recursive: true)
        XCTAssertEqual(deep.paths, ["/club/deep", "/club/deep/a.txt", "/club/top.txt"])

        try await club.upload("/club/deep/b.txt", Data("b".utf8))
        let flatDelta = try await club.changes(flat.cursor)
        XCTAssertEqual(flatDelta.paths, [], "a change two levels down is not in a non-recursive delta")
        let deepDelta = try await club.changes(deep.cursor)
        XCTAssertEqual(deepDelta.paths, ["/club/deep/b.txt"])

        // A folder moved: its old path deleted, the new one and all it holds written.
        let moved = try await club.rpc("2/files/move_v2", ["from_path": "/club/deep", "to_path": "/club/Moved"])
        XCTAssertEqual(moved.status, 200, moved.text)
        let afterMove = try await club.changes(deepDelta.cursor)
        XCTAssertEqual(afterMove.paths, ["/club/deep", "/club/moved", "/club/moved/a.txt", "/club/moved/b.txt"])
        XCTAssertEqual(afterMove.entries.map { $0[".tag"] as? String ?? "" }, ["deleted", "folder", "file", "file"])
        let flatMove = try await club.changes(flatDelta.cursor)
        XCTAssertEqual(flatMove.paths, ["/club/deep", "/club/moved"])

        // An upload that creates folders on the way reports them too.
        let before = try await club.latestCursor("", recursive: true)
        try await club.upload("/new1/new2/x.txt", Data("x".utf8))
        let created = try await club.changes(before)
        XCTAssertEqual(created.paths, ["/new1", "/new1/new2", "/new1/new2/x.txt"])

        // The listed folder itself deleted: a deletion of the folder.
        _ = try await club.rpc("2/files/delete_v2", ["path": "/club"])
        let gone = try await club.changes(afterMove.cursor)
        XCTAssertEqual(gone.paths, ["/club"])
        XCTAssertEqual(gone.entries.first?[".tag"] as? String, "deleted")
    }

    func testCursorsSurviveRestartAndOfflineEditsAreNoticed() async throws {
        // No rescan while running: the edit below is found only by the start-up comparison.
        await club.tearDown()
        club = try await ServerFixture { $0.rescanInterval = .seconds(3600) }
        try await club.upload("/r/a.txt", Data("a".utf8))
        let listed = try await club.listAll("/r")
        let restarted = try await club.restart()
        club = restarted
        try await club.upload("/r/b.txt", Data("b".utf8))
        let delta = try await club.changes(listed.cursor)
        XCTAssertEqual(delta.paths, ["/r/b.txt"])

        // A file changed while the server was stopped is in the first delta after it starts.
        try club.write("r/offline.txt", "written behind the server's back")
        let third = try await club.restart()
        club = third
        let offline = try await club.changes(delta.cursor)
        XCTAssertEqual(offline.paths, ["/r/offline.txt"])
    }

    func testResetAfterCompaction() async throws {
        await club.tearDown()
        club = try await ServerFixture { $0.journalLimit = 3 }
        try await club.upload("/c/a.txt", Data("a".utf8))
        let old = try await club.listAll("/c")
        try await club.upload("/c/0.txt", Data("0".utf8))
        let recent = try await club.changes(old.cursor)
        XCTAssertEqual(recent.paths, ["/c/0.txt"])
        for index in 1...8 { try await club.upload("/c/\(index).txt", Data("\(index)".utf8)) }
        // Eight records since the old cursor; only the newest 3 to 6 are kept.
        let reset = try await club.rpc("2/files/list_folder/continue", ["cursor": recent.cursor])
        XCTAssertEqual(reset.status, 409, reset.text)
        XCTAssertEqual(reset.json as NSDictionary, ["error_summary": "reset/..", "error": [".tag": "reset"]] as NSDictionary)
        // A cursor within what is kept still works.
        let fresh = try await club.latestCursor("/c")
        try await club.upload("/c/9.txt", Data("9".utf8))
        let delta = try await club.changes(fresh)
        XCTAssertEqual(delta.paths, ["/c/9.txt"])
    }

    func testChangeMadeDirectlyOnDiskIsNoticed() async throws {
        try await club.upload("/d/edit.txt", Data("one".utf8))
        let listed = try await club.listAll("/d")
        try club.write("d/edit.txt", "two, longer")
        try club.write("d/new.txt", "new")
        try FileManager.default.removeItem(at: club.root.appendingPathComponent("d/edit.txt"))
        try club.write("d/edit.txt", "three")
        // A rescan may have caught a step in between: wait for the last state of each path.
        let delta = try await club.waitForChanges(listed.cursor) { latest in
            latest["/d/edit.txt"]?["size"] as? Int == 5 && latest["/d/new.txt"] != nil
        }
        XCTAssertEqual(Set(delta.paths), ["/d/edit.txt", "/d/new.txt"])
        try FileManager.default.removeItem(at: club.root.appendingPathComponent("d/new.txt"))
        // A rescan may report edit.txt's last state once more (it changed twice within a
        // second); what counts is that new.txt's removal comes as a deletion, and only once.
        let removed = try await club.waitForChanges(delta.cursor) { $0["/d/new.txt"]?[".tag"] as? String == "deleted" }
        XCTAssertEqual(removed.entries.filter { $0["path_lower"] as? String == "/d/new.txt" }.map { $0[".tag"] as? String }, ["deleted"])
        XCTAssertEqual(Set(removed.paths).subtracting(["/d/edit.txt"]), ["/d/new.txt"])
        for entry in removed.entries where entry["path_lower"] as? String == "/d/edit.txt" { XCTAssertEqual(entry["size"] as? Int, 5) }
    }

    /// A file rewritten in place changes neither its inode nor its folder's mtime: once the
    /// rescan has journaled it, a listing must show it too, or its cursor would skip the change.
    func testAListingAfterAnInPlaceEditShowsTheEdit() async throws {
        try await club.upload("/c/a.txt", Data("one".utf8))
        let first = try await club.listAll("/c")
        XCTAssertEqual(first.entries.first?["size"] as? Int, 3)
        let handle = try FileHandle(forWritingTo: club.root.appendingPathComponent("c/a.txt"))
        try handle.write(contentsOf: Data("two, longer".utf8))
        try handle.close()
        _ = try await club.waitForChanges(first.cursor) { $0["/c/a.txt"]?["size"] as? Int == 11 }
        let again = try await club.listAll("/c")
        XCTAssertEqual(again.entries.first?["size"] as? Int, 11, "the listing is as new as its cursor")
        let after = try await club.changes(again.cursor)
        XCTAssertEqual(after.paths, [], "nothing the listing already showed comes again")
    }

    func testGetLatestCursor() async throws {
        try await club.upload("/g/a.txt", Data("a".utf8))
        let cursor = try await club.latestCursor("/g")
        try await club.upload("/g/b.txt", Data("b".utf8))
        let delta = try await club.changes(cursor)
        XCTAssertEqual(delta.paths, ["/g/b.txt"])

        let missing = try await club.rpc("2/files/list_folder/get_latest_cursor", ["path": "/nope"])
        XCTAssertEqual(missing.summary, "path/not_found")
        let file = try await club.rpc("2/files/list_folder/get_latest_cursor", ["path": "/g/a.txt"])
        XCTAssertEqual(file.summary, "path/not_folder")
        let badLimit = try await club.rpc("2/files/list_folder/get_latest_cursor", ["path": "", "limit": 5000])
        XCTAssertEqual(badLimit.status, 400)
    }

    func testMalformedAndForeignCursors() async throws {
        let other = try await ServerFixture()
        let foreign = try await other.latestCursor("")
        await other.tearDown()
        let ours = try await club.latestCursor("")
        let payload = String(ours.split(separator: ".")[0])
        let preJournal = Data(#"{"path":"","recursive":false,"offset":0,"limit":2000,"stamp":"1.2"}"#.utf8).base64EncodedString()
        let cases: [(String, Int, String)] = [
            ("garbage!", 400, ""), ("", 400, ""), ("a.b.c", 400, ""), (payload + ".", 409, "reset"),
            (foreign, 409, "reset"), (preJournal, 409, "reset"), (String(repeating: "A", count: 40_000), 400, ""),
            (Data("{\"p\":1}".utf8).base64EncodedString() + ".x", 400, ""),
        ]
        for (cursor, status, summary) in cases {
            for endpoint in ["2/files/list_folder/continue", "2/files/list_folder/longpoll"] {
                let reply = try await club.rpc(endpoint, ["cursor": cursor])
                XCTAssertEqual(reply.status, status, "\(endpoint) \(cursor.prefix(40)): \(reply.text)")
                XCTAssertEqual(reply.summary, summary, "\(endpoint) \(cursor.prefix(40))")
            }
        }
        let mistyped = try await club.rpc("2/files/list_folder/continue", ["cursor": 12])
        XCTAssertEqual(mistyped.status, 400)
    }

    static func paths(_ reply: ServerFixture.Reply) -> [String] {
        (reply.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["path_lower"] as? String }
    }
}

/// Which records a folder's delta (and longpoll) takes, without a server.
final class JournalRecordTests: XCTestCase {
    func record(_ path: String) -> JournalRecord { JournalRecord(seq: 1, kind: .written, display: path) }

    func testConcerns() {
        XCTAssertTrue(record("/a/b.txt").concerns(folder: "/a", recursive: false))
        XCTAssertFalse(record("/a/b/c.txt").concerns(folder: "/a", recursive: false))
        XCTAssertTrue(record("/a/b/c.txt").concerns(folder: "/a", recursive: true))
        XCTAssertFalse(record("/ab/c.txt").concerns(folder: "/a", recursive: true), "a sibling with a longer name")
        XCTAssertTrue(record("/x.txt").concerns(folder: "", recursive: false))
        XCTAssertFalse(record("/x/y.txt").concerns(folder: "", recursive: false))
        XCTAssertTrue(record("/A").concerns(folder: "/a/b", recursive: false), "an ancestor removed or replaced")
        XCTAssertTrue(record("/a/b").concerns(folder: "/a/b", recursive: false))
        XCTAssertFalse(record("/a/bc").concerns(folder: "/a/b", recursive: false))
        // Byte for byte: a decomposed "é" is another name than the precomposed one.
        XCTAssertFalse(record("/cafe\u{301}/x.txt").concerns(folder: "/caf\u{e9}", recursive: true))
        XCTAssertFalse(record("/caf\u{e9}/x.txt").concerns(folder: "/cafe\u{301}", recursive: true))
        XCTAssertTrue(record("/caf\u{e9}/x.txt").concerns(folder: "/caf\u{e9}", recursive: false))
    }
}

/// Listing helpers for the journal and longpoll tests.
extension ServerFixture {
    struct Listing {
        var entries: [[String: Any]]
        var cursor: String
        var paths: [String] { entries.compactMap { $0["path_lower"] as? String } }
    }

    /// A whole listing, every page, and the cursor its last page gave.
    func listAll(_ path: String, recursive: Bool = false, limit: Int = 2000) async throws -> Listing {
        var reply = try await rpc("2/files/list_folder", ["path": path, "recursive": recursive, "limit": limit])
        XCTAssertEqual(reply.status, 200, reply.text)
        var entries = reply.json["entries"] as? [[String: Any]] ?? []
        while reply.json["has_more"] as? Bool == true {
            reply = try await rpc("2/files/list_folder/continue", ["cursor": reply.json["cursor"] as? String ?? ""])
            XCTAssertEqual(reply.status, 200, reply.text)
            entries += reply.json["entries"] as? [[String: Any]] ?? []
        }
        return Listing(entries: entries, cursor: reply.json["cursor"] as? String ?? "")
    }

    /// Every change since `cursor`, through all its pages.
    func changes(_ cursor: String) async throws -> Listing {
        var entries: [[String: Any]] = []
        var next = cursor
        while true {
            let reply = try await rpc("2/files/list_folder/continue", ["cursor": next])
            XCTAssertEqual(reply.status, 200, reply.text)
            entries += reply.json["entries"] as? [[String: Any]] ?? []
            next = reply.json["cursor"] as? String ?? ""
            if reply.json["has_more"] as? Bool != true { return Listing(entries: entries, cursor: next) }
        }
    }

    /// Polls `continue` until `done` holds for the newest entry of each changed path (by
    /// `path_lower`), or five seconds pass.
    func waitForChanges(_ cursor: String, until done: ([String: [String: Any]]) -> Bool) async throws -> Listing {
        let deadline = Date().addingTimeInterval(5)
        var collected = Listing(entries: [], cursor: cursor)
        var latest: [String: [String: Any]] = [:]
        while Date() < deadline {
            let delta = try await changes(collected.cursor)
            collected.entries += delta.entries
            collected.cursor = delta.cursor
            for entry in delta.entries { latest[entry["path_lower"] as? String ?? ""] = entry }
            if done(latest) { return collected }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail("only \(collected.paths) changed within 5 s")
        return collected
    }

    func latestCursor(_ path: String, recursive: Bool = false) async throws -> String {
        let reply = try await rpc("2/files/list_folder/get_latest_cursor", ["path": path, "recursive": recursive])
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(Array(reply.json.keys), ["cursor"])
        return reply.json["cursor"] as? String ?? ""
    }
}
