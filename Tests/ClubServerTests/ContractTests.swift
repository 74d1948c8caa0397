import ClubServer
import Crypto
import Foundation
import Imaging
import Transfer
import XCTest

/// The Dropbox v2 subset over real HTTP, checked against Dropbox's exact JSON shapes.
final class ContractTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture()
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    /// Dropbox's content hash computed independently: SHA-256 per 4 MiB block, then of the digests.
    func dropboxHash(_ data: Data) -> String {
        var digests = Data()
        var offset = 0
        repeat {
            let block = data[offset..<min(data.count, offset + 4 << 20)]
            digests.append(contentsOf: SHA256.hash(data: block))
            offset += 4 << 20
        } while offset < data.count
        return SHA256.hash(data: digests).map { String(format: "%02x", $0) }.joined()
    }

    func assertFileShape(_ entry: [String: Any], name: String, pathLower: String, size: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(entry[".tag"] as? String, "file", file: file, line: line)
        XCTAssertEqual(entry["name"] as? String, name, file: file, line: line)
        XCTAssertEqual(entry["path_lower"] as? String, pathLower, file: file, line: line)
        XCTAssertNotNil(entry["path_display"] as? String, file: file, line: line)
        XCTAssertTrue((entry["id"] as? String)?.hasPrefix("id:") == true, file: file, line: line)
        XCTAssertEqual(entry["size"] as? Int, size, file: file, line: line)
        XCTAssertEqual(entry["is_downloadable"] as? Bool, true, file: file, line: line)
        let rev = entry["rev"] as? String ?? ""
        XCTAssertGreaterThanOrEqual(rev.count, 9, file: file, line: line)
        XCTAssertTrue(rev.allSatisfy(\.isHexDigit), file: file, line: line)
        for key in ["client_modified", "server_modified"] {
            let value = entry[key] as? String ?? ""
            XCTAssertNotNil(value.range(of: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$"#, options: .regularExpression), "\(key): \(value)", file: file, line: line)
        }
        XCTAssertEqual((entry["content_hash"] as? String)?.count, 64, file: file, line: line)
        XCTAssertEqual(Set(entry.keys), [".tag", "name", "id", "path_lower", "path_display", "client_modified", "server_modified", "rev", "size", "content_hash", "is_downloadable"], file: file, line: line)
    }

    // MARK: list_folder

    func testListFolderShapesPagingAndContinue() async throws {
        // Through the API, not behind the server's back: a file written on disk while the server's
        // watcher walked the folder was seen again by its next walk, after the listing's cursor,
        // and came back from `continue` beside the new file (a loaded CI run).
        for index in 0..<5 { try await club.upload("/byteclub/Note \(index).txt", Data("note \(index)".utf8)) }
        let photos = try await club.rpc("2/files/create_folder_v2", ["path": "/byteclub/photos"])
        XCTAssertEqual(photos.status, 200, photos.text)
        var reply = try await club.rpc("2/files/list_folder", ["path": "/byteclub", "recursive": false, "limit": 2])
        XCTAssertEqual(reply.status, 200)
        var entries = reply.json["entries"] as? [[String: Any]] ?? []
        XCTAssertEqual(entries.count, 2)
        XCTAssertEqual(reply.json["has_more"] as? Bool, true)
        while reply.json["has_more"] as? Bool == true {
            reply = try await club.rpc("2/files/list_folder/continue", ["cursor": reply.json["cursor"] as? String ?? ""])
            XCTAssertEqual(reply.status, 200, reply.text)
            entries += reply.json["entries"] as? [[String: Any]] ?? []
        }
        XCTAssertEqual(entries.count, 6)
        let note = try XCTUnwrap(entries.first { $0["name"] as? String == "Note 3.txt" })
        assertFileShape(note, name: "Note 3.txt", pathLower: "/byteclub/note 3.txt", size: 6)
        XCTAssertEqual(note["path_display"] as? String, "/byteclub/Note 3.txt")
        XCTAssertEqual(note["content_hash"] as? String, dropboxHash(Data("note 3".utf8)))
        let folder = try XCTUnwrap(entries.first { $0[".tag"] as? String == "folder" })
        XCTAssertEqual(Set(folder.keys), [".tag", "name", "id", "path_lower", "path_display"])
        XCTAssertEqual(folder["path_lower"] as? String, "/byteclub/photos")

        // Nothing hidden leaks: the server's own folder is not listed at the root.
        let root = try await club.rpc("2/files/list_folder", ["path": ""])
        XCTAssertEqual((root.json["entries"] as? [[String: Any]])?.compactMap { $0["name"] as? String }, ["byteclub"])

        // The last page's cursor is a journal position: continue answers what changed since
        // (JournalTests has the rest: deletions, restarts, `reset` after compaction).
        let cursor = reply.json["cursor"] as? String ?? ""
        try await club.upload("/byteclub/new.txt", Data("new".utf8))
        let delta = try await club.rpc("2/files/list_folder/continue", ["cursor": cursor])
        XCTAssertEqual(delta.status, 200, delta.text)
        XCTAssertEqual((delta.json["entries"] as? [[String: Any]])?.compactMap { $0["path_lower"] as? String }, ["/byteclub/new.txt"])
    }

    func testListFolderRecursiveAndErrors() async throws {
        try club.write("byteclub/a.txt", "a")
        try club.write("byteclub/photos/b.jpg", "b")
        let recursive = try await club.rpc("2/files/list_folder", ["path": "/byteclub", "recursive": true])
        XCTAssertEqual((recursive.json["entries"] as? [[String: Any]])?.compactMap { $0["path_lower"] as? String },
                       ["/byteclub/a.txt", "/byteclub/photos", "/byteclub/photos/b.jpg"])

        let missing = try await club.rpc("2/files/list_folder", ["path": "/nope"])
        XCTAssertEqual(missing.status, 409)
        XCTAssertEqual(missing.json as NSDictionary, ["error_summary": "path/not_found/..", "error": [".tag": "path", "path": [".tag": "not_found"]]] as NSDictionary)
        let notFolder = try await club.rpc("2/files/list_folder", ["path": "/byteclub/a.txt"])
        XCTAssertEqual(notFolder.summary, "path/not_folder")
        let malformed = try await club.rpc("2/files/list_folder", ["path": "byteclub"])
        XCTAssertEqual(malformed.summary, "path/malformed_path")
        let badLimit = try await club.rpc("2/files/list_folder", ["path": "", "limit": 0])
        XCTAssertEqual(badLimit.status, 400)
        XCTAssertTrue(badLimit.text.contains("limit"), badLimit.text)
        let badCursor = try await club.rpc("2/files/list_folder/continue", ["cursor": "garbage!"])
        XCTAssertEqual(badCursor.status, 400)
    }

    // MARK: get_metadata and search

    func testGetMetadata() async throws {
        try club.write("byteclub/Welcome.txt", "hi")
        let file = try await club.rpc("2/files/get_metadata", ["path": "/BYTECLUB/welcome.TXT"])
        XCTAssertEqual(file.status, 200)
        assertFileShape(file.json, name: "Welcome.txt", pathLower: "/byteclub/welcome.txt", size: 2)
        XCTAssertEqual(file.json["path_display"] as? String, "/byteclub/Welcome.txt", "paths match case-insensitively; display keeps the disk's case")
        let folder = try await club.rpc("2/files/get_metadata", ["path": "/byteclub"])
        XCTAssertEqual(folder.json[".tag"] as? String, "folder")
        let root = try await club.rpc("2/files/get_metadata", ["path": ""])
        XCTAssertEqual(root.status, 400)
        let missing = try await club.rpc("2/files/get_metadata", ["path": "/byteclub/nope.txt"])
        XCTAssertEqual(missing.summary, "path/not_found")
    }

    func testSearchByExtensionWithPaging() async throws {
        for name in ["desk-1.jpg", "desk-2.JPG", "alps.jpeg", "notes.txt"] { try club.write("byteclub/photos/\(name)", name) }
        let first = try await club.rpc("2/files/search_v2", ["query": "", "options": ["path": "/byteclub/photos", "file_extensions": ["jpg"], "max_results": 1, "filename_only": true]])
        XCTAssertEqual(first.status, 200, first.text)
        var matches = first.json["matches"] as? [[String: Any]] ?? []
        XCTAssertEqual(first.json["has_more"] as? Bool, true)
        let shape = try XCTUnwrap(matches.first)
        XCTAssertEqual((shape["match_type"] as? [String: Any])?[".tag"] as? String, "filename")
        let wrapper = try XCTUnwrap(shape["metadata"] as? [String: Any])
        XCTAssertEqual(wrapper[".tag"] as? String, "metadata")
        XCTAssertEqual((wrapper["metadata"] as? [String: Any])?[".tag"] as? String, "file")
        let next = try await club.rpc("2/files/search/continue_v2", ["cursor": first.json["cursor"] as? String ?? ""])
        matches += next.json["matches"] as? [[String: Any]] ?? []
        XCTAssertEqual(next.json["has_more"] as? Bool, false)
        let names = matches.compactMap { (($0["metadata"] as? [String: Any])?["metadata"] as? [String: Any])?["name"] as? String }
        XCTAssertEqual(Set(names), ["desk-1.jpg", "desk-2.JPG"])
        let byWord = try await club.rpc("2/files/search_v2", ["query": "ALPS"])
        XCTAssertEqual((byWord.json["matches"] as? [[String: Any]])?.count, 1)
        let missing = try await club.rpc("2/files/search_v2", ["query": "x", "options": ["path": "/nowhere"]])
        XCTAssertEqual(missing.summary, "path/not_found")
    }

    // MARK: download

    func testDownloadWithResultHeaderAndRange() async throws {
        try club.write("byteclub/Grüße 你好.txt", "0123456789")
        let full = try await club.content("2/files/download", ["path": "/byteclub/grüße 你好.txt"])
        XCTAssertEqual(full.status, 200)
        XCTAssertEqual(full.text, "0123456789")
        let header = try XCTUnwrap(full.headers?.value(forHeader: "Dropbox-API-Result"))
        XCTAssertTrue(header.allSatisfy(\.isASCII), "the result header is ASCII with \\u escapes: \(header)")
        XCTAssertTrue(header.contains("\\u4f60\\u597d"), header)
        XCTAssertEqual(full.result()["name"] as? String, "Grüße 你好.txt")
        let rev = full.result()["rev"] as? String ?? ""
        XCTAssertEqual(full.headers?.value(forHeader: "ETag"), "\"\(rev)\"")

        let part = try await club.content("2/files/download", ["path": "/byteclub/Grüße 你好.txt"], extraHeaders: ["Range": "bytes=3-5"])
        XCTAssertEqual(part.status, 206)
        XCTAssertEqual(part.text, "345")
        XCTAssertEqual(part.headers?.value(forHeader: "Content-Range"), "bytes 3-5/10")
        let tail = try await club.content("2/files/download", ["path": "/byteclub/Grüße 你好.txt"], extraHeaders: ["Range": "bytes=7-", "If-Range": "\"\(rev)\""])
        XCTAssertEqual(tail.text, "789")
        let stale = try await club.content("2/files/download", ["path": "/byteclub/Grüße 你好.txt"], extraHeaders: ["Range": "bytes=7-", "If-Range": "\"0000000000\""])
        XCTAssertEqual(stale.status, 200, "a stale If-Range gets the whole file")
        let beyond = try await club.content("2/files/download", ["path": "/byteclub/Grüße 你好.txt"], extraHeaders: ["Range": "bytes=99-"])
        XCTAssertEqual(beyond.status, 416)

        let missing = try await club.content("2/files/download", ["path": "/byteclub/none.txt"])
        XCTAssertEqual(missing.status, 409)
        XCTAssertEqual(missing.summary, "path/not_found")
        let folder = try await club.content("2/files/download", ["path": "/byteclub"])
        XCTAssertEqual(folder.summary, "path/not_file")
    }

    // MARK: upload

    func testUploadModes() async throws {
        let first = try await club.upload("/byteclub/note.txt", Data("v1".utf8))
        XCTAssertEqual(first.status, 200, first.text)
        assertFileShape(first.json, name: "note.txt", pathLower: "/byteclub/note.txt", size: 2)
        let rev1 = first.json["rev"] as? String ?? ""
        let id = first.json["id"] as? String

        let conflict = try await club.upload("/byteclub/note.txt", Data("other".utf8))
        XCTAssertEqual(conflict.status, 409)
        XCTAssertEqual(conflict.summary, "path/conflict/file")
        XCTAssertEqual((conflict.json["error"] as? [String: Any])?[".tag"] as? String, "path")

        let same = try await club.upload("/byteclub/note.txt", Data("v1".utf8))
        XCTAssertEqual(same.status, 200, "re-adding identical content is not a conflict")
        XCTAssertEqual(same.json["rev"] as? String, rev1)

        let renamed = try await club.upload("/byteclub/note.txt", Data("other".utf8), autorename: true)
        XCTAssertEqual(renamed.json["name"] as? String, "note (1).txt")

        let updated = try await club.upload("/byteclub/note.txt", Data("v2".utf8), mode: [".tag": "update", "update": rev1])
        XCTAssertEqual(updated.status, 200, updated.text)
        let rev2 = updated.json["rev"] as? String ?? ""
        XCTAssertNotEqual(rev2, rev1, "rev changes on every write")
        XCTAssertEqual(updated.json["id"] as? String, id, "the id stays")

        let stale = try await club.upload("/byteclub/note.txt", Data("v3".utf8), mode: [".tag": "update", "update": rev1])
        XCTAssertEqual(stale.summary, "path/conflict/file")
        XCTAssertEqual(club.read("byteclub/note.txt"), "v2", "a stale update never overwrites")
        let copy = try await club.upload("/byteclub/note.txt", Data("v3".utf8), mode: [".tag": "update", "update": rev1], autorename: true)
        XCTAssertEqual(copy.json["name"] as? String, "note (conflicted copy).txt")
        XCTAssertEqual(club.read("byteclub/note (conflicted copy).txt"), "v3")

        let overwritten = try await club.upload("/byteclub/note.txt", Data("v4".utf8), mode: "overwrite")
        XCTAssertEqual(overwritten.status, 200)
        XCTAssertEqual(club.read("byteclub/note.txt"), "v4")

        let dated = try await club.content("2/files/upload", ["path": "/byteclub/dated.txt", "mode": "add", "client_modified": "2020-01-02T03:04:05Z"], body: Data("d".utf8))
        XCTAssertEqual(dated.json["client_modified"] as? String, "2020-01-02T03:04:05Z")

        let badMode = try await club.content("2/files/upload", ["path": "/byteclub/x.txt", "mode": "sideways"], body: Data())
        XCTAssertEqual(badMode.status, 400)
        let badPath = try await club.upload("/byteclub/../x.txt", Data())
        XCTAssertEqual(badPath.summary, "path/malformed_path")
        let noArg = try await club.post("2/files/upload", body: Data("x".utf8), headers: ["Content-Type": "application/octet-stream"])
        XCTAssertEqual(noArg.status, 400)
        XCTAssertTrue(noArg.text.contains("Dropbox-API-Arg"), noArg.text)
        let badArg = try await club.post("2/files/upload", body: Data(), headers: ["Dropbox-API-Arg": "{not json", "Content-Type": "application/octet-stream"])
        XCTAssertEqual(badArg.status, 400)
    }

    func testUploadSessionWithIncorrectOffset() async throws {
        let chunk1 = Data(repeating: 1, count: 1 << 20)
        let chunk2 = Data(repeating: 2, count: 1 << 20)
        let tail = Data("tail".utf8)
        let start = try await club.content("2/files/upload_session/start", ["close": false], body: chunk1)
        XCTAssertEqual(start.status, 200, start.text)
        let id = try XCTUnwrap(start.json["session_id"] as? String)

        let wrong = try await club.content("2/files/upload_session/append_v2", ["cursor": ["session_id": id, "offset": 5], "close": false], body: chunk2)
        XCTAssertEqual(wrong.status, 409)
        XCTAssertEqual(wrong.json as NSDictionary, ["error_summary": "incorrect_offset/..", "error": [".tag": "incorrect_offset", "correct_offset": 1 << 20]] as NSDictionary)

        let append = try await club.content("2/files/upload_session/append_v2", ["cursor": ["session_id": id, "offset": 1 << 20], "close": false], body: chunk2)
        XCTAssertEqual(append.status, 200, append.text)

        let badFinish = try await club.content("2/files/upload_session/finish", ["cursor": ["session_id": id, "offset": 7], "commit": ["path": "/byteclub/big.bin", "mode": "add"]], body: tail)
        XCTAssertEqual(badFinish.summary, "lookup_failed/incorrect_offset")
        let finish = try await club.content("2/files/upload_session/finish", ["cursor": ["session_id": id, "offset": 2 << 20], "commit": ["path": "/byteclub/big.bin", "mode": "add", "autorename": false]], body: tail)
        XCTAssertEqual(finish.status, 200, finish.text)
        let whole = chunk1 + chunk2 + tail
        assertFileShape(finish.json, name: "big.bin", pathLower: "/byteclub/big.bin", size: whole.count)
        XCTAssertEqual(finish.json["content_hash"] as? String, dropboxHash(whole))
        XCTAssertEqual(FileManager.default.contents(atPath: club.root.appendingPathComponent("byteclub/big.bin").path), whole)

        let gone = try await club.content("2/files/upload_session/append_v2", ["cursor": ["session_id": id, "offset": 0]], body: Data())
        XCTAssertEqual(gone.summary, "not_found")
        let hostile = try await club.content("2/files/upload_session/append_v2", ["cursor": ["session_id": "../../etc/passwd", "offset": 0]], body: Data())
        XCTAssertEqual(hostile.summary, "not_found")
    }

    func testContentHashOverSeveralBlocks() async throws {
        var data = Data(count: (9 << 20) + 123)
        data.withUnsafeMutableBytes { bytes in for index in 0..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index * 7) } }
        let reply = try await club.upload("/byteclub/blocks.bin", data)
        XCTAssertEqual(reply.json["content_hash"] as? String, dropboxHash(data))
    }

    // MARK: delete, move, create_folder

    func testDeleteMoveAndCreateFolder() async throws {
        let created = try await club.rpc("2/files/create_folder_v2", ["path": "/byteclub/Drafts", "autorename": false])
        XCTAssertEqual(created.status, 200, created.text)
        XCTAssertEqual((created.json["metadata"] as? [String: Any])?[".tag"] as? String, "folder")
        let again = try await club.rpc("2/files/create_folder_v2", ["path": "/byteclub/drafts"])
        XCTAssertEqual(again.summary, "path/conflict/folder")

        let uploaded = try await club.upload("/byteclub/Drafts/idea.txt", Data("idea".utf8))
        let id = uploaded.json["id"] as? String
        let moved = try await club.rpc("2/files/move_v2", ["from_path": "/byteclub/Drafts/idea.txt", "to_path": "/byteclub/Idea.txt", "autorename": false])
        XCTAssertEqual(moved.status, 200, moved.text)
        let metadata = try XCTUnwrap(moved.json["metadata"] as? [String: Any])
        XCTAssertEqual(metadata["id"] as? String, id, "an id survives a move")
        XCTAssertEqual(metadata["path_display"] as? String, "/byteclub/Idea.txt")
        XCTAssertEqual(club.read("byteclub/Idea.txt"), "idea")

        try await club.upload("/byteclub/other.txt", Data("o".utf8))
        let clash = try await club.rpc("2/files/move_v2", ["from_path": "/byteclub/other.txt", "to_path": "/byteclub/idea.txt"])
        XCTAssertEqual(clash.summary, "to/conflict/file")
        let missing = try await club.rpc("2/files/move_v2", ["from_path": "/byteclub/ghost.txt", "to_path": "/byteclub/x.txt"])
        XCTAssertEqual(missing.summary, "from_lookup/not_found")
        let intoItself = try await club.rpc("2/files/move_v2", ["from_path": "/byteclub/Drafts", "to_path": "/byteclub/Drafts/sub"])
        XCTAssertEqual(intoItself.summary, "cant_move_folder_into_itself")

        let deleted = try await club.rpc("2/files/delete_v2", ["path": "/byteclub/idea.txt"])
        XCTAssertEqual(deleted.status, 200)
        XCTAssertEqual((deleted.json["metadata"] as? [String: Any])?["name"] as? String, "Idea.txt")
        XCTAssertNil(club.read("byteclub/Idea.txt"))
        let deleteMissing = try await club.rpc("2/files/delete_v2", ["path": "/byteclub/idea.txt"])
        XCTAssertEqual(deleteMissing.json as NSDictionary, ["error_summary": "path_lookup/not_found/..", "error": [".tag": "path_lookup", "path_lookup": [".tag": "not_found"]]] as NSDictionary)
    }

    // MARK: thumbnails

    func testThumbnail() async throws {
        var pixels = [UInt8](repeating: 0, count: 800 * 200 * 3)
        for index in stride(from: 0, to: pixels.count, by: 3) { pixels[index] = 200; pixels[index + 2] = UInt8(index % 256) }
        let jpeg = try JPEG.encode(RGBImage(width: 800, height: 200, pixels: pixels))
        try await club.upload("/byteclub/photos/pano.jpg", jpeg)
        let reply = try await club.content("2/files/get_thumbnail_v2", ["resource": [".tag": "path", "path": "/byteclub/photos/pano.jpg"], "format": "jpeg", "size": "w256h256", "mode": "strict"])
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertEqual(reply.headers?.value(forHeader: "Content-Type"), "image/jpeg")
        let size = try JPEG.dimensions(of: reply.body)
        XCTAssertEqual(size.width, 256)
        XCTAssertEqual(size.height, 64)
        XCTAssertEqual((reply.result()["file_metadata"] as? [String: Any])?["name"] as? String, "pano.jpg")
        let decoded = try JPEG.decode(reply.body)
        XCTAssertGreaterThan(Int(decoded.pixel(x: 128, y: 32).r), 150, "the thumbnail is of the picture")

        let notImage = try await club.upload("/byteclub/a.txt", Data("x".utf8))
        XCTAssertEqual(notImage.status, 200)
        let unsupported = try await club.content("2/files/get_thumbnail_v2", ["resource": [".tag": "path", "path": "/byteclub/a.txt"], "size": "w64h64"])
        XCTAssertEqual(unsupported.summary, "unsupported_extension")
        try await club.upload("/byteclub/photos/broken.jpg", Data("not a jpeg".utf8))
        let broken = try await club.content("2/files/get_thumbnail_v2", ["resource": [".tag": "path", "path": "/byteclub/photos/broken.jpg"]])
        XCTAssertEqual(broken.summary, "unsupported_image")
        let badSize = try await club.content("2/files/get_thumbnail_v2", ["resource": [".tag": "path", "path": "/byteclub/photos/pano.jpg"], "size": "w1h1"])
        XCTAssertEqual(badSize.status, 400)
    }

    // MARK: auth and bad input

    func testEveryEndpointRequiresTheToken() async throws {
        // Every wrong token here is a 401: none of them may be shut out by the failed-token
        // throttle, which ReaderRoleTests tests on its own.
        await club.tearDown()
        club = try await ServerFixture { $0.failedAuthenticationsPerMinute = 1_000 }
        let endpoints = ["list_folder", "list_folder/continue", "get_metadata", "search_v2", "search/continue_v2", "delete_v2", "move_v2",
                         "create_folder_v2", "download", "upload", "upload_session/start", "upload_session/append_v2",
                         "upload_session/finish", "get_thumbnail_v2"]
        for endpoint in endpoints {
            for token in ["", "wrong", club.token + "x", String(club.token.dropLast())] {
                let reply = try await club.post("2/files/\(endpoint)", body: Data("{}".utf8), headers: ["Content-Type": "application/json"], token: token)
                XCTAssertEqual(reply.status, 401, endpoint)
                XCTAssertEqual(reply.json as NSDictionary, ["error_summary": "invalid_access_token/..", "error": [".tag": "invalid_access_token"]] as NSDictionary, endpoint)
            }
        }
    }

    func testMalformedJSONBodiesGet400() async throws {
        for body in ["", "{", "[1,2]", "\"path\"", "{\"path\": 5}", "{\"path\": \"/x\", \"recursive\": \"yes\"}"] {
            let reply = try await club.post("2/files/list_folder", body: Data(body.utf8), headers: ["Content-Type": "application/json"])
            XCTAssertEqual(reply.status, 400, "body \(body): \(reply.text)")
            XCTAssertTrue(reply.headers == nil || reply.headers?.value(forHeader: "Content-Type")?.hasPrefix("text/plain") == true)
            XCTAssertFalse(reply.text.isEmpty)
        }
        let missing = try await club.rpc("2/files/move_v2", ["from_path": "/a"])
        XCTAssertEqual(missing.status, 400)
        XCTAssertTrue(missing.text.contains("to_path"), missing.text)
    }
}
