@testable import ClubServer
import DropboxWire
import Foundation
import XCTest

/// Two servers over one club folder, as the app's embedded server and the background agent's
/// are: starting one never removes the temporary files of an upload the other is receiving.
final class TwoServersOneFolderTests: XCTestCase {
    func testStartingASecondServerLeavesTheFirstOnesUploadInFlight() async throws {
        let club = try await ServerFixture()
        var generator = SystemRandomNumberGenerator()
        let body = Data((0..<400_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let head = "POST /2/files/upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(club.token)\r\n"
            + "Dropbox-API-Arg: {\"path\":\"/byteclub/inflight.bin\",\"mode\":\"add\"}\r\n"
            + "Content-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\n\r\n"
        let socket = try TestSocket(port: club.server.port)
        let half = body.count / 2
        try await TestSocket.onThread { try socket.send(Data(head.utf8) + body.prefix(half)) }

        // The first server is inside the body: its temp file has bytes.
        let temp = club.root.appendingPathComponent(".byteclub/tmp")
        func receiving() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: temp.path)) ?? []).filter { name in
                let size = (try? FileManager.default.attributesOfItem(atPath: temp.appendingPathComponent(name).path)[.size] as? NSNumber)?.intValue
                return name.hasPrefix("upload-") && (size ?? 0) > 0
            }
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while receiving().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        let inFlight = receiving()
        XCTAssertEqual(inFlight.count, 1, "the upload never reached the first server's temp folder")

        // A second server over the same folder starts, and clears nothing the first is writing.
        let second = try await ClubServer.start(club.configuration)
        XCTAssertEqual(receiving(), inFlight, "the second server removed the first one's upload in flight")

        try await TestSocket.onThread { try socket.send(body.suffix(from: half)) }
        let answer = try await TestSocket.onThread { try socket.readAnswer(timeout: 20) }
        XCTAssertEqual(answer.status, 200, String(decoding: answer.body, as: UTF8.self))
        XCTAssertEqual(try Data(contentsOf: club.root.appendingPathComponent("byteclub/inflight.bin")), body)

        // Once neither runs, what is left in tmp/ is a leftover, and the next server clears it.
        let leftover = temp.appendingPathComponent("upload-leftover")
        try Data("half".utf8).write(to: leftover)
        await second.stop()
        let third = try await club.restart()
        XCTAssertFalse(FileManager.default.fileExists(atPath: leftover.path), "a server alone clears the leftovers")
        await third.tearDown()
    }

    /// Issue 68, item 4: a revision another server over the folder recorded (a command's own
    /// server over the embedded club, a second `serve`) was recorded again by this one, by
    /// nobody, the next time it looked (its cached newest record was older): `log` listed one rev
    /// twice, once with `modified_by` null. Each revision is listed once now, whichever server made it.
    func testARevisionTheOtherServerMadeIsListedOnce() async throws {
        let club = try await ServerFixture()
        let path = "/byteclub/Plans.md"
        func revs(on fixture: ServerFixture) async throws -> [String] {
            let reply = try await fixture.rpc("2/files/list_revisions", ["path": path, "limit": 10])
            XCTAssertEqual(reply.status, 200, reply.text)
            return (reply.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["rev"] as? String }
        }
        let first = try await club.upload(path, Data("Day 1\n".utf8))
        let firstRev = try XCTUnwrap(first.json["rev"] as? String, first.text)
        let listed = try await revs(on: club)
        XCTAssertEqual(listed, [firstRev])

        let other = try await club.beside()
        let second = try await other.upload(path, Data("Day 1\nDay 2\n".utf8), mode: ["update": firstRev, ".tag": "update"])
        let secondRev = try XCTUnwrap(second.json["rev"] as? String, second.text)
        let here = try await revs(on: club)
        let there = try await revs(on: other)
        await other.stop()
        await club.tearDown()
        XCTAssertEqual(here, [secondRev, firstRev], "each revision once on this server")
        XCTAssertEqual(there, [secondRev, firstRev], "and on the one that made it")
    }

    /// Two `byteclub serve` processes over one folder, each writing: the change journal,
    /// `ids.json` and `content-hashes` end up holding both servers' work (once, the last writer's
    /// whole memory won, and the journal held one number twice).
    func testTwoServeProcessesKeepEachOthersJournalIdsAndHashes() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("two-serve-\(UUID().uuidString)")
        let root = base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: base) }
        let first = try ServeChild(root: root)
        let second = try ServeChild(root: root)
        var contents: [String: Data] = [:]
        for index in 0..<5 {
            for (server, folder) in [(first, "a"), (second, "b")] {
                let path = "/byteclub/\(folder)/n\(index).txt"
                let data = Data("note \(index) of \(folder)\n".utf8)
                contents[path] = data
                let reply = try await server.content("2/files/upload", #"{"path":"\#(path)","mode":"add"}"#, body: data)
                XCTAssertEqual(reply.status, 200, reply.text)
            }
        }
        // Each lists only its own folder: its ids and hashes are in its memory alone.
        var answered: [String: String] = [:]
        for (server, folder) in [(first, "a"), (second, "b")] {
            let listing = try await server.rpc("2/files/list_folder", #"{"path":"/byteclub/\#(folder)"}"#)
            XCTAssertEqual(listing.status, 200, listing.text)
            for entry in listing.json["entries"] as? [[String: Any]] ?? [] {
                if let path = entry["path_display"] as? String, let id = entry["id"] as? String { answered[path] = id }
            }
        }
        XCTAssertEqual(Set(answered.keys), Set(contents.keys))
        let meta = root.appendingPathComponent(".byteclub")
        let ids = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: meta.appendingPathComponent("ids.json")))
        for (path, id) in answered {
            XCTAssertEqual(ids[path.lowercased()], id, "ids.json lost the id \(path) was given")
        }
        let hashes = Set(String(decoding: try Data(contentsOf: meta.appendingPathComponent("content-hashes")), as: UTF8.self)
            .split(separator: "\n").compactMap { $0.split(separator: " ").last.map(String.init) })
        for (path, data) in contents {
            XCTAssertTrue(hashes.contains(ContentHasher.hash(data)), "content-hashes lost the hash of \(path)")
        }
        // The journal: numbers strictly increasing, every upload in it, as a restart reads it.
        let lines = String(decoding: try Data(contentsOf: meta.appendingPathComponent("journal")), as: UTF8.self).split(separator: "\n").dropFirst()
        let numbers = lines.compactMap { UInt64($0.split(separator: " ").first ?? "") }
        XCTAssertEqual(numbers.count, lines.count)
        XCTAssertEqual(numbers, numbers.sorted(), "journal numbers out of order")
        XCTAssertEqual(Set(numbers).count, numbers.count, "a journal number taken twice")
        let journalled = Set(lines.map { String($0.split(separator: " ", maxSplits: 2).last ?? "") })
        XCTAssertTrue(journalled.isSuperset(of: contents.keys), "missing from the journal: \(Set(contents.keys).subtracting(journalled))")
        // And a cursor of one server continues on the other: they share one numbering (once,
        // the second's numbers lagged the first's, and its answer was `reset` or nothing).
        let cursor = try await first.rpc("2/files/list_folder/get_latest_cursor", #"{"path":"/byteclub","recursive":true}"#)
        let token = try XCTUnwrap(cursor.json["cursor"] as? String, cursor.text)
        let upload = try await second.content("2/files/upload", #"{"path":"/byteclub/late.txt","mode":"add"}"#, body: Data("late".utf8))
        XCTAssertEqual(upload.status, 200, upload.text)
        let delta = try await second.rpc("2/files/list_folder/continue", #"{"cursor":"\#(token)"}"#)
        XCTAssertEqual(delta.status, 200, delta.text)
        let names = (delta.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertTrue(names.contains("late.txt"), "the first server's cursor, on the second, missed its upload: \(delta.text)")
    }

    /// Issue 53 §10: `byteclub tag` on the embedded club runs a server of its own over the folder.
    /// A tag it writes wakes the app's server's longpoll within a tick of its change watcher
    /// (a tag writes no file its rescan would see), the delta names the note, and the app's
    /// server answers the new tag (it had read the tags before, and kept them). A tag each
    /// server adds to one note meanwhile keeps both: neither writes its old book over the other.
    func testATagTheOtherServerWritesWakesThisOnesLongpollAndIsItsAnswer() async throws {
        // A longpoll's second is 200 ms: `timeout: 30` gives up after 6 s, where a tick is 1 s.
        let club = try await ServerFixture { $0.longpollTimeUnit = .milliseconds(200) }
        try await club.upload("/byteclub/Plans.md", Data("Friday\n".utf8))
        // This server lists the note (its id goes to ids.json) and reads its tags, as the app does at start.
        _ = try await club.listAll("/byteclub", recursive: true)
        let before = try await club.rpc("2/files/tags/get", ["paths": ["/byteclub/Plans.md"]])
        XCTAssertEqual(before.status, 200, before.text)
        XCTAssertFalse(before.text.contains("trip"), before.text)
        let other = try await club.beside()

        let cursor = try await club.latestCursor("/byteclub", recursive: true)
        let waitingBefore = club.server.waitingLongpolls
        let longpoll = Task {
            let start = ContinuousClock.now
            let reply = try await club.rpc("2/files/list_folder/longpoll", ["cursor": cursor, "timeout": 30], token: "")
            return (reply, ContinuousClock.now - start)
        }
        let deadline = ContinuousClock.now + .seconds(3)
        while club.server.waitingLongpolls <= waitingBefore, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        XCTAssertGreaterThan(club.server.waitingLongpolls, waitingBefore, "the longpoll never started waiting")

        let added = try await other.rpc("2/files/tags/add", ["path": "/byteclub/Plans.md", "tag_text": "trip"])
        XCTAssertEqual(added.status, 200, added.text)
        let (reply, elapsed) = try await longpoll.value
        XCTAssertEqual(reply.json["changes"] as? Bool, true, "the other server's tag never woke this one's longpoll: \(reply.text)")
        XCTAssertLessThan(elapsed, .seconds(4), "woken at the change watcher's tick, not at the timeout")
        let delta = try await club.changes(cursor)
        XCTAssertEqual(delta.paths, ["/byteclub/plans.md"])
        let after = try await club.rpc("2/files/tags/get", ["paths": ["/byteclub/Plans.md"]])
        XCTAssertEqual(after.status, 200, after.text)
        XCTAssertTrue(after.text.contains("\"tag_text\":\"trip\""), "this server answers the tag the other wrote: \(after.text)")

        // One more each, on the same note: both kept, on both servers.
        let mine = try await club.rpc("2/files/tags/add", ["path": "/byteclub/Plans.md", "tag_text": "boat"])
        XCTAssertEqual(mine.status, 200, mine.text)
        let theirs = try await other.rpc("2/files/tags/add", ["path": "/byteclub/Plans.md", "tag_text": "sea"])
        XCTAssertEqual(theirs.status, 200, theirs.text)
        for server in [club, other] {
            let reply = try await server.rpc("2/files/tags/get", ["paths": ["/byteclub/Plans.md"]])
            let texts = ((reply.json["paths_to_tags"] as? [[String: Any]])?.first?["tags"] as? [[String: Any]] ?? []).compactMap { $0["tag_text"] as? String }
            XCTAssertEqual(texts, ["trip", "boat", "sea"], reply.text)
        }
        await other.stop()
        await club.tearDown()
    }
}
