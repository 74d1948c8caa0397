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

/// The last progress figure, from whichever task reports it.
private final class SentBytes: @unchecked Sendable {
    // @unchecked Sendable: `latest` is only touched under `lock`.
    private let lock = NSLock()
    private var latest: Int64 = 0
    func set(_ value: Int64) { lock.withLock { latest = max(latest, value) } }
    var value: Int64 { lock.withLock { latest } }
}
