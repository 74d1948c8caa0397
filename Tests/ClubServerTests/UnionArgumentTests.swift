import ClubServer
import DropboxWire
import Foundation
import Imaging
import XCTest

/// Unions in the object form, `{".tag":…}`, as the official Dropbox SDKs send them, over real
/// HTTP; and the server's hand-written answers read back with DropboxWire's Codable types.
final class UnionArgumentTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture()
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    func panorama() throws -> Data {
        var pixels = [UInt8](repeating: 0, count: 800 * 200 * 3)
        for index in stride(from: 0, to: pixels.count, by: 3) { pixels[index] = 200 }
        return try JPEG.encode(RGBImage(width: 800, height: 200, pixels: pixels))
    }

    func testThumbnailWithTaggedFormatSizeAndMode() async throws {
        try await club.upload("/byteclub/photos/pano.jpg", try panorama())
        // Exactly what the Python SDK's files_get_thumbnail_v2 sends.
        let sdk: [String: Any] = ["resource": [".tag": "path", "path": "/byteclub/photos/pano.jpg"],
                                  "format": [".tag": "jpeg"], "size": [".tag": "w256h256"], "mode": [".tag": "strict"]]
        let reply = try await club.content("2/files/get_thumbnail_v2", sdk)
        XCTAssertEqual(reply.status, 200, reply.text)
        XCTAssertTrue(try JPEG.dimensions(of: reply.body) == (256, 64))
        let header = try XCTUnwrap(reply.headers?.value(forHeader: "Dropbox-API-Result"))
        struct Result: Decodable { var file_metadata: Metadata }
        XCTAssertEqual(try JSONDecoder().decode(Result.self, from: Data(header.utf8)).file_metadata.name, "pano.jpg")

        // Every mode, in both forms, gives the same thumbnail size as the other form.
        for mode in ThumbnailMode.allCases {
            var sizes: [String] = []
            for form in [mode.rawValue as Any, mode.taggedObject as Any] {
                let reply = try await club.content("2/files/get_thumbnail_v2", ["resource": [".tag": "path", "path": "/byteclub/photos/pano.jpg"],
                                                                                 "format": "jpeg", "size": [".tag": "w64h64"], "mode": form])
                XCTAssertEqual(reply.status, 200, "\(form): \(reply.text)")
                let size = try JPEG.dimensions(of: reply.body)
                sizes.append("\(size.width)x\(size.height)")
            }
            XCTAssertEqual(sizes[0], sizes[1], mode.rawValue)
            XCTAssertEqual(sizes[0], mode == .fitoneBestfit ? "256x64" : "64x16", mode.rawValue)
        }

        for bad: [String: Any] in [["format": [".tag": "gif"]], ["size": [".tag": "w1h1"]], ["mode": ["tag": "strict"]], ["format": [".tag": "webp"]],
                                   ["resource": [".tag": "link", "url": "https://example.com/x"]], ["size": 64]] {
            var argument = sdk
            argument.merge(bad) { _, new in new }
            let reply = try await club.content("2/files/get_thumbnail_v2", argument)
            XCTAssertEqual(reply.status, 400, "\(bad): \(reply.text)")
            XCTAssertFalse(reply.text.contains("must be a string"), reply.text)
        }
        let malformed = try await club.content("2/files/get_thumbnail_v2", ["resource": [".tag": "path", "path": "/byteclub/../x.jpg"], "format": [".tag": "jpeg"]])
        XCTAssertEqual(malformed.summary, "path/malformed_path")
    }

    func testUploadWithTaggedModes() async throws {
        let first = try await club.upload("/byteclub/note.txt", Data("v1".utf8), mode: [".tag": "add"])
        XCTAssertEqual(first.status, 200, first.text)
        let written = try JSONDecoder().decode(Metadata.self, from: first.body)
        guard case .file(let v1) = written else { return XCTFail("\(written)") }
        XCTAssertEqual(v1.size, 2)

        let conflict = try await club.upload("/byteclub/note.txt", Data("other".utf8), mode: [".tag": "add"])
        XCTAssertEqual(conflict.summary, "path/conflict/file")
        let error = try JSONDecoder().decode(DropboxError.self, from: conflict.body)
        XCTAssertEqual(error.tags, ["path", "conflict", "file"])

        let updated = try await club.upload("/byteclub/note.txt", Data("v2".utf8), mode: [".tag": "update", "update": v1.rev])
        XCTAssertEqual(updated.status, 200, updated.text)
        let stale = try await club.upload("/byteclub/note.txt", Data("v3".utf8), mode: [".tag": "update", "update": v1.rev])
        XCTAssertEqual(stale.summary, "path/conflict/file")
        XCTAssertEqual(club.read("byteclub/note.txt"), "v2")

        let overwritten = try await club.upload("/byteclub/note.txt", Data("v4".utf8), mode: [".tag": "overwrite"])
        XCTAssertEqual(overwritten.status, 200, overwritten.text)
        XCTAssertEqual(club.read("byteclub/note.txt"), "v4")

        for bad: Any in [[".tag": "update"], [".tag": "update", "update": "nothex!!!"], [".tag": "sideways"], ["update": "123456789"], 7] {
            let reply = try await club.upload("/byteclub/x.txt", Data(), mode: bad)
            XCTAssertEqual(reply.status, 400, "\(bad): \(reply.text)")
        }

        // An upload session's commit takes the same union.
        let start = try await club.content("2/files/upload_session/start", ["close": false], body: Data("abc".utf8))
        let id = try XCTUnwrap(start.json["session_id"] as? String)
        let finish = try await club.content("2/files/upload_session/finish", [
            "cursor": ["session_id": id, "offset": 3],
            "commit": ["path": "/byteclub/note.txt", "mode": [".tag": "update", "update": try XCTUnwrap(overwritten.json["rev"] as? String)]],
        ])
        XCTAssertEqual(finish.status, 200, finish.text)
        XCTAssertEqual(club.read("byteclub/note.txt"), "abc")
    }

    func testSearchOptionsWithTaggedUnions() async throws {
        for name in ["desk.jpg", "alps.jpeg", "desk notes.txt"] { try club.write("byteclub/\(name)", name) }
        try FileManager.default.createDirectory(at: club.root.appendingPathComponent("byteclub/desk photos"), withIntermediateDirectories: true)
        func names(_ options: [String: Any], query: String = "") async throws -> [String] {
            let reply = try await club.rpc("2/files/search_v2", ["query": query, "options": options])
            XCTAssertEqual(reply.status, 200, reply.text)
            return try JSONDecoder().decode(SearchResult.self, from: reply.body).matches.map(\.metadata.name)
        }
        var found = try await names(["path": "/byteclub", "file_status": [".tag": "active"], "order_by": [".tag": "relevance"],
                                     "file_categories": [[".tag": "image"]]])
        XCTAssertEqual(Set(found), ["desk.jpg", "alps.jpeg"])
        found = try await names(["file_status": "active", "file_categories": ["folder"]], query: "desk")
        XCTAssertEqual(found, ["desk photos"])
        found = try await names(["file_status": [".tag": "deleted"]], query: "desk")
        XCTAssertEqual(found, [], "nothing deleted is remembered")
        found = try await names(["order_by": [".tag": "last_modified_time"]], query: "desk")
        XCTAssertEqual(Set(found), ["desk.jpg", "desk notes.txt", "desk photos"])

        let bad = try await club.rpc("2/files/search_v2", ["query": "x", "options": ["order_by": [".tag": "sideways"]]])
        XCTAssertEqual(bad.status, 400, bad.text)
    }

    func testAnswersDecodeWithTheWireTypes() async throws {
        for index in 0..<3 { try club.write("byteclub/Ünï \(index).txt", "note \(index)") }
        try FileManager.default.createDirectory(at: club.root.appendingPathComponent("byteclub/photos"), withIntermediateDirectories: true)
        let listing = try await club.rpc("2/files/list_folder", ["path": "/byteclub", "limit": 2])
        var page = try JSONDecoder().decode(ListFolderResult.self, from: listing.body)
        var entries = page.entries
        while page.hasMore {
            page = try JSONDecoder().decode(ListFolderResult.self, from: try await club.rpc("2/files/list_folder/continue", ["cursor": page.cursor]).body)
            entries += page.entries
        }
        // Sorted by path_lower, whose "ü" sorts after "photos".
        XCTAssertEqual(entries.map(\.tag), ["folder", "file", "file", "file"])
        XCTAssertEqual(entries.map(\.pathDisplay), ["/byteclub/photos", "/byteclub/Ünï 0.txt", "/byteclub/Ünï 1.txt", "/byteclub/Ünï 2.txt"])

        let metadata = try await club.rpc("2/files/get_metadata", ["path": "/byteclub/ünï 1.txt"])
        XCTAssertEqual(try JSONDecoder().decode(Metadata.self, from: metadata.body), entries[2])
        let moved = try await club.rpc("2/files/move_v2", ["from_path": "/byteclub/Ünï 2.txt", "to_path": "/byteclub/moved.txt"])
        XCTAssertEqual(try JSONDecoder().decode(MetadataResult.self, from: moved.body).metadata.name, "moved.txt")
        let missing = try await club.rpc("2/files/delete_v2", ["path": "/byteclub/none.txt"])
        XCTAssertEqual(try JSONDecoder().decode(DropboxError.self, from: missing.body).tags, ["path_lookup", "not_found"])
        let download = try await club.content("2/files/download", ["path": "/byteclub/moved.txt"])
        let header = try XCTUnwrap(download.headers?.value(forHeader: "Dropbox-API-Result"))
        guard case .file(let file) = try JSONDecoder().decode(Metadata.self, from: Data(header.utf8)) else { return XCTFail(header) }
        XCTAssertEqual(file.contentHash, ContentHasher.hash(Data("note 2".utf8)))
    }
}
