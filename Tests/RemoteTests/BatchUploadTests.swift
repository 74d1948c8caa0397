import ClubServer
import DropboxWire
import Foundation
import Remote
import XCTest

/// DropboxStore's batch uploads (closed sessions committed by `finish_batch_v2`) against the
/// real club server on loopback: each answer at its item's position, a conflict beside
/// successes, more than 1,000 files split over calls.
final class BatchUploadTests: XCTestCase {
    var club: LiveClub!

    override func setUp() async throws {
        club = try await LiveClub()
    }

    override func tearDown() async throws {
        await club?.close()
    }

    func testFilesAndBytesLandWithAConflictInTheirMidst() async throws {
        let store = club.store()
        _ = try await store.upload(data: Data("taken\n".utf8), to: "/byteclub/b.md", mode: .add, autorename: false)
        let local = club.base.appendingPathComponent("a.md")
        try Data("from a file\n".utf8).write(to: local)
        let empty = club.base.appendingPathComponent("empty.md")
        try Data().write(to: empty)
        let items = [
            BatchUpload.Item(source: .file(local), path: "/byteclub/a.md"),
            BatchUpload.Item(source: .data(Data("not the same\n".utf8)), path: "/byteclub/b.md"),
            BatchUpload.Item(source: .data(Data("in memory\n".utf8)), path: "/byteclub/sub/c.md"),
            BatchUpload.Item(source: .file(empty), path: "/byteclub/empty.md"),
        ]
        let results = await store.uploadBatch(items, mode: .add, progress: nil)
        XCTAssertEqual(results.count, 4)
        XCTAssertEqual(try results[0].get().path, "/byteclub/a.md")
        XCTAssertEqual(results[1].failureValue, .conflict("/byteclub/b.md"))
        XCTAssertEqual(try results[2].get().contentHash, ContentHasher.hash(Data("in memory\n".utf8)))
        XCTAssertEqual(try results[3].get().size, 0)
        let read = try await store.read("/byteclub/b.md")
        XCTAssertEqual(read.data, Data("taken\n".utf8), "the conflict left the file as it was")
        // Overwrite replaces it.
        let again = await store.uploadBatch([items[1]], mode: .overwrite, progress: nil)
        XCTAssertEqual(try again[0].get().size, 13)
    }

    func testMoreThanAThousandFilesGoOverSeveralCalls() async throws {
        let store = club.store()
        let items = (0..<1003).map { BatchUpload.Item(source: .data(Data("note \($0)\n".utf8)), path: "/byteclub/many/n\($0).md") }
        let sent = SentBytes()
        let results = await store.uploadBatch(items, mode: .add, progress: { sent.set($0) })
        XCTAssertEqual(results.filter { (try? $0.get()) != nil }.count, 1003)
        let listed = try await store.list("/byteclub/many")
        XCTAssertEqual(listed.count, 1003)
        XCTAssertEqual(sent.value, items.reduce(0) { total, item in
            guard case .data(let data) = item.source else { return total }
            return total + Int64(data.count)
        })
    }
}

extension BatchUploadTests {
    /// The same items the Dropbox way (a store that does not speak the club's routes): closed
    /// sessions committed by `finish_batch_v2`, each answer at its position as `upload_batch` gives them.
    func testOnDropboxsRoutesTheFilesGoAsClosedSessionsCommittedTogether() async throws {
        var retry = RetryPolicy()
        retry.maxAttempts = 2
        retry.baseDelay = 0.01
        let store = DropboxStore(displayName: "live", endpoints: .club(club.server.baseURL), tokens: StaticToken(LiveClub.alice.token),
                                 connection: ConnectionOptions(idleTimeout: 10), retry: retry, speaksClub: false)
        _ = try await store.upload(data: Data("taken\n".utf8), to: "/byteclub/b.md", mode: .add, autorename: false)
        let items = (0..<300).map { BatchUpload.Item(source: .data(Data("note \($0)\n".utf8)), path: "/byteclub/dropbox/n\($0).md") }
            + [BatchUpload.Item(source: .data(Data("not the same\n".utf8)), path: "/byteclub/b.md")]
        let results = await store.uploadBatch(items, mode: .add, progress: nil)
        XCTAssertEqual(results.prefix(300).filter { (try? $0.get()) != nil }.count, 300)
        XCTAssertEqual(results[300].failureValue, .conflict("/byteclub/b.md"))
        let listed = try await store.list("/byteclub/dropbox")
        XCTAssertEqual(listed.count, 300)
    }

    /// Front matter tags of many notes in one `tags/add_batch`: each entry's answer at its
    /// position, a missing file that entry's failure, a tag already there changing nothing.
    func testManyFilesTagsGoInOneCall() async throws {
        let store = club.store()
        for name in ["a", "b"] { _ = try await store.upload(data: Data(name.utf8), to: "/byteclub/\(name).md", mode: .add, autorename: false) }
        try await store.addTag("trip", to: "/byteclub/a.md")
        let failures = try await store.addTags([
            TagAddition(path: "/byteclub/a.md", tags: ["trip", "boat"]),
            TagAddition(path: "/byteclub/gone.md", tags: ["trip"]),
            TagAddition(path: "/byteclub/b.md", tags: ["project/alpha"]),
        ])
        XCTAssertEqual(failures.count, 3)
        XCTAssertNil(failures[0])
        XCTAssertEqual(failures[1], .notFound("/byteclub/gone.md"))
        XCTAssertNil(failures[2])
        let tags = try await store.tags(of: ["/byteclub/a.md", "/byteclub/b.md"])
        XCTAssertEqual(tags["/byteclub/a.md"], ["trip", "boat"])
        XCTAssertEqual(tags["/byteclub/b.md"], ["project/alpha"])
    }
}

/// The last progress figure, from whichever task reports it.
private final class SentBytes: @unchecked Sendable {
    // @unchecked Sendable: `latest` is only touched under `lock`.
    private let lock = NSLock()
    private var latest: Int64 = 0
    func set(_ value: Int64) { lock.withLock { latest = max(latest, value) } }
    var value: Int64 { lock.withLock { latest } }
}
