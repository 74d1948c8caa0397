import ClubServer
import DropboxWire
import Foundation
import Remote
import Synchronization
import TestSupport
import XCTest

/// The server under a long life (issue 23 §6), over real HTTP: history retention, tombstones per
/// file id, longpolls past their cap, copies that hold up no other commit, and a move whose
/// source is missing.
final class LongLifeTests: XCTestCase {
    var club: ServerFixture!

    override func tearDown() async throws {
        await club?.tearDown()
    }

    @discardableResult
    func save(_ path: String, _ text: String) async throws -> FileMetadata {
        let reply = try await club.upload(path, Data(text.utf8), mode: "overwrite")
        XCTAssertEqual(reply.status, 200, reply.text)
        guard case .file(let file) = try JSONDecoder().decode(Metadata.self, from: reply.body) else { throw CouldNotCheck("not a file: \(reply.text)") }
        return file
    }

    func userMessage(_ reply: ServerFixture.Reply) -> String {
        (reply.json["user_message"] as? [String: Any])?["text"] as? String ?? ""
    }

    /// Rewrites the history of `id` on disk as if its revisions were made `daysAgo` days ago
    /// (the log records when each was made; a server reads it at start).
    func age(_ id: String, revs: Set<String>, daysAgo: Int) throws {
        let log = club.root.appendingPathComponent(".byteclub/revisions/\(id.dropFirst(3))/log")
        let old = Int(Date().timeIntervalSince1970) - daysAgo * 86_400
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map { line -> String in
            guard var object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let rev = object["rev"] as? String, revs.contains(rev) else { return String(line) }
            object["server"] = old
            return String(decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self)
        }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: log)
    }

    // MARK: - Retention

    func testRetentionPrunesOldRevisionsAndDeletedFilesAtStartAndSaysSo() async throws {
        club = try await ServerFixture { $0.historyDays = 30 }
        let v1 = try await save("/r/a.txt", "one")
        let v2 = try await save("/r/a.txt", "two")
        let v3 = try await save("/r/a.txt", "three")
        let gone = try await save("/r/b.txt", "bye")
        let reply1 = try await club.rpc("2/files/delete_v2", ["path": "/r/b.txt"])
        XCTAssertEqual(reply1.status, 200, reply1.text)
        // v1 was replaced (by v2) 40 days ago: past retention. v2 was the file's until v3, just
        // now: kept, however old it is. b.txt was deleted 40 days ago. Aged with no server
        // running: a server still writing its logs (under a loaded CI) wrote over the ages.
        await club.stop()
        try age(v1.id, revs: [v1.rev, v2.rev], daysAgo: 40)
        let tombstones = club.root.appendingPathComponent(".byteclub/revisions/deleted.json")
        var stored = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: tombstones)) as? [String: [String: Any]])
        for key in stored.keys { stored[key]?["deleted"] = Int(Date().timeIntervalSince1970) - 40 * 86_400 }
        try JSONSerialization.data(withJSONObject: stored).write(to: tombstones)

        // Retention runs as the server starts, in turns between requests: wait for it.
        club = try await club.started()
        let revs = try await revisionsOnceSettled("/r/a.txt", count: 2)
        XCTAssertEqual(revs, [v3.rev, v2.rev])

        let restore = try await club.rpc("2/files/restore", ["path": "/r/a.txt", "rev": v1.rev])
        XCTAssertEqual(restore.status, 409, restore.text)
        XCTAssertEqual(restore.summary, "invalid_revision")
        XCTAssertTrue(userMessage(restore).contains("past this club's history retention"), restore.text)
        XCTAssertTrue(userMessage(restore).contains("30 day"), restore.text)
        let download = try await club.content("2/files/download", ["path": "rev:" + v1.rev])
        XCTAssertEqual(download.status, 409, download.text)
        XCTAssertEqual(download.summary, "path/not_found")
        XCTAssertTrue(userMessage(download).contains("/r/a.txt"), download.text)
        let before = try await club.rpc("2/files/list_revisions", ["path": "/r/a.txt", "before_rev": v1.rev])
        XCTAssertEqual(before.summary, "invalid_before_rev", before.text)
        XCTAssertTrue(userMessage(before).contains("retention"), before.text)
        // A rev that never was stays plainly unknown.
        let unknown = try await club.rpc("2/files/restore", ["path": "/r/a.txt", "rev": "0123456789abcdef"])
        XCTAssertEqual(unknown.summary, "invalid_revision")
        XCTAssertEqual(userMessage(unknown), "")

        for argument in [["path": "/r/b.txt"], ["path": gone.id, "mode": "id"]] {
            let deleted = try await club.rpc("2/files/list_revisions", argument)
            XCTAssertEqual(deleted.status, 409, deleted.text)
            XCTAssertEqual(deleted.summary, "path/not_found")
            XCTAssertTrue(userMessage(deleted).contains("was deleted at"), deleted.text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: club.root.appendingPathComponent(".byteclub/revisions/\(gone.id.dropFirst(3))").path),
                       "the expired history's bytes are still on disk")
        // What is kept still works.
        let reply2 = try await club.rpc("2/files/restore", ["path": "/r/a.txt", "rev": v2.rev])
        XCTAssertEqual(reply2.status, 200, reply2.text)
        XCTAssertEqual(club.read("r/a.txt"), "two")
    }

    func testRetentionAlsoRunsWhileTheServerRuns() async throws {
        club = try await ServerFixture { $0.historyDays = 30; $0.historyPruneInterval = .milliseconds(50) }
        let v1 = try await save("/d/a.txt", "one")
        let v2 = try await save("/d/a.txt", "two")
        try age(v1.id, revs: [v1.rev, v2.rev], daysAgo: 31)
        // Another commit makes v2 the replaced one, and v1's replacement is 31 days old.
        let v3 = try await save("/d/a.txt", "three")
        let revs = try await revisionsOnceSettled("/d/a.txt", count: 2)
        XCTAssertEqual(revs, [v3.rev, v2.rev])
    }

    /// The revs of `path`, polled (with a deadline) until there are `count` of them.
    func revisionsOnceSettled(_ path: String, count: Int) async throws -> [String] {
        let deadline = ContinuousClock.now + .seconds(10)
        var revs: [String] = []
        repeat {
            let reply = try await club.rpc("2/files/list_revisions", ["path": path])
            XCTAssertEqual(reply.status, 200, reply.text)
            revs = try JSONDecoder().decode(ListRevisionsResult.self, from: reply.body).entries.map(\.rev)
            if revs.count == count { break }
            try await Task.sleep(for: .milliseconds(20))
        } while ContinuousClock.now < deadline
        return revs
    }

    // MARK: - Tombstones

    /// A file deleted at a path, then another file (moved there, so with an id of its own)
    /// deleted at the same path: both histories stay, by id.
    func testTombstonesAreKeptPerFileID() async throws {
        club = try await ServerFixture()
        let first = try await save("/t/x.txt", "first file")
        let reply3 = try await club.rpc("2/files/delete_v2", ["path": "/t/x.txt"])
        XCTAssertEqual(reply3.status, 200, reply3.text)
        let second = try await save("/t/y.txt", "second file")
        let reply4 = try await club.rpc("2/files/move_v2", ["from_path": "/t/y.txt", "to_path": "/t/x.txt"])
        XCTAssertEqual(reply4.status, 200, reply4.text)
        let reply5 = try await club.rpc("2/files/delete_v2", ["path": "/t/x.txt"])
        XCTAssertEqual(reply5.status, 200, reply5.text)
        XCTAssertNotEqual(first.id, second.id)

        let byFirstID = try await club.rpc("2/files/list_revisions", ["path": first.id, "mode": "id"])
        XCTAssertEqual(byFirstID.status, 200, byFirstID.text)
        let firstHistory = try JSONDecoder().decode(ListRevisionsResult.self, from: byFirstID.body)
        XCTAssertTrue(firstHistory.isDeleted)
        XCTAssertEqual(firstHistory.entries.map(\.rev), [first.rev])
        // The path names the file deleted there last.
        let byPath = try await club.rpc("2/files/list_revisions", ["path": "/t/x.txt"])
        XCTAssertEqual(try JSONDecoder().decode(ListRevisionsResult.self, from: byPath.body).entries.first?.id, second.id, byPath.text)

        // Restored by id, the first file comes back with its own id and bytes, and keeps them
        // across a restart.
        let restored = try await club.rpc("2/files/restore", ["path": first.id, "rev": first.rev])
        XCTAssertEqual(restored.status, 200, restored.text)
        XCTAssertEqual(restored.json["id"] as? String, first.id)
        XCTAssertEqual(club.read("t/x.txt"), "first file")
        club = try await club.restart()
        let secondStill = try await club.rpc("2/files/list_revisions", ["path": second.id, "mode": "id"])
        XCTAssertEqual(secondStill.status, 200, secondStill.text)
        XCTAssertTrue(try JSONDecoder().decode(ListRevisionsResult.self, from: secondStill.body).isDeleted)
        // The second one's path is taken now: restoring it is a conflict, and harms nothing.
        let conflict = try await club.rpc("2/files/restore", ["path": second.id, "rev": second.rev])
        XCTAssertEqual(conflict.summary, "path_write/conflict/file", conflict.text)
        XCTAssertEqual(club.read("t/x.txt"), "first file")
    }

    // MARK: - Longpolls

    func testLongpollsPastTheCapGetABackoffAndMissNoChange() async throws {
        // A waiting longpoll lasts 480 units: 120 s, so the two that wait are still waiting when
        // the change comes, however slowly a loaded machine gets there (at 10 ms a unit, 4.8 s:
        // a CI run took longer to reach the upload, and the first longpoll had ended with no
        // change, as a longpoll must). Each wait below ends with the change, never by its time.
        club = try await ServerFixture { $0.longpollTimeUnit = .milliseconds(250); $0.maxLongpolls = 2 }
        let cursor = try await club.latestCursor("")
        let club = self.club!
        func longpoll(_ cursor: String) async throws -> ServerFixture.Reply {
            try await club.rpc("2/files/list_folder/longpoll", ["cursor": cursor, "timeout": 480], token: "")
        }
        func waiting(_ cursor: String, count: Int) async throws -> Task<ServerFixture.Reply, any Error> {
            let task = Task { try await longpoll(cursor) }
            let deadline = ContinuousClock.now + .seconds(3)
            while club.server.waitingLongpolls < count, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            XCTAssertEqual(club.server.waitingLongpolls, count, "the longpoll never started waiting")
            return task
        }
        let first = try await waiting(cursor, count: 1)
        let second = try await waiting(cursor, count: 2)
        // The third is answered at once (a wait would last 120 s), and disturbs no one.
        let start = ContinuousClock.now
        let backedOff = try await longpoll(cursor)
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(2))
        XCTAssertEqual(backedOff.json["changes"] as? Bool, false, backedOff.text)
        XCTAssertEqual(backedOff.json["backoff"] as? Int, 10, backedOff.text)
        XCTAssertEqual(club.server.waitingLongpolls, 2)

        try await club.upload("/news.txt", Data("n".utf8))
        for task in [first, second] {
            let reply = try await task.value
            XCTAssertEqual(reply.json["changes"] as? Bool, true, reply.text)
        }
        // With the cap full again, the backed-off client comes back with its cursor: the change
        // made during its backoff is news, answered at once, not another backoff.
        let fresh = try await club.latestCursor("")
        let third = try await waiting(fresh, count: 1)
        let fourth = try await waiting(fresh, count: 2)
        let back = try await longpoll(cursor)
        XCTAssertEqual(back.json as NSDictionary, ["changes": true] as NSDictionary, back.text)
        let delta = try await club.changes(cursor)
        XCTAssertEqual(delta.paths, ["/news.txt"])
        try await club.upload("/more.txt", Data("m".utf8))
        for task in [third, fourth] {
            let reply = try await task.value
            XCTAssertEqual(reply.json["changes"] as? Bool, true, reply.text)
        }
    }

    // MARK: - Copies

    /// Whether this disk can reflink (`FICLONE`) files in the club's temp folder.
    func diskCanReflink() throws -> Bool {
        let folder = club.root.appendingPathComponent(".byteclub/tmp")
        let a = folder.appendingPathComponent("probe-a"), b = folder.appendingPathComponent("probe-b")
        try Data("probe".utf8).write(to: a)
        defer { unlink(a.path); unlink(b.path) }
        let input = open(a.path, O_RDONLY), output = open(b.path, O_WRONLY | O_CREAT, 0o600)
        defer { close(input); close(output) }
        return ioctl(output, UInt(0x4004_9409), input) == 0
    }

    /// While a big copy writes its bytes, the folder's actor answers others: a `get_metadata`
    /// (which needs the actor, as every commit does) comes back before the copy is done.
    func testACopyHoldsUpNoOtherRequest() async throws {
        club = try await ServerFixture()  // 1 GiB is below maxFileBytes: a stream copy
        try await save("/c/small.txt", "small")
        // 1 GiB, sparse: cheap to make, and a full copy still writes (and fsyncs) every byte. At
        // 256 MiB, five test processes side by side once saw the copy end before the answer.
        let big = club.root.appendingPathComponent("c/big.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: big.path, contents: nil))
        XCTAssertEqual(truncate(big.path, 1 << 30), 0)
        let temp = club.root.appendingPathComponent(".byteclub/tmp")
        let finished = Atomic<Bool>(false)
        let club = self.club!
        let copy = Task {
            defer { finished.store(true, ordering: .sequentiallyConsistent) }
            return try await club.rpc("2/files/copy_v2", ["from_path": "/c/big.bin", "to_path": "/c/copy.bin"])
        }
        // Wait until the copy is under way: its temp file exists.
        let deadline = ContinuousClock.now + .seconds(10)
        func copying() -> Bool {
            ((try? FileManager.default.contentsOfDirectory(atPath: temp.path)) ?? []).contains { $0.hasPrefix("copy-") }
        }
        while !copying(), !finished.load(ordering: .sequentiallyConsistent), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(1))
        }
        if try diskCanReflink() {
            // A reflink is instant: there is no long copy to overlap with.
            let reply = try await copy.value
            XCTAssertEqual(reply.status, 200, reply.text)
            return
        }
        XCTAssertFalse(finished.load(ordering: .sequentiallyConsistent), "the copy was over before it was seen")
        let metadata = try await club.rpc("2/files/get_metadata", ["path": "/c/small.txt"])
        XCTAssertEqual(metadata.status, 200, metadata.text)
        XCTAssertFalse(finished.load(ordering: .sequentiallyConsistent), "get_metadata waited for the copy")
        let reply = try await copy.value
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual((reply.json["metadata"] as? [String: Any])?["size"] as? Int, 1 << 30)
        var info = stat()
        XCTAssertEqual(stat(club.root.appendingPathComponent("c/copy.bin").path, &info), 0)
        XCTAssertEqual(Int(info.st_size), 1 << 30)
    }

    /// Without reflinks a copy writes every byte, so it is bounded as an upload is, and says so.
    func testACopyTooBigToStreamIsRefusedClearly() async throws {
        club = try await ServerFixture { $0.maxFileBytes = 1 << 20 }
        try club.write("c/two.bin", String(repeating: "x", count: 2 << 20))
        try club.write("c/folder/inner.bin", String(repeating: "y", count: 2 << 20))
        let reflinks = try diskCanReflink()
        for (from, to) in [("/c/two.bin", "/c/copy.bin"), ("/c/folder", "/c/folder copy")] {
            let reply = try await club.rpc("2/files/copy_v2", ["from_path": from, "to_path": to])
            if reflinks {
                XCTAssertEqual(reply.status, 200, reply.text)
                continue
            }
            XCTAssertEqual(reply.status, 409, reply.text)
            XCTAssertEqual(reply.summary, "insufficient_quota")
            XCTAssertTrue(userMessage(reply).contains("at most 1 MiB"), reply.text)
            XCTAssertFalse(FileManager.default.fileExists(atPath: club.root.appendingPathComponent(String(to.dropFirst())).path), to)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: club.root.appendingPathComponent(".byteclub/tmp").path)
        XCTAssertEqual(leftovers.filter { $0.hasPrefix("copy-") }, [])
        // Small files still copy.
        try await save("/c/small.txt", "small")
        let reply6 = try await club.rpc("2/files/copy_v2", ["from_path": "/c/small.txt", "to_path": "/c/small copy.txt"])
        XCTAssertEqual(reply6.status, 200, reply6.text)
        XCTAssertEqual(club.read("c/small copy.txt"), "small")
    }

    /// `byteclub serve --max-longpolls` and `--history-days` reach the server; bad values are
    /// refused before it starts.
    func testServeTakesTheLongLifeOptions() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("long-life-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let server = try ServeChild(root: base.appendingPathComponent("club"), extraArguments: ["--max-longpolls", "1", "--history-days", "7"])
        let client = server.client
        let latest = try await client.rpc("2/files/list_folder/get_latest_cursor", #"{"path":""}"#)
        let cursor = try XCTUnwrap(latest.json["cursor"] as? String, latest.text)
        let body = #"{"cursor":"\#(cursor)","timeout":30}"#
        // Two longpolls with a cap of 1: one waits, the other is answered at once with a
        // backoff (whichever the server saw second); a commit then wakes the waiting one.
        try await withThrowingTaskGroup(of: ServerFixture.Reply.self) { group in
            for _ in 0..<2 { group.addTask { try await client.rpc("2/files/list_folder/longpoll", body) } }
            let backedOff = try await group.next()
            XCTAssertEqual(backedOff?.json["backoff"] as? Int, 10, backedOff?.text ?? "")
            XCTAssertEqual(backedOff?.json["changes"] as? Bool, false)
            let upload = try await client.content("2/files/upload", #"{"path":"/wake.txt"}"#, body: Data("w".utf8))
            XCTAssertEqual(upload.status, 200, upload.text)
            let woken = try await group.next()
            XCTAssertEqual(woken?.json["changes"] as? Bool, true, woken?.text ?? "")
        }
        XCTAssertTrue(server.terminate(within: 10))

        let executable = try Requirement.byteclub()
        for (arguments, message) in [(["--max-longpolls", "0"], "--max-longpolls"), (["--history-days", "-1"], "--history-days")] {
            let process = Process()
            process.executableURL = executable
            process.arguments = ["serve", "--insecure-http", "--root", base.path, "--port", "0"] + arguments
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertNotEqual(process.terminationStatus, 0, arguments.joined(separator: " "))
            XCTAssertTrue(text.contains(message), text)
        }
    }

    // MARK: - Moves

    func testMoveWithAMissingSourceNamesThatPath() async throws {
        club = try await ServerFixture()
        let store = DropboxStore(displayName: "test", endpoints: .club(club.server.baseURL), tokens: StaticToken(club.token), configuration: .ephemeral)
        do {
            _ = try await store.move(from: "/nowhere/missing.txt", to: "/elsewhere/b.txt", autorename: false)
            XCTFail("a missing file was moved")
        } catch {
            XCTAssertEqual(error, .notFound("/nowhere/missing.txt"))
            XCTAssertTrue(error.description.contains("/nowhere/missing.txt"), error.description)
        }
    }
}
