@testable import ClubServer
import DropboxWire
import Foundation
import Logging
import XCTest

/// The histories a listing looks at for `sharing_info` (who made each file's revision): a first
/// listing of a folder the server has never seen keeps nothing for the histories that are not
/// there (issue 71's peak memory), and a history another server over the same folder makes
/// afterwards for a file already listed is still found (before, the "none" kept for it hid it).
final class HistoryKeysTests: XCTestCase {
    func testAFirstListingKeepsNothingForAbsentHistoriesAndFindsOnesAnotherServerMakesLater() async throws {
        let bob = ClubMember(name: "bob", token: "bob-\(UUID().uuidString)")
        let club = try await ServerFixture(configure: { $0.members = [bob] }) { root in
            for number in 0..<200 { try Data("note \(number)\n".utf8).write(to: root.appendingPathComponent("note \(number).txt")) }
        }
        defer { Task { await club.tearDown() } }
        // The other server lists first: it gives the files their ids (`ids.json`), which this
        // store then reads, so both name each file's history alike.
        let listed = try await club.rpc("2/files/list_folder", ["path": ""], token: bob.token)
        XCTAssertEqual(listed.status, 200, listed.text)
        // The folder was there before this server looked (as a vault copied in is): its files'
        // times are behind the moment the server reads the histories on disk.
        let newest = try FileManager.default.contentsOfDirectory(atPath: club.root.path).map { name -> Int64 in
            var info = stat()
            _ = stat(club.root.path + "/" + name, &info)
            return Int64(info.st_ctim.tv_sec) * 1_000_000_000 + Int64(info.st_ctim.tv_nsec)
        }.max() ?? 0
        let deadline = Date().addingTimeInterval(5)
        // (20 ms: more than a tick of the coarse clock file times are stamped from.)
        while Self.wallClock() - 20_000_000 <= newest, Date() < deadline { await Task.yield() }
        // This server: a store of its own over the club's folder, as a second process's would be.
        let store = try FolderStore(root: club.root.path, logger: Logger(label: "history-keys-tests"), showsAuthors: true)

        let first = try await store.list(.root, recursive: false)
        XCTAssertEqual(first.count, 200)
        XCTAssertTrue(first.allSatisfy { if case .file(let file) = $0 { file.sharingInfo?.modifiedBy == nil } else { false } })
        let kept = await store.revisions.newest.count
        XCTAssertEqual(kept, 0, "nothing is kept for 200 histories that are not there")

        // The other server (the fixture's) writes as bob, over a file this store listed: its
        // history is made after this store read which histories there were.
        for (path, text) in [("/note 7.txt", "note 7, again\n")] {
            let argument = DropboxJSON.asciiEscaped(#"{"path":"\#(path)","mode":"overwrite"}"#)
            let reply = try await club.post("2/files/upload", body: Data(text.utf8),
                                            headers: ["Dropbox-API-Arg": argument, "Content-Type": "application/octet-stream"], token: bob.token)
            XCTAssertEqual(reply.status, 200, reply.text)
        }
        func author(_ name: String) async throws -> String? {
            guard case .file(let file) = try await store.metadata(DropboxPath.checked("/" + name)) else { return nil }
            return file.sharingInfo?.modifiedBy
        }
        let seven = try await author("note 7.txt")
        let eight = try await author("note 8.txt")
        XCTAssertEqual(seven, ClubMember.accountID(of: bob.name), "a file listed before, its history made since by the other server")
        XCTAssertNil(eight)
    }

    /// The wall clock in nanoseconds since 1970, as file times are.
    private static func wallClock() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
