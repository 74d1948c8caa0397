import Crypto
import DropboxWire
import Foundation
import XCTest

/// Escaping, errors and the content hash.
final class WireTests: XCTestCase {
    func testASCIIEscapingKeepsJSONMeaning() throws {
        let value = "Café 日本 😀 \"q\" \\ /slash\n\u{7}"
        let header = try DropboxJSON.headerValue(["path": value])
        XCTAssertTrue(header.utf8.allSatisfy { $0 < 0x80 }, header)
        XCTAssertTrue(header.contains("\\ud83d\\ude00"), "a surrogate pair: \(header)")
        XCTAssertTrue(header.contains("/slash"), "slashes are left alone")
        XCTAssertEqual(try JSONDecoder().decode([String: String].self, from: Data(header.utf8)), ["path": value])
        XCTAssertEqual(DropboxJSON.asciiEscaped(#"{"a":"é"}"#), #"{"a":"\u00e9"}"#)

        for asciiOnly in [false, true] {
            let quoted = DropboxJSON.quoted(value, asciiOnly: asciiOnly)
            XCTAssertEqual(try JSONDecoder().decode(String.self, from: Data(quoted.utf8)), value)
            XCTAssertEqual(quoted.utf8.allSatisfy { $0 < 0x80 }, asciiOnly)
        }
    }

    func testErrorBodiesInDropboxShapes() throws {
        func json(_ error: DropboxError) -> NSDictionary {
            (try? JSONSerialization.jsonObject(with: error.json)) as? NSDictionary ?? [:]
        }
        XCTAssertEqual(json(.endpoint([.path, .notFound])),
                       ["error_summary": "path/not_found/..", "error": [".tag": "path", "path": [".tag": "not_found"]]])
        XCTAssertEqual(json(.uploadPath([.conflict, .file])),
                       ["error_summary": "path/conflict/file/..",
                        "error": [".tag": "path", "reason": [".tag": "conflict", "conflict": [".tag": "file"]], "upload_session_id": ""]])
        XCTAssertEqual(json(.rateLimited(retryAfter: 3)),
                       ["error_summary": "too_many_requests/..", "error": ["reason": [".tag": "too_many_requests"], "retry_after": 3]])
        XCTAssertEqual(json(.invalidAccessToken), ["error_summary": "invalid_access_token/..", "error": [".tag": "invalid_access_token"]])
        let offset = DropboxError.endpoint([.lookupFailed, .incorrectOffset], numbers: ["correct_offset": 42])
        XCTAssertEqual(json(offset), ["error_summary": "lookup_failed/incorrect_offset/..",
                                      "error": [".tag": "lookup_failed", "lookup_failed": [".tag": "incorrect_offset", "correct_offset": 42]]])

        for error in [DropboxError.endpoint([.path, .malformedPath]), .uploadPath([.insufficientSpace]), .rateLimited(retryAfter: 9), offset, .endpoint([.reset])] {
            XCTAssertEqual(try JSONDecoder().decode(DropboxError.self, from: error.json), error)
        }
        let decoded = try JSONDecoder().decode(DropboxError.self, from: offset.json)
        XCTAssertEqual(decoded.correctOffset, 42)
        XCTAssertEqual(decoded.tags, ["lookup_failed", "incorrect_offset"])
        XCTAssertTrue(decoded.contains(.incorrectOffset))
        XCTAssertFalse(decoded.contains(.notFound))
        XCTAssertEqual(try JSONDecoder().decode(DropboxError.self, from: DropboxError.rateLimited(retryAfter: 9).json).retryAfter, 9)

        // As real Dropbox writes them: a summary with dots and digits, a fractional retry_after.
        let real = try JSONDecoder().decode(DropboxError.self, from: Data("""
            {"error_summary":"path/not_found/...","error":{".tag":"path","path":{".tag":"not_found"}},"user_message":{"text":"x"}}
            """.utf8))
        XCTAssertEqual(real.tags, ["path", "not_found"])
        let limited = try JSONDecoder().decode(DropboxError.self, from: Data(#"{"error_summary":"too_many_requests/","error":{"reason":{".tag":"too_many_requests"},"retry_after":1.5}}"#.utf8))
        XCTAssertEqual(limited.retryAfter, 2)
        // A number no Int64 holds (a hostile or broken peer): no number, and no trap.
        let huge = try JSONDecoder().decode(DropboxError.self, from: Data(#"{"error_summary":"too_many_requests/","error":{"reason":{".tag":"too_many_requests"},"retry_after":1e300}}"#.utf8))
        XCTAssertNil(huge.retryAfter)
        XCTAssertEqual(huge.tags, ["too_many_requests"])
    }

    func testContentHashMatchesDropboxsAlgorithm() throws {
        // An independent computation: SHA-256 per 4 MiB block, then of the digests.
        func reference(_ data: Data) -> String {
            var digests = Data()
            // An empty file has no blocks: its hash is that of no digests.
            var offset = 0
            while offset < data.count {
                digests.append(contentsOf: SHA256.hash(data: data[offset..<min(data.count, offset + ContentHasher.blockSize)]))
                offset += ContentHasher.blockSize
            }
            return SHA256.hash(data: digests).map { String(format: "%02x", $0) }.joined()
        }
        var bytes = Data(count: ContentHasher.blockSize * 2 + 12_345)
        bytes.withUnsafeMutableBytes { buffer in for index in 0..<buffer.count { buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 13) } }
        for data in [Data(), Data("hello".utf8), bytes.prefix(ContentHasher.blockSize), bytes] {
            XCTAssertEqual(ContentHasher.hash(data), reference(data), "\(data.count) bytes")
            // Fed in odd pieces, the same.
            var hasher = ContentHasher()
            var offset = 0
            while offset < data.count {
                let end = min(data.count, offset + 777_777)
                hasher.update(data[offset..<end])
                offset = end
            }
            XCTAssertEqual(hasher.finalize(), reference(data))
            XCTAssertEqual(hasher.byteCount, Int64(data.count))
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("wire-hash-\(UUID().uuidString)")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(try ContentHasher.hash(fileAt: file.path), reference(bytes))
        XCTAssertThrowsError(try ContentHasher.hash(fileAt: file.path + "-missing"))
    }
}
