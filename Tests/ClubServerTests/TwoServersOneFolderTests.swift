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
}
