import ClubServer
import Foundation
import Transfer
import XCTest

/// Hostile paths never reach outside the root, for reading or writing.
final class SecurityTests: XCTestCase {
    var club: ServerFixture!
    var secret: URL!
    let secretText = "the club's bank PIN is 0000"

    override func setUp() async throws {
        club = try await ServerFixture()
        // A file beside the root, which no request may read or change.
        secret = club.outside.appendingPathComponent("secret.txt")
        try Data(secretText.utf8).write(to: secret)
        try club.write("byteclub/ok.txt", "fine")
        // Symlinks out of the root, one to a file and one to a directory.
        try FileManager.default.createSymbolicLink(atPath: club.root.appendingPathComponent("byteclub/escape.txt").path, withDestinationPath: secret.path)
        try FileManager.default.createSymbolicLink(atPath: club.root.appendingPathComponent("byteclub/out").path, withDestinationPath: club.outside.path)
        // A symlink that stays inside is fine.
        try FileManager.default.createSymbolicLink(atPath: club.root.appendingPathComponent("byteclub/alias.txt").path, withDestinationPath: club.root.appendingPathComponent("byteclub/ok.txt").path)
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    static let hostilePaths: [String] = [
        "/..", "/../secret.txt", "/byteclub/../../secret.txt", "/byteclub/../..", "../secret.txt", "..",
        "/byteclub/%2e%2e/%2e%2e/secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/byteclub/%2e%2e",
        "/byteclub/..%2fsecret.txt", "/byteclub/%2e%2e%2f%2e%2e%2fsecret.txt",
        "/./secret.txt", "/byteclub/./ok.txt", "//secret.txt", "/byteclub//ok.txt", "/byteclub/ok.txt/",
        "/byteclub/ok\u{0}.txt", "/byteclub/\u{0}", "/byteclub\\..\\..\\secret.txt", "/..\\secret.txt", "\\etc\\passwd",
        "C:\\Windows\\win.ini", "/byteclub/" + String(repeating: "a", count: 256), "/" + String(repeating: "x/", count: 2100),
        "/byteclub/escape.txt", "/byteclub/out/secret.txt", "/byteclub/out", "/.byteclub/token", "/.BYTECLUB/ids.json",
        "/byteclub/line\nbreak.txt", "/byteclub/trailing-dot.", "/byteclub/trailing-space ", "~/secret.txt",
    ]

    func assertSecretUntouched(_ context: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try? String(contentsOf: secret, encoding: .utf8), secretText, context, file: file, line: line)
    }

    func testReadsNeverEscape() async throws {
        XCTAssertGreaterThanOrEqual(Self.hostilePaths.count, 30)
        for path in Self.hostilePaths {
            let download = try await club.content("2/files/download", ["path": path])
            XCTAssertNotEqual(download.status, 200, "download \(path.debugDescription)")
            XCTAssertFalse(download.text.contains("PIN"), "download \(path.debugDescription) leaked the secret")
            let metadata = try await club.rpc("2/files/get_metadata", ["path": path])
            XCTAssertNotEqual(metadata.status, 200, "get_metadata \(path.debugDescription)")
            let list = try await club.rpc("2/files/list_folder", ["path": path])
            XCTAssertFalse(list.text.contains("secret"), "list_folder \(path.debugDescription) showed outside files")
            let thumbnail = try await club.content("2/files/get_thumbnail_v2", ["resource": [".tag": "path", "path": path]])
            XCTAssertNotEqual(thumbnail.status, 200, "thumbnail \(path.debugDescription)")
        }
        assertSecretUntouched("after reads")
    }

    func testWritesNeverEscape() async throws {
        for path in Self.hostilePaths {
            for mode in ["add", "overwrite"] {
                let reply = try await club.upload(path, Data("pwned".utf8), mode: mode)
                XCTAssertNotEqual(reply.status, 200, "upload (\(mode)) \(path.debugDescription) was accepted")
            }
            _ = try await club.rpc("2/files/delete_v2", ["path": path])
            _ = try await club.rpc("2/files/move_v2", ["from_path": "/byteclub/ok.txt", "to_path": path])
            _ = try await club.rpc("2/files/move_v2", ["from_path": path, "to_path": "/byteclub/stolen.txt"])
            _ = try await club.rpc("2/files/create_folder_v2", ["path": path])
            assertSecretUntouched("after writes to \(path.debugDescription)")
        }
        XCTAssertEqual(club.read("byteclub/ok.txt"), "fine")
        XCTAssertNil(club.read("byteclub/stolen.txt"))
        let outsideNames = try FileManager.default.contentsOfDirectory(atPath: club.outside.path).sorted()
        XCTAssertEqual(outsideNames, ["club", "secret.txt"], "nothing was created outside the root")
    }

    func testSymlinksInsideTheRootStillWork() async throws {
        let reply = try await club.content("2/files/download", ["path": "/byteclub/alias.txt"])
        XCTAssertEqual(reply.status, 200)
        XCTAssertEqual(reply.text, "fine")
        let escape = try await club.content("2/files/download", ["path": "/byteclub/escape.txt"])
        XCTAssertEqual(escape.summary, "path/malformed_path")
        // Listing shows neither link that leaves the root.
        let list = try await club.rpc("2/files/list_folder", ["path": "/byteclub", "recursive": true])
        let names = Set((list.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
        XCTAssertEqual(names, ["ok.txt", "alias.txt"])
    }

    func testTokenIsNotLoggedOrEchoed() async throws {
        let reply = try await club.rpc("2/files/list_folder", ["path": "/nope"])
        XCTAssertFalse(reply.text.contains(club.token))
        let unauthorized = try await club.rpc("2/files/list_folder", ["path": ""], token: "guess")
        XCTAssertFalse(unauthorized.text.contains("guess"))
    }
}
