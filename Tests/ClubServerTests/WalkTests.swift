import ClubServer
import Foundation
import XCTest

/// Walks of the tree (recursive listings, search) over symlink loops and deep folders: each
/// entry once, quickly, and a server that still stops on SIGTERM.
final class WalkTests: XCTestCase {
    var club: ServerFixture!

    override func setUp() async throws {
        club = try await ServerFixture()
        try club.write("byteclub/a.txt", "a")
        try club.write("byteclub/sub/b.txt", "b")
        try club.write("byteclub/sub/deeper/c.txt", "c")
        let folder = club.root.appendingPathComponent("byteclub")
        // A loop one level deep, and one two levels deep pointing back at /byteclub.
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("loop").path, withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("sub/deeper/up").path, withDestinationPath: "../..")
        // And one at the root, pointing at the root.
        try FileManager.default.createSymbolicLink(atPath: club.root.appendingPathComponent("again").path, withDestinationPath: club.root.path)
    }

    override func tearDown() async throws {
        await club?.tearDown()
    }

    func paths(_ reply: ServerFixture.Reply) -> [String] {
        (reply.json["entries"] as? [[String: Any]] ?? []).compactMap { $0["path_lower"] as? String }
    }

    func testRecursiveListingOfALoopHasEachEntryOnce() async throws {
        let start = ContinuousClock.now
        let reply = try await club.rpc("2/files/list_folder", ["path": "", "recursive": true])
        let elapsed = ContinuousClock.now - start
        print("recursive list_folder over three symlink loops: \(elapsed)")
        XCTAssertEqual(reply.status, 200, reply.text)
        let listed = paths(reply)
        XCTAssertEqual(listed.count, Set(listed).count, "no entry twice: \(listed)")
        // The links are listed as folders (reachable by name) but never entered by the walk.
        XCTAssertEqual(Set(listed), [
            "/again", "/byteclub", "/byteclub/a.txt", "/byteclub/loop", "/byteclub/sub", "/byteclub/sub/b.txt",
            "/byteclub/sub/deeper", "/byteclub/sub/deeper/c.txt", "/byteclub/sub/deeper/up",
        ])
        XCTAssertEqual(reply.json["has_more"] as? Bool, false)
    }

    func testSearchOverALoopFindsEachFileOnce() async throws {
        let start = ContinuousClock.now
        let reply = try await club.rpc("2/files/search_v2", ["query": "txt", "options": ["path": "", "max_results": 1000]])
        print("search_v2 over three symlink loops: \(ContinuousClock.now - start)")
        XCTAssertEqual(reply.status, 200, reply.text)
        let found = (reply.json["matches"] as? [[String: Any]] ?? []).compactMap {
            (($0["metadata"] as? [String: Any])?["metadata"] as? [String: Any])?["path_lower"] as? String
        }
        XCTAssertEqual(found.sorted(), ["/byteclub/a.txt", "/byteclub/sub/b.txt", "/byteclub/sub/deeper/c.txt"])
        let photos = try await club.rpc("2/files/search_v2", ["query": "", "options": ["path": "/byteclub", "file_extensions": ["txt"]]])
        XCTAssertEqual((photos.json["matches"] as? [Any])?.count, 3, photos.text)
    }

    func testALinkInsideTheRootIsFollowedWhenNamed() async throws {
        // Asked for by name, the link leads where it points (it stays inside the root).
        let direct = try await club.rpc("2/files/list_folder", ["path": "/byteclub/loop"])
        XCTAssertEqual(Set(paths(direct)), ["/byteclub/loop/a.txt", "/byteclub/loop/loop", "/byteclub/loop/sub"])
        let through = try await club.content("2/files/download", ["path": "/byteclub/sub/deeper/up/a.txt"])
        XCTAssertEqual(through.text, "a")
        // A recursive listing that starts at a link walks the real folder, still without loops.
        let recursive = try await club.rpc("2/files/list_folder", ["path": "/byteclub/loop", "recursive": true])
        let listed = paths(recursive)
        XCTAssertEqual(listed.count, Set(listed).count)
        XCTAssertTrue(listed.contains("/byteclub/loop/sub/deeper/c.txt"), "\(listed)")
        XCTAssertFalse(listed.contains { $0.hasPrefix("/byteclub/loop/loop/") })
    }

    func testAWalkStopsAtSixtyFourLevels() async throws {
        let deep = (1...70).map { "d\($0)" }.joined(separator: "/")
        try club.write("deep/\(deep)/bottom.txt", "far down")
        let reply = try await club.rpc("2/files/list_folder", ["path": "/deep", "recursive": true])
        XCTAssertEqual(reply.status, 200, reply.text)
        let depths = paths(reply).map { $0.split(separator: "/").count }
        XCTAssertEqual(depths.max(), 64, "entries down to 64 levels are listed, folders at 64 are not entered")
        XCTAssertFalse(paths(reply).contains { $0.hasSuffix("bottom.txt") })
        // Still reachable by name.
        let bottom = try await club.rpc("2/files/get_metadata", ["path": "/deep/\(deep)/bottom.txt"])
        XCTAssertEqual(bottom.status, 200, bottom.text)
    }

    func testSIGTERMStopsAServerThatWasAskedToWalkALoop() async throws {
        let server = try ServeChild(root: club.root)
        let search = try await server.rpc("2/files/search_v2", #"{"query":"txt","options":{"path":""}}"#)
        XCTAssertEqual(search.status, 200, search.text)
        let listing = try await server.rpc("2/files/list_folder", #"{"path":"","recursive":true}"#)
        XCTAssertEqual(listing.status, 200, listing.text)
        let peak = server.memory("VmHWM") ?? 0
        print("serve after walking the loops: peak RSS \(peak >> 20) MB")
        XCTAssertLessThan(peak, 200 << 20)
        XCTAssertTrue(server.terminate(within: 10), "the server did not stop on SIGTERM")
    }
}
