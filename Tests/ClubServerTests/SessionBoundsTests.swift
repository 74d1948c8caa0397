import ClubServer
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

    func testOverflowingNumbersAreRefusedAndTheServerStillAnswers() async throws {
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

        // A search cursor is the client's text: a negative offset trapped `dropFirst`, and an
        // offset plus a limit near Int.max overflowed, in a name search and a content search.
        for (offset, limit, contents) in [(-1, 10, false), (0, -5, false), (Int.max, Int.max, true), (-1, 10, true)] {
            let json = #"{"query":"t","path":"","extensions":[],"offset":\#(offset),"limit":\#(limit),"contents":\#(contents)}"#
            let cursor = Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            let reply = try await server.rpc("2/files/search/continue_v2", #"{"cursor":"\#(cursor)"}"#)
            XCTAssertEqual(reply.status, 400, "\(json): \(reply.text)")
            XCTAssertTrue(reply.text.contains("invalid cursor"), reply.text)
        }
        XCTAssertTrue(server.process.isRunning, "the server died on a forged search cursor")
        let listed = try await server.rpc("2/files/list_folder", #"{"path":"/byteclub"}"#)
        XCTAssertEqual(listed.status, 200, listed.text)
    }

    func testOffsetsPastTheLargestFileAreRefusedAndLeaveNoSparseFile() async throws {
        let club = try await ServerFixture()
        // The folder goes even if the test stops early (a session file may be 350 GB, sparse).
        addTeardownBlock { [outside = club.outside] in try? FileManager.default.removeItem(at: outside) }
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
            (1 << 62, 0, true), (1 << 43, block, false),
            ((UploadSessionType.maxSessionBytes / Int64(block) + 1) * Int64(block), block, false),
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
        // The last whole block that fits is taken, and a close that ends one byte past the
        // largest file is not.
        let id = try await start()
        let last = (UploadSessionType.maxSessionBytes - Int64(block)) / Int64(block) * Int64(block)
        let fits = try await club.content("2/files/upload_session/append_v2",
                                          ["cursor": ["session_id": id, "offset": last], "close": true], body: Data(count: block))
        XCTAssertEqual(fits.status, 200, fits.text)
        let other = try await start()
        let over = try await club.content("2/files/upload_session/append_v2",
                                          ["cursor": ["session_id": other, "offset": last], "close": true],
                                          body: Data(count: Int(UploadSessionType.maxSessionBytes - last) + 1))
        XCTAssertEqual(over.summary, "too_large", over.text)
        let finish = try await club.content("2/files/upload_session/finish",
                                            ["cursor": ["session_id": other, "offset": 1 << 62], "commit": ["path": "/byteclub/x.bin"]])
        XCTAssertEqual(finish.status, 409, finish.text)
        await club.tearDown()
    }

    func testAMembersOpenSessionsHaveABoundOnDisk() async throws {
        let other = ClubMember(name: "ann", token: "ann-\(UUID().uuidString)")
        let club = try await ServerFixture {
            $0.maxSessionBytesPerMember = Int64(10 << 20)
            $0.maxSessionsPerMember = 3
            $0.members = [other]
        }
        // The folder goes even if the test stops early (a session file may be 350 GB, sparse).
        addTeardownBlock { [outside = club.outside] in try? FileManager.default.removeItem(at: outside) }
        func start(_ body: Data = Data(), concurrent: Bool = true) async throws -> ServerFixture.Reply {
            try await club.content("2/files/upload_session/start", concurrent ? ["session_type": "concurrent"] : [:], body: body)
        }
        func append(_ id: String, at offset: Int, count: Int = 4 << 20) async throws -> ServerFixture.Reply {
            try await club.content("2/files/upload_session/append_v2", ["cursor": ["session_id": id, "offset": offset], "close": false],
                                   body: Data(count: count))
        }
        let firstStart = try await start().json["session_id"] as? String
        let first = try XCTUnwrap(firstStart)
        // A block whose end (12 MiB) is past the member's 10 MiB: refused, and says why.
        let far = try await append(first, at: 2 * block)
        XCTAssertEqual(far.summary, "too_large", far.text)
        XCTAssertTrue(Self.message(far).contains("would hold 12582912 bytes; this server keeps at most 10485760"), far.text)
        let firstBlock = try await append(first, at: 0).status
        XCTAssertEqual(firstBlock, 200)
        let secondStart = try await start().json["session_id"] as? String
        let second = try XCTUnwrap(secondStart)
        // 4 MiB held by the first: a block ending at 8 MiB would make 12.
        let secondFar = try await append(second, at: block).summary
        XCTAssertEqual(secondFar, "too_large")
        let secondBlock = try await append(second, at: 0).status
        XCTAssertEqual(secondBlock, 200)
        // A sequential start with 3 MiB: 11 MiB in all, refused in start's own union.
        let sequential = try await start(Data(count: 3 << 20), concurrent: false)
        XCTAssertEqual(sequential.summary, "payload_too_large", sequential.text)
        let sessions = club.root.appendingPathComponent(".byteclub/sessions")
        let left = try FileManager.default.contentsOfDirectory(atPath: sessions.path).filter { !$0.contains(".") }
        XCTAssertEqual(Set(left), [first, second], "a refused start leaves no session behind")
        // A third session (empty) opens; a fourth is one too many.
        let thirdStart = try await start()
        XCTAssertEqual(thirdStart.status, 200)
        let fourth = try await start()
        XCTAssertEqual(fourth.status, 429, fourth.text)
        XCTAssertTrue(Self.message(fourth).contains("3 upload sessions open"), fourth.text)
        // Another member's sessions are theirs to count.
        let theirs = try await club.post("2/files/upload_session/start", body: Data(count: 3 << 20), headers: [
            "Dropbox-API-Arg": "{}", "Content-Type": "application/octet-stream",
        ], token: other.token)
        XCTAssertEqual(theirs.status, 200, theirs.text)
        // Finishing one frees its bytes.
        let tail = try await club.content("2/files/upload_session/append_v2", ["cursor": ["session_id": first, "offset": block], "close": true],
                                          body: Data("end".utf8))
        XCTAssertEqual(tail.status, 200, tail.text)
        let done = try await club.content("2/files/upload_session/finish",
                                          ["cursor": ["session_id": first, "offset": block + 3], "commit": ["path": "/byteclub/one.bin"]])
        XCTAssertEqual(done.status, 200, done.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: sessions.appendingPathComponent(first + ".owner").path))
        let secondAgain = try await append(second, at: block).status
        XCTAssertEqual(secondAgain, 200, "the finished session's bytes count no more")
        await club.tearDown()
    }

    /// The `user_message` of an error answer: `{"locale","text"}`.
    static func message(_ reply: ServerFixture.Reply) -> String {
        (reply.json["user_message"] as? [String: Any])?["text"] as? String ?? ""
    }

    func testRangesAtTheEdgesAnswerAsRFC9110Says() async throws {
        let club = try await ServerFixture()
        // The folder goes even if the test stops early (a session file may be 350 GB, sparse).
        addTeardownBlock { [outside = club.outside] in try? FileManager.default.removeItem(at: outside) }
        let data = Data("0123456789".utf8)
        let uploaded = try await club.upload("/byteclub/r.txt", data).status
        XCTAssertEqual(uploaded, 200)
        func get(_ range: String) async throws -> ServerFixture.Reply {
            try await club.content("2/files/download", ["path": "/byteclub/r.txt"], extraHeaders: ["Range": range])
        }
        // A suffix of zero bytes selects nothing: 416 with the size, not the whole file.
        let zero = try await get("bytes=-0")
        XCTAssertEqual(zero.status, 416, zero.text)
        // An end (or a suffix) past Int64.max is past the end: clamped, not ignored.
        let end = try await get("bytes=3-99999999999999999999999")
        XCTAssertEqual(end.status, 206, end.text)
        XCTAssertEqual(end.body, data.subdata(in: 3..<10))
        XCTAssertEqual(end.headers?.value(forHeader: "Content-Range"), "bytes 3-9/10")
        let suffix = try await get("bytes=-99999999999999999999999")
        XCTAssertEqual(suffix.status, 206, suffix.text)
        XCTAssertEqual(suffix.body, data)
        let start = try await get("bytes=99999999999999999999999-")
        XCTAssertEqual(start.status, 416, start.text)
        await club.tearDown()
    }
}
