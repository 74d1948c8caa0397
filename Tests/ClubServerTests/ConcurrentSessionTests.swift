import ClubServer
import DropboxWire
import Foundation
import XCTest

/// Concurrent upload sessions over HTTP, as Dropbox has them: blocks of 4 MiB in any order,
/// the closing append of any length, refusals in the spec's words, a block sent twice taken.
final class ConcurrentSessionTests: XCTestCase {
    var club: ServerFixture!
    let block = 4 << 20

    override func setUp() async throws {
        club = try await ServerFixture()
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    /// Three blocks and a short tail of distinct bytes, made fast.
    func content() -> Data {
        var data = Data(count: 3 * block + 1000)
        data.withUnsafeMutableBytes { bytes in
            for index in stride(from: 0, to: bytes.count, by: 4096) { bytes[index] = UInt8(truncatingIfNeeded: index / 4096 + 1) }
        }
        return data
    }

    func start() async throws -> String {
        let reply = try await club.content("2/files/upload_session/start", ["close": false, "session_type": [".tag": "concurrent"]])
        XCTAssertEqual(reply.status, 200, reply.text)
        return try XCTUnwrap(reply.json["session_id"] as? String)
    }

    func append(_ id: String, _ data: Data, at offset: Int, length: Int? = nil, close: Bool = false) async throws -> ServerFixture.Reply {
        let end = min(data.count, offset + (length ?? block))
        return try await club.content("2/files/upload_session/append_v2", ["cursor": ["session_id": id, "offset": offset], "close": close],
                                      body: data.subdata(in: offset..<end))
    }

    func finish(_ id: String, offset: Int, hash: String? = nil, path: String = "/byteclub/big.bin") async throws -> ServerFixture.Reply {
        var argument: [String: Any] = ["cursor": ["session_id": id, "offset": offset], "commit": ["path": path, "mode": "add"]]
        if let hash { argument["content_hash"] = hash }
        return try await club.content("2/files/upload_session/finish", argument)
    }

    func testOutOfOrderAppendsCommitTheWholeFile() async throws {
        let data = content()
        let id = try await start()
        // The closing tail first, then the blocks backwards.
        let tail = try await append(id, data, at: 3 * block, length: 1000, close: true)
        XCTAssertEqual(tail.status, 200, tail.text)
        for offset in [2 * block, 0, block] {
            let reply = try await append(id, data, at: offset)
            XCTAssertEqual(reply.status, 200, reply.text)
        }
        // The finish's content_hash covers this call's bytes, none in a concurrent session.
        let done = try await finish(id, offset: data.count, hash: ContentHasher.hash(Data()))
        XCTAssertEqual(done.status, 200, done.text)
        XCTAssertEqual(done.json["content_hash"] as? String, ContentHasher.hash(data))
        XCTAssertEqual(done.json["size"] as? Int, data.count)
        XCTAssertEqual(FileManager.default.contents(atPath: club.root.appendingPathComponent("byteclub/big.bin").path), data)
    }

    func testUnalignedAppendsAreRefused() async throws {
        let data = content()
        let id = try await start()
        let offset = try await append(id, data, at: 1000)
        XCTAssertEqual(offset.status, 409, offset.text)
        XCTAssertEqual(offset.summary, "concurrent_session_invalid_offset")
        let size = try await append(id, data, at: 0, length: 1000)
        XCTAssertEqual(size.status, 409, size.text)
        XCTAssertEqual(size.summary, "concurrent_session_invalid_data_size")
        // Data on a concurrent start has no offset to go to.
        let withData = try await club.content("2/files/upload_session/start", ["session_type": "concurrent"], body: Data("x".utf8))
        XCTAssertEqual(withData.summary, "concurrent_session_data_not_allowed", withData.text)
    }

    func testFinishRefusesAGapAndAnOpenSession() async throws {
        let data = content()
        let id = try await start()
        _ = try await append(id, data, at: 0)
        let open = try await finish(id, offset: data.count)
        XCTAssertEqual(open.summary, "concurrent_session_not_closed", open.text)
        _ = try await append(id, data, at: 2 * block)
        let tail = try await append(id, data, at: 3 * block, length: 1000, close: true)
        XCTAssertEqual(tail.status, 200, tail.text)
        let gap = try await finish(id, offset: data.count)
        XCTAssertEqual(gap.status, 409, gap.text)
        XCTAssertEqual(gap.summary, "concurrent_session_missing_data")
        XCTAssertNil(club.read("byteclub/big.bin"), "nothing is committed with a gap")
        // The gap filled, the same session finishes; a wrong hash is refused first. The hash
        // is of this call's bytes (none), so even the whole file's is wrong here.
        _ = try await append(id, data, at: block)
        let wrong = try await finish(id, offset: data.count, hash: ContentHasher.hash(data))
        XCTAssertEqual(wrong.summary, "content_hash_mismatch", wrong.text)
        let done = try await finish(id, offset: data.count)
        XCTAssertEqual(done.status, 200, done.text)
        XCTAssertEqual(FileManager.default.contents(atPath: club.root.appendingPathComponent("byteclub/big.bin").path), data)
    }

    func testABlockSentTwiceIsTaken() async throws {
        let data = content()
        let id = try await start()
        // A first try cut short leaves bytes but no claim; the re-send writes them again.
        for offset in [0, block, block, 2 * block, 0] {
            let reply = try await append(id, data, at: offset)
            XCTAssertEqual(reply.status, 200, reply.text)
        }
        for _ in 0..<2 {
            let tail = try await append(id, data, at: 3 * block, length: 1000, close: true)
            XCTAssertEqual(tail.status, 200, tail.text)
        }
        // A different end after the close is not the same block again.
        let longer = try await club.content("2/files/upload_session/append_v2", ["cursor": ["session_id": id, "offset": 3 * block], "close": true],
                                            body: Data(count: 2000))
        XCTAssertEqual(longer.summary, "closed", longer.text)
        let done = try await finish(id, offset: data.count)
        XCTAssertEqual(done.status, 200, done.text)
        XCTAssertEqual(FileManager.default.contents(atPath: club.root.appendingPathComponent("byteclub/big.bin").path), data)
        let sessions = try FileManager.default.contentsOfDirectory(atPath: club.root.appendingPathComponent(".byteclub/sessions").path)
        XCTAssertEqual(sessions, [], "the session and its ledger are gone once committed")
    }
}
