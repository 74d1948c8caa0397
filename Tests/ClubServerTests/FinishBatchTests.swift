@testable import ClubServer
import DropboxWire
import Foundation
import XCTest

/// `upload_session/finish_batch_v2` over HTTP against a real server on loopback: many sessions
/// committed in one call, each entry's answer at its own position, a failure beside successes,
/// more than 1,000 entries refused whole, a reader's batch committing nothing.
final class FinishBatchTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture()
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    /// A closed session holding `data`, started in one call.
    func closedSession(_ data: Data, fixture: ServerFixture? = nil) async throws -> String {
        let reply = try await (fixture ?? club).content("2/files/upload_session/start", ["close": true], body: data)
        XCTAssertEqual(reply.status, 200, reply.text)
        return try XCTUnwrap(reply.json["session_id"] as? String)
    }

    func entry(_ id: String, offset: Int, path: String, mode: Any = "add") -> [String: Any] {
        ["cursor": ["session_id": id, "offset": offset], "commit": ["path": path, "mode": mode, "autorename": false, "mute": false]]
    }

    func batch(_ entries: [[String: Any]], fixture: ServerFixture? = nil, token: String? = nil) async throws -> ServerFixture.Reply {
        try await (fixture ?? club).rpc("2/files/upload_session/finish_batch_v2", ["entries": entries], token: token)
    }

    func testManySessionsCommitInOneCallEachAnswerInPlace() async throws {
        var entries: [[String: Any]] = []
        for index in 0..<25 {
            let data = Data("note \(index)\n".utf8)
            entries.append(entry(try await closedSession(data), offset: data.count, path: "/byteclub/notes/n\(index).md"))
        }
        let reply = try await batch(entries)
        XCTAssertEqual(reply.status, 200, reply.text)
        let results = try XCTUnwrap(reply.json["entries"] as? [[String: Any]])
        XCTAssertEqual(results.count, 25)
        for (index, result) in results.enumerated() {
            XCTAssertEqual(result[".tag"] as? String, "success", "\(result)")
            XCTAssertEqual(result["path_display"] as? String, "/byteclub/notes/n\(index).md")
            XCTAssertEqual(result["content_hash"] as? String, ContentHasher.hash(Data("note \(index)\n".utf8)))
            XCTAssertEqual(club.read("byteclub/notes/n\(index).md"), "note \(index)\n")
        }
        // Committed through the journal: a listing and the revisions know them.
        let listing = try await club.rpc("2/files/list_folder", ["path": "/byteclub/notes"])
        XCTAssertEqual((listing.json["entries"] as? [Any])?.count, 25, listing.text)
        let revisions = try await club.rpc("2/files/list_revisions", ["path": "/byteclub/notes/n3.md"])
        XCTAssertEqual((revisions.json["entries"] as? [Any])?.count, 1, revisions.text)
    }

    func testFailuresSitBesideSuccesses() async throws {
        try await club.upload("/byteclub/taken.md", Data("already here\n".utf8))
        let good = Data("good\n".utf8)
        let first = try await closedSession(good)
        let wrongOffset = try await closedSession(Data("twelve bytes".utf8))
        let conflict = try await closedSession(Data("other\n".utf8))
        let open = try await club.content("2/files/upload_session/start", ["close": false], body: Data("open".utf8))
        let openID = try XCTUnwrap(open.json["session_id"] as? String)
        let last = try await closedSession(good)
        let reply = try await batch([
            entry(first, offset: good.count, path: "/byteclub/a.md"),
            entry(wrongOffset, offset: 5, path: "/byteclub/b.md"),
            entry(conflict, offset: 6, path: "/byteclub/taken.md"),
            entry(openID, offset: 4, path: "/byteclub/open.md"),
            entry("no-such-session", offset: 0, path: "/byteclub/c.md"),
            entry(last, offset: good.count, path: "/byteclub/d.md"),
        ])
        XCTAssertEqual(reply.status, 200, reply.text)
        let results = try XCTUnwrap(reply.json["entries"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0[".tag"] as? String }, ["success", "failure", "failure", "failure", "failure", "success"], reply.text)
        func failure(_ index: Int) -> [String: Any] { results[index]["failure"] as? [String: Any] ?? [:] }
        let lookup = failure(1)["lookup_failed"] as? [String: Any]
        XCTAssertEqual(failure(1)[".tag"] as? String, "lookup_failed")
        XCTAssertEqual(lookup?[".tag"] as? String, "incorrect_offset")
        XCTAssertEqual(lookup?["correct_offset"] as? Int, 12)
        XCTAssertEqual(failure(2)[".tag"] as? String, "path")
        XCTAssertEqual((failure(2)["path"] as? [String: Any])?[".tag"] as? String, "conflict", reply.text)
        XCTAssertEqual((failure(3)["lookup_failed"] as? [String: Any])?[".tag"] as? String, "not_closed", reply.text)
        XCTAssertEqual((failure(4)["lookup_failed"] as? [String: Any])?[".tag"] as? String, "not_found", reply.text)
        XCTAssertEqual(club.read("byteclub/a.md"), "good\n")
        XCTAssertEqual(club.read("byteclub/d.md"), "good\n")
        XCTAssertEqual(club.read("byteclub/taken.md"), "already here\n")
        XCTAssertNil(club.read("byteclub/b.md"))
        // A failed entry's session stays: committed again with the right offset, it lands.
        let again = try await batch([entry(wrongOffset, offset: 12, path: "/byteclub/b.md")])
        XCTAssertEqual((again.json["entries"] as? [[String: Any]])?.first?[".tag"] as? String, "success", again.text)
        XCTAssertEqual(club.read("byteclub/b.md"), "twelve bytes")
    }

    func testAConcurrentSessionCommitsInABatch() async throws {
        let start = try await club.content("2/files/upload_session/start", ["session_type": [".tag": "concurrent"]])
        let id = try XCTUnwrap(start.json["session_id"] as? String)
        let data = Data("the only block, closing\n".utf8)
        let append = try await club.content("2/files/upload_session/append_v2", ["cursor": ["session_id": id, "offset": 0], "close": true], body: data)
        XCTAssertEqual(append.status, 200, append.text)
        let reply = try await batch([entry(id, offset: data.count, path: "/byteclub/concurrent.md")])
        XCTAssertEqual((reply.json["entries"] as? [[String: Any]])?.first?[".tag"] as? String, "success", reply.text)
        XCTAssertEqual(club.read("byteclub/concurrent.md"), "the only block, closing\n")
    }

    /// More entries than one group of commits (``ClubAPI/commitGroupSize``), a concurrent
    /// session among them and two entries for one path: each answered at its position and in the
    /// batch's order (the second of the two conflicts), every commit journaled and kept in its
    /// history, and nothing left in the sessions folder (a closed session needs no marker file).
    func testGroupsOfCommitsKeepTheBatchsOrder() async throws {
        try await club.upload("/byteclub/many/first.md", Data("first\n".utf8))
        let latest = try await club.rpc("2/files/list_folder/get_latest_cursor", ["path": "/byteclub/many"])
        let cursor = try XCTUnwrap(latest.json["cursor"] as? String, latest.text)
        let count = ClubAPI.commitGroupSize * 2 + 5
        let concurrentIndex = ClubAPI.commitGroupSize + 2
        var entries: [[String: Any]] = []
        for index in 0..<count {
            let data = Data("note \(index)\n".utf8)
            let id = [3, 4, concurrentIndex].contains(index) ? "replaced below" : try await closedSession(data)
            entries.append(entry(id, offset: data.count, path: "/byteclub/many/n\(index).md"))
        }
        // The same path twice, in one group: the later one conflicts.
        let twin = Data("twin\n".utf8)
        entries[3] = entry(try await closedSession(twin), offset: twin.count, path: "/byteclub/many/twin.md")
        entries[4] = entry(try await closedSession(twin + twin), offset: 2 * twin.count, path: "/byteclub/many/twin.md")
        // A concurrent session in the second group commits where it stands.
        let start = try await club.content("2/files/upload_session/start", ["session_type": [".tag": "concurrent"]])
        let concurrent = try XCTUnwrap(start.json["session_id"] as? String)
        let block = Data("concurrent\n".utf8)
        let append = try await club.content("2/files/upload_session/append_v2", ["cursor": ["session_id": concurrent, "offset": 0], "close": true],
                                            body: block)
        XCTAssertEqual(append.status, 200, append.text)
        entries[concurrentIndex] = entry(concurrent, offset: block.count, path: "/byteclub/many/n\(concurrentIndex).md")
        let sessions = club.root.appendingPathComponent(".byteclub/sessions").path
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: sessions).contains { $0.hasSuffix(".closed") },
                       "a closed session is marked in its own mode")

        let reply = try await batch(entries)
        XCTAssertEqual(reply.status, 200, reply.text)
        let results = try XCTUnwrap(reply.json["entries"] as? [[String: Any]])
        XCTAssertEqual(results.count, count)
        for (index, result) in results.enumerated() where index != 4 {
            XCTAssertEqual(result[".tag"] as? String, "success", "\(index): \(result)")
        }
        XCTAssertEqual(results[3]["path_display"] as? String, "/byteclub/many/twin.md")
        let conflict = results[4]["failure"] as? [String: Any]
        XCTAssertEqual((conflict?["path"] as? [String: Any])?[".tag"] as? String, "conflict", reply.text)
        XCTAssertEqual(club.read("byteclub/many/twin.md"), "twin\n")
        XCTAssertEqual(club.read("byteclub/many/n\(concurrentIndex).md"), "concurrent\n")
        XCTAssertEqual(club.read("byteclub/many/n\(count - 1).md"), "note \(count - 1)\n")
        // Only the conflicting entry's session stays, to be committed again.
        let left = try FileManager.default.contentsOfDirectory(atPath: sessions).filter { !$0.hasSuffix(".owner") }
        XCTAssertEqual(left.count, 1, "\(left)")

        // Every commit is in the journal: the delta since the cursor names each file once.
        var names: Set<String> = []
        var next = cursor
        while true {
            let page = try await club.rpc("2/files/list_folder/continue", ["cursor": next])
            XCTAssertEqual(page.status, 200, page.text)
            for entry in page.json["entries"] as? [[String: Any]] ?? [] { names.insert(entry["name"] as? String ?? "") }
            next = try XCTUnwrap(page.json["cursor"] as? String)
            if page.json["has_more"] as? Bool != true { break }
        }
        XCTAssertEqual(names.count, count - 1, "\(names.sorted())")
        XCTAssertTrue(names.contains("twin.md"))
        // And each has its history, with its bytes kept: a restore of its first revision works.
        let revisions = try await club.rpc("2/files/list_revisions", ["path": "/byteclub/many/n40.md"])
        let rev = try XCTUnwrap((revisions.json["entries"] as? [[String: Any]])?.first?["rev"] as? String, revisions.text)
        let download = try await club.content("2/files/download", ["path": "rev:" + rev])
        XCTAssertEqual(download.text, "note 40\n")
        let key = try XCTUnwrap(RevisionLog.historyKey(try XCTUnwrap(results[40]["id"] as? String)))
        let copy = ".byteclub/revisions/\(key)/" + ContentHasher.hash(Data("note 40\n".utf8))
        XCTAssertEqual(club.read(copy), "note 40\n", "a note's bytes are copied into its history")
    }

    /// A batch's committed sessions leave their `.owner` markers for the change watcher, which
    /// removes them once the uploads have stopped (no inode is deleted while files arrive), and
    /// they no longer count for their member meanwhile: a new session starts at once.
    func testABatchsOwnerMarkersGoOnceTheUploadsStop() async throws {
        var entries: [[String: Any]] = []
        for index in 0..<3 {
            let data = Data("marker \(index)\n".utf8)
            entries.append(entry(try await closedSession(data), offset: data.count, path: "/byteclub/markers/m\(index).md"))
        }
        let reply = try await batch(entries)
        XCTAssertEqual((reply.json["entries"] as? [[String: Any]])?.compactMap { $0[".tag"] as? String }, ["success", "success", "success"],
                       reply.text)
        let sessions = club.root.appendingPathComponent(".byteclub/sessions").path
        func markers() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: sessions)) ?? []).filter { $0.hasSuffix(".owner") } }
        let deadline = Date().addingTimeInterval(30)
        while !markers().isEmpty {
            guard Date() < deadline else { return XCTFail("markers left 30 s after the batch: \(markers())") }
            try await Task.sleep(for: .milliseconds(50))
        }
        let next = try await closedSession(Data("after\n".utf8))
        XCTAssertEqual(markers(), [next + ".owner"])
    }

    func testMoreThanAThousandEntriesAreRefusedWhole() async throws {
        let id = try await closedSession(Data("x".utf8))
        let entries = (0...ClubAPI.maxBatchEntries).map { entry(id, offset: 1, path: "/byteclub/many/\($0).md") }
        let reply = try await batch(entries)
        XCTAssertEqual(reply.status, 400, reply.text)
        XCTAssertTrue(reply.text.hasPrefix("Error in call to API function"), reply.text)
        XCTAssertTrue(reply.text.contains("1000"), reply.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: club.root.appendingPathComponent("byteclub/many").path))
        // Exactly 1,000 is taken (each entry its answer; the one session lands once).
        let full = try await batch(Array(entries.prefix(ClubAPI.maxBatchEntries)))
        XCTAssertEqual(full.status, 200, full.text)
        let results = try XCTUnwrap(full.json["entries"] as? [[String: Any]])
        XCTAssertEqual(results.count, 1000)
        XCTAssertEqual(results.filter { $0[".tag"] as? String == "success" }.count, 1)
    }

    func testAReadersBatchCommitsNothing() async throws {
        var made: [String: String] = [:]
        let members = try await ServerFixture { configuration in
            configuration.keepsMembers = true
            let registry = MemberRegistry(root: configuration.root)
            for (name, role) in [("rita", MemberRole.reader), ("ed", .editor)] {
                guard let invite = try? registry.invite(name, role: role, hours: 1, server: URL(string: "http://h:1")!, pin: nil, actor: "test"),
                      let (token, _) = try? registry.redeem(secret: invite.secret) else { continue }
                made[name] = token
            }
        }
        let readerToken = try XCTUnwrap(made["rita"])
        let editorToken = try XCTUnwrap(made["ed"])
        // The editor opens the session; the reader tries to commit it.
        let start = try await members.post("2/files/upload_session/start", body: Data("hello\n".utf8), headers: [
            "Dropbox-API-Arg": #"{"close":true}"#, "Content-Type": "application/octet-stream"], token: editorToken)
        let id = try XCTUnwrap(start.json["session_id"] as? String, start.text)
        let refused = try await batch([entry(id, offset: 6, path: "/byteclub/r.md")], fixture: members, token: readerToken)
        XCTAssertEqual(refused.status, 200, refused.text)
        let result = (refused.json["entries"] as? [[String: Any]])?.first
        XCTAssertEqual(result?[".tag"] as? String, "failure", refused.text)
        XCTAssertEqual(((result?["failure"] as? [String: Any])?["path"] as? [String: Any])?[".tag"] as? String, "no_write_permission", refused.text)
        XCTAssertNil(members.read("byteclub/r.md"))
        // The editor's own batch commits it.
        let done = try await batch([entry(id, offset: 6, path: "/byteclub/r.md")], fixture: members, token: editorToken)
        XCTAssertEqual((done.json["entries"] as? [[String: Any]])?.first?[".tag"] as? String, "success", done.text)
        XCTAssertEqual(members.read("byteclub/r.md"), "hello\n")
        await members.tearDown()
    }
}
