import ClubServer
import DropboxWire
import Foundation
import Remote
import TestSupport
import XCTest

/// Content hashes are kept across server restarts in `.byteclub/content-hashes`, and a file
/// changed while the server was down is hashed again, never served with its old hash.
final class HashCacheTests: XCTestCase {
    var base: URL!

    override func setUpWithError() throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("hash-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: base)
    }

    /// Lists /byteclub on a server started for the call, by name → content_hash.
    func listHashes() async throws -> [String: String] {
        var configuration = ClubServerConfiguration(root: base.path, token: "t")
        configuration.logger.logLevel = .error
        let server = try await ClubServer.start(configuration)
        let store = DropboxStore(displayName: "test", endpoints: .club(server.baseURL), tokens: StaticToken("t"), configuration: .ephemeral)
        let entries = try await store.list("/byteclub")
        await server.stop()
        return Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.contentHash ?? "") })
    }

    func testHashesSurviveARestartAndChangedFilesAreHashedAgain() async throws {
        let notes = base.appendingPathComponent("byteclub")
        for i in 0..<20 { try Data("note \(i)\n".utf8).write(to: notes.appendingPathComponent("n\(i).txt")) }
        let first = try await listHashes()
        XCTAssertEqual(first["n3.txt"], try DropboxWire.ContentHasher.hash(fileAt: notes.appendingPathComponent("n3.txt").path))
        let cacheFile = base.appendingPathComponent(".byteclub/content-hashes")
        let lines = try String(contentsOf: cacheFile, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 20)

        // Changed in place (same inode) while the server is down, plus a damaged cache line.
        let handle = try FileHandle(forWritingTo: notes.appendingPathComponent("n3.txt"))
        try handle.write(contentsOf: Data("changed behind the server's back\n".utf8))
        try handle.close()
        try (String(contentsOf: cacheFile, encoding: .utf8) + "garbage line\n1 2 3\n").write(to: cacheFile, atomically: true, encoding: .utf8)

        let second = try await listHashes()
        XCTAssertEqual(second["n3.txt"], try DropboxWire.ContentHasher.hash(fileAt: notes.appendingPathComponent("n3.txt").path))
        XCTAssertNotEqual(second["n3.txt"], first["n3.txt"])
        XCTAssertEqual(second["n4.txt"], first["n4.txt"])
    }

    /// Change pages write the book at most every 2 s (an open app asks one per commit of a
    /// `put -r`), and the hashes they put off are written about 2 s after the last of them.
    func testChangePagesPutTheBooksWriteOffButNotForever() async throws {
        var configuration = ClubServerConfiguration(root: base.path, token: "t")
        configuration.logger.logLevel = .error
        let server = try await ClubServer.start(configuration)
        let store = DropboxStore(displayName: "test", endpoints: .club(server.baseURL), tokens: StaticToken("t"), configuration: .ephemeral)
        let cursor = try await store.latestCursor("/byteclub", recursive: true)
        let cacheFile = base.appendingPathComponent(".byteclub/content-hashes")
        func lines() -> Int { ((try? String(contentsOf: cacheFile, encoding: .utf8)) ?? "").split(separator: "\n").count }
        var writes = Set<Date>()
        var current = cursor
        for i in 0..<12 {
            _ = try await store.upload(data: Data("note \(i)\n".utf8), to: "/byteclub/n\(i).md", mode: .add, autorename: false)
            current = try await store.listChanges(since: current).cursor
            if let written = try? FileManager.default.attributesOfItem(atPath: cacheFile.path)[.modificationDate] as? Date { writes.insert(written) }
        }
        XCTAssertLessThan(writes.count, 12, "not a write of the whole book per change page")
        // The last pages' hashes reach the file soon after, with no further request.
        let deadline = Date().addingTimeInterval(10)
        while lines() < 12, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        XCTAssertEqual(lines(), 12)
        await server.stop()
    }

    func testAFileDatedAfter2262IsListedAndHashed() async throws {
        // More nanoseconds since 1970 than an Int64 holds: the hash cache's key once trapped.
        let file = base.appendingPathComponent("byteclub/future.txt")
        try Data("from the future\n".utf8).write(to: file)
        let future = DropboxTimestamp.parse("2300-01-01T00:00:00Z")!
        try FileManager.default.setAttributes([.modificationDate: future], ofItemAtPath: file.path)
        var info = stat()
        XCTAssertEqual(stat(file.path, &info), 0)
        try Requirement.machine(info.st_mtim.tv_sec > Int(Int64.max / 1_000_000_000), "this file system does not keep a time after 2262")
        let hashes = try await listHashes()
        XCTAssertEqual(hashes["future.txt"], DropboxWire.ContentHasher.hash(Data("from the future\n".utf8)))
    }
}

/// A stopped server frees its port at once, even with a client's keep-alive connection open.
final class RestartTests: XCTestCase {
    func testAServerRestartsOnTheSamePort() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("restart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        var configuration = ClubServerConfiguration(root: root.path, token: "t")
        configuration.logger.logLevel = .error
        let first = try await ClubServer.start(configuration)
        let store = DropboxStore(displayName: "test", endpoints: .club(first.baseURL), tokens: StaticToken("t"), configuration: .ephemeral)
        _ = try await store.list("/byteclub")
        await first.stop()
        configuration.port = first.port
        let second = try await ClubServer.start(configuration)
        XCTAssertEqual(second.port, first.port)
        _ = try await store.list("/byteclub")
        await second.stop()
    }
}
