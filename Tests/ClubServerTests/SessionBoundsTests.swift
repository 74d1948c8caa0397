import DropboxWire
import Foundation
import XCTest

/// Upload-session offsets and lengths a client makes up: an offset that overflows when a block
/// is added to it once trapped `byteclub serve`; offsets past the largest file a session can make
/// left sparse files of terabytes. Each is refused with the spec's `too_large`.
final class SessionBoundsTests: XCTestCase {
    let block = 4 << 20
    /// 2^63 - 4 MiB: block-aligned, and a block past it is past Int64.max.
    let overflowingOffset: Int64 = 9_223_372_036_850_581_504

    func testAnOverflowingAppendIsRefusedAndTheServerStillAnswers() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("club-bounds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        let server = try ServeChild(root: root)
        let start = try await server.content("2/files/upload_session/start", #"{"session_type":"concurrent"}"#)
        XCTAssertEqual(start.status, 200, start.text)
        let id = try XCTUnwrap(start.json["session_id"] as? String)

        let append = try await server.content("2/files/upload_session/append_v2",
                                              #"{"cursor":{"session_id":"\#(id)","offset":\#(overflowingOffset)},"close":true}"#,
                                              body: Data(count: block))
        XCTAssertEqual(append.status, 409, append.text)
        XCTAssertEqual(append.summary, "too_large", append.text)
        XCTAssertTrue(server.process.isRunning, "the server died on the append")
        // Still answering, and the session still usable from its start.
        let next = try await server.content("2/files/upload_session/append_v2",
                                            #"{"cursor":{"session_id":"\#(id)","offset":0},"close":true}"#, body: Data("tail".utf8))
        XCTAssertEqual(next.status, 200, next.text)
        let done = try await server.content("2/files/upload_session/finish",
                                            #"{"cursor":{"session_id":"\#(id)","offset":4},"commit":{"path":"/byteclub/t.txt"}}"#)
        XCTAssertEqual(done.status, 200, done.text)
        XCTAssertEqual(FileManager.default.contents(atPath: root.appendingPathComponent("byteclub/t.txt").path), Data("tail".utf8))
    }

    func testOffsetsPastTheLargestFileAreRefusedAndLeaveNoSparseFile() async throws {
        let club = try await ServerFixture()
        defer { Task { await club.tearDown() } }
        let sessions = club.root.appendingPathComponent(".byteclub/sessions")
        func start() async throws -> String {
            let reply = try await club.content("2/files/upload_session/start", ["session_type": "concurrent"])
            return try XCTUnwrap(reply.json["session_id"] as? String, reply.text)
        }
        func apparentSize(_ id: String) throws -> Int64 {
            let attributes = try FileManager.default.attributesOfItem(atPath: sessions.appendingPathComponent(id).path)
            return (attributes[.size] as? NSNumber)?.int64Value ?? -1
        }
        // An empty close at 2^62, a block at 2^43 (8 TiB), a block whose end is one block past
        // the largest file, and the same refusal when a finish names such an end.
        let cases: [(offset: Int64, length: Int, close: Bool)] = [
            (1 << 62, 0, true), (1 << 43, block, false), (UploadSessionType.maxSessionBytes, block, false),
            (Int64.max - Int64(block) + 1, 0, true),
        ]
        for (offset, length, close) in cases {
            let id = try await start()
            let reply = try await club.content("2/files/upload_session/append_v2",
                                               ["cursor": ["session_id": id, "offset": offset], "close": close], body: Data(count: length))
            XCTAssertEqual(reply.status, 409, "\(offset): \(reply.text)")
            XCTAssertEqual(reply.summary, "too_large", "\(offset): \(reply.text)")
            XCTAssertEqual(try apparentSize(id), 0, "a refused append at \(offset) grew the session file")
        }
        // The last block that fits is taken, as the same close one byte longer is not.
        let id = try await start()
        let last = UploadSessionType.maxSessionBytes - Int64(block)
        let fits = try await club.content("2/files/upload_session/append_v2",
                                          ["cursor": ["session_id": id, "offset": last], "close": true], body: Data(count: block))
        XCTAssertEqual(fits.status, 200, fits.text)
        let other = try await start()
        let over = try await club.content("2/files/upload_session/append_v2",
                                          ["cursor": ["session_id": other, "offset": last], "close": true], body: Data(count: block + 1))
        XCTAssertEqual(over.summary, "too_large", over.text)
        let finish = try await club.content("2/files/upload_session/finish",
                                            ["cursor": ["session_id": other, "offset": 1 << 62], "commit": ["path": "/byteclub/x.bin"]])
        XCTAssertEqual(finish.status, 409, finish.text)
    }
}
