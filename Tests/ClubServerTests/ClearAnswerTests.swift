@testable import ClubServer
import Foundation
import Imaging
import XCTest

/// Folder-level answers that used to confuse: raw bytes that are not UTF-8, C1 controls in
/// names, a case-only rename, file modes, thumbnails too big to decode, and many decodes at once.
final class ClearAnswerTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture()
        try club.write("byteclub/ok.txt", "fine")
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    func names(in relative: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: club.root.appendingPathComponent(relative).path)) ?? []).sorted()
    }

    // MARK: Bytes that are not UTF-8

    func testARawFFByteInTheArgumentHeaderIsA400() async throws {
        var request = Data("POST /2/files/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(club.token)\r\n".utf8)
        request += Data(#"Dropbox-API-Arg: {"path":"/byteclub/"#.utf8) + Data([0xFF]) + Data(#".txt","mode":"add"}"#.utf8)
        request += Data("\r\nContent-Type: application/octet-stream\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi".utf8)
        let reply = try RawHTTP.exchange(port: club.server.port, request)
        XCTAssertEqual(reply.status, 400, reply.text)
        XCTAssertTrue(reply.text.contains("UTF-8"), reply.text)
        XCTAssertEqual(names(in: "byteclub"), ["ok.txt"], "no \\u{FFFD}.txt")

        // The same name escaped as JSON asks for is a name like any other.
        let escaped = try await club.content("2/files/upload", ["path": "/byteclub/\u{FFFD}.txt", "mode": "add"], body: Data("hi".utf8))
        XCTAssertEqual(escaped.status, 200, escaped.text)
    }

    func testARawFFByteInAnRPCBodyIsA400() throws {
        let body = Data(#"{"path":"/byteclub/"#.utf8) + Data([0xFF]) + Data(#"x"}"#.utf8)
        var request = Data("POST /2/files/create_folder_v2 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(club.token)\r\n".utf8)
        request += Data("Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
        let reply = try RawHTTP.exchange(port: club.server.port, request)
        XCTAssertEqual(reply.status, 400, reply.text)
        XCTAssertEqual(names(in: "byteclub"), ["ok.txt"])
    }

    // MARK: Control characters

    func testC1ControlCharactersAreRefusedLikeC0() async throws {
        for scalar in [0x01, 0x1B, 0x7F, 0x80, 0x85, 0x9B, 0x9F] {
            let name = "/byteclub/a" + String(UnicodeScalar(scalar)!) + "b.txt"
            // (A raw DEL is not allowed in an HTTP header at all, and JSON need not escape it:
            // that one is the HTTP layer's 400, tested elsewhere.)
            if scalar != 0x7F {
                let upload = try await club.upload(name, Data("x".utf8))
                XCTAssertEqual(upload.status, 409, "U+\(String(scalar, radix: 16)): \(upload.text)")
                XCTAssertEqual(upload.summary, "path/malformed_path")
            }
            let folder = try await club.rpc("2/files/create_folder_v2", ["path": name])
            XCTAssertEqual(folder.summary, "path/malformed_path")
            let move = try await club.rpc("2/files/move_v2", ["from_path": "/byteclub/ok.txt", "to_path": name])
            XCTAssertEqual(move.summary, "to/malformed_path")
        }
        // Just past C1 is an ordinary letter.
        let nbsp = try await club.upload("/byteclub/a\u{A0}b.txt", Data("x".utf8))
        XCTAssertEqual(nbsp.status, 200, nbsp.text)
        XCTAssertEqual(names(in: "byteclub"), ["a\u{A0}b.txt", "ok.txt"])
    }

    func testNamesWithC1ControlsOnDiskAreLeftOutOfListings() async throws {
        try club.write("byteclub/bad\u{9B}2J.txt", "x")
        let list = try await club.rpc("2/files/list_folder", ["path": "/byteclub"])
        let listed = (list.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertEqual(listed, ["ok.txt"])
    }

    // MARK: Case-only renames

    func testACaseOnlyRenameRenames() async throws {
        try club.write("case/A.txt", "alpha")
        let before = try await club.rpc("2/files/get_metadata", ["path": "/case/A.txt"])
        let moved = try await club.rpc("2/files/move_v2", ["from_path": "/case/A.txt", "to_path": "/case/a.txt"])
        XCTAssertEqual(moved.status, 200, moved.text)
        let metadata = try XCTUnwrap(moved.json["metadata"] as? [String: Any])
        XCTAssertEqual(metadata["name"] as? String, "a.txt")
        XCTAssertEqual(metadata["path_display"] as? String, "/case/a.txt")
        XCTAssertEqual(metadata["id"] as? String, before.json["id"] as? String, "the id follows")
        XCTAssertEqual(names(in: "case"), ["a.txt"])
        XCTAssertEqual(club.read("case/a.txt"), "alpha")

        // Folders too; the folders above keep their spelling.
        try club.write("Trip/Photos/x.jpg", "x")
        let folder = try await club.rpc("2/files/move_v2", ["from_path": "/trip/photos", "to_path": "/trip/PHOTOS"])
        XCTAssertEqual(folder.status, 200, folder.text)
        XCTAssertEqual((folder.json["metadata"] as? [String: Any])?["path_display"] as? String, "/Trip/PHOTOS")
        XCTAssertEqual(names(in: "Trip"), ["PHOTOS"])
        XCTAssertEqual(club.read("Trip/PHOTOS/x.jpg"), "x")

        // The same spelling is no change, and no error.
        let same = try await club.rpc("2/files/move_v2", ["from_path": "/case/a.txt", "to_path": "/case/a.txt"])
        XCTAssertEqual(same.status, 200, same.text)
        XCTAssertEqual(names(in: "case"), ["a.txt"])
    }

    func testACaseOnlyRenameNeverReplacesAnotherFile() async throws {
        // Two names differing in case can both exist on this disk; a move never merges them.
        try club.write("case/B.txt", "upper")
        try club.write("case/b.txt", "lower")
        let moved = try await club.rpc("2/files/move_v2", ["from_path": "/case/B.txt", "to_path": "/case/b.txt"])
        XCTAssertEqual(moved.summary, "to/conflict/file")
        XCTAssertEqual(club.read("case/B.txt"), "upper")
        XCTAssertEqual(club.read("case/b.txt"), "lower")
    }

    func testABigFoldersNewNamesFindTheirCaseTwinsWithoutListingTheFolderAgain() async throws {
        // A folder past FolderNameCache.bigFolder: its names are kept by lower case for a second.
        let big = club.root.appendingPathComponent("big")
        try FileManager.default.createDirectory(at: big, withIntermediateDirectories: true)
        for index in 0..<FolderNameCache.bigFolder { try Data("\(index)".utf8).write(to: big.appendingPathComponent("n\(index).md")) }
        try club.write("big/Taken.md", "on disk")
        // A new name looked for, then the same name in another case: one file, overwritten.
        let first = try await club.upload("/big/Minutes.md", Data("first".utf8))
        XCTAssertEqual(first.status, 200, first.text)
        let again = try await club.upload("/big/MINUTES.md", Data("second".utf8), mode: "overwrite")
        XCTAssertEqual(again.status, 200, again.text)
        XCTAssertEqual(again.json["path_display"] as? String, "/big/Minutes.md")
        XCTAssertEqual(club.read("big/Minutes.md"), "second")
        // A name on disk before the listing, written in another case.
        let taken = try await club.upload("/big/taken.md", Data("x".utf8))
        XCTAssertEqual(taken.summary, "path/conflict/file")
        // A case-only rename within the second, then a third spelling: still the one file.
        let moved = try await club.rpc("2/files/move_v2", ["from_path": "/big/Minutes.md", "to_path": "/big/minutes.md"])
        XCTAssertEqual(moved.status, 200, moved.text)
        let third = try await club.upload("/big/MiNuTeS.md", Data("third".utf8), mode: "overwrite")
        XCTAssertEqual(third.status, 200, third.text)
        XCTAssertEqual(third.json["path_display"] as? String, "/big/minutes.md")
        let names = try FileManager.default.contentsOfDirectory(atPath: big.path).filter { $0.lowercased() == "minutes.md" || $0.lowercased() == "taken.md" }
        XCTAssertEqual(names.sorted(), ["Taken.md", "minutes.md"])
        XCTAssertEqual(club.read("big/minutes.md"), "third")
    }

    // MARK: Modes

    func testUploadsAndFoldersFollowTheUmask() async throws {
        let mask = umask(0o022)
        umask(mask)
        func mode(_ relative: String) throws -> Int {
            let attributes = try FileManager.default.attributesOfItem(atPath: club.root.appendingPathComponent(relative).path)
            return (attributes[.posixPermissions] as? Int ?? 0) & 0o7777
        }
        let upload = try await club.upload("/byteclub/new.txt", Data("x".utf8))
        XCTAssertEqual(upload.status, 200)
        XCTAssertEqual(try mode("byteclub/new.txt"), Int(0o666 & ~mask), "not 0600")
        let nested = try await club.upload("/made/on/the/way.txt", Data("x".utf8))
        XCTAssertEqual(nested.status, 200)
        XCTAssertEqual(try mode("made/on"), Int(0o777 & ~mask))
        let folder = try await club.rpc("2/files/create_folder_v2", ["path": "/byteclub/folder"])
        XCTAssertEqual(folder.status, 200)
        XCTAssertEqual(try mode("byteclub/folder"), Int(0o777 & ~mask))

        // Through an upload session too.
        let start = try await club.content("2/files/upload_session/start", [:], body: Data("abc".utf8))
        let id = try XCTUnwrap(start.json["session_id"] as? String)
        let finish = try await club.content("2/files/upload_session/finish", [
            "cursor": ["session_id": id, "offset": 3], "commit": ["path": "/byteclub/session.txt", "mode": "add"],
        ])
        XCTAssertEqual(finish.status, 200, finish.text)
        XCTAssertEqual(try mode("byteclub/session.txt"), Int(0o666 & ~mask))

        // Overwriting keeps a mode someone chose.
        chmod(club.root.appendingPathComponent("byteclub/ok.txt").path, 0o640)
        let overwrite = try await club.upload("/byteclub/ok.txt", Data("new".utf8), mode: "overwrite")
        XCTAssertEqual(overwrite.status, 200)
        XCTAssertEqual(try mode("byteclub/ok.txt"), 0o640)
        XCTAssertEqual(club.read("byteclub/ok.txt"), "new")
    }

    // MARK: Thumbnails

    func thumbnailArgument(_ path: String) -> [String: Any] {
        ["resource": [".tag": "path", "path": path], "format": "jpeg", "size": "w64h64", "mode": "strict"]
    }

    func testThumbnailsBeyondTheCapsAreUnsupportedImages() async throws {
        // Over 100 megapixels, even baseline (a grey 12000×9000 is 1.7 MB of zero bits).
        try Data(SyntheticJPEG.make(width: 12000, height: 9000, layout: .gray, progressive: false))
            .write(to: club.root.appendingPathComponent("byteclub/wide.jpg"))
        let wide = try await club.content("2/files/get_thumbnail_v2", thumbnailArgument("/byteclub/wide.jpg"))
        XCTAssertEqual(wide.status, 409, wide.text)
        XCTAssertEqual(wide.summary, "unsupported_image")
        // 64 megapixels progressive at 4:2:0: under the pixel cap, over the coefficient budget.
        try Data(SyntheticJPEG.make(width: 8000, height: 8000, layout: .color420, progressive: true))
            .write(to: club.root.appendingPathComponent("byteclub/square.jpg"))
        let square = try await club.content("2/files/get_thumbnail_v2", thumbnailArgument("/byteclub/square.jpg"))
        XCTAssertEqual(square.summary, "unsupported_image")
        // A JPEG whose header reads well but whose first scan asks for an impossible
        // progression (a DC scan reaching into the AC band): the decoder gives up.
        var broken = [UInt8](SyntheticJPEG.make(width: 64, height: 64, layout: .gray, progressive: true))
        let scan = try XCTUnwrap((0..<broken.count - 1).first { broken[$0] == 0xFF && broken[$0 + 1] == 0xDA })
        broken[scan + 8] = 5 // Se
        try Data(broken).write(to: club.root.appendingPathComponent("byteclub/broken.jpg"))
        let conversion = try await club.content("2/files/get_thumbnail_v2", thumbnailArgument("/byteclub/broken.jpg"))
        XCTAssertEqual(conversion.status, 409, conversion.text)
        XCTAssertEqual(conversion.summary, "conversion_error")
    }

    func testManyThumbnailsAtOnceAllArrive() async throws {
        let jpeg = try JPEG.encode(RGBImage(width: 1200, height: 800, pixels: [UInt8](repeating: 120, count: 1200 * 800 * 3)), progressive: true)
        try jpeg.write(to: club.root.appendingPathComponent("byteclub/p.jpg"))
        let club = club!
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    let argument: [String: Any] = ["resource": [".tag": "path", "path": "/byteclub/p.jpg"], "size": "w64h64"]
                    return try await club.content("2/files/get_thumbnail_v2", argument).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        XCTAssertEqual(statuses, [Int](repeating: 200, count: 12))
    }
}

/// One HTTP/1.1 exchange over a plain socket, for bytes no HTTP client would send.
enum RawHTTP {
    struct Reply {
        var status: Int
        var text: String
    }

    static func exchange(port: Int, _ request: Data, timeout seconds: Int = 10) throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var time = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var response = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = recv(fd, &buffer, buffer.count, 0)
            guard got > 0 else { break }
            response += buffer[0..<got]
            if let text = String(data: response, encoding: .utf8), let complete = complete(text), complete { break }
        }
        let text = String(decoding: response, as: UTF8.self)
        let status = text.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
        return Reply(status: status, text: text)
    }

    /// Whether a response with a Content-Length has all its body (nil: can't tell yet).
    private static func complete(_ text: String) -> Bool? {
        guard let end = text.range(of: "\r\n\r\n") else { return nil }
        let head = text[..<end.lowerBound].lowercased()
        guard let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let length = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) else { return nil }
        return text.utf8.count - text.utf8.distance(from: text.utf8.startIndex, to: end.upperBound) >= length
    }
}
