import ByteClubApp
import Foundation
import XCTest

/// The outbox on disk: order, durability across re-opening, damaged files, and the send lock.
final class OutboxTests: XCTestCase {
    var folder: URL!

    override func setUp() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-outbox-tests-\(UUID().uuidString)/outbox")
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: folder.deletingLastPathComponent())
    }

    /// An item queued at the tests' fixed time (whole seconds, as ISO 8601 keeps them).
    static func note(_ kind: OutboxItem.Kind, _ name: String, text: String? = "text\n", baseRev: String? = nil) -> OutboxItem {
        OutboxItem(kind: kind, path: "/byteclub/\(name).txt", baseRev: baseRev, title: name, text: text, queued: Clock.now)
    }

    func testAppendNumbersItemsInOrderAndTheFolderListsInThatOrder() throws {
        let outbox = Outbox(directory: folder)
        XCTAssertTrue(outbox.isEmpty)
        let first = try outbox.append(Self.note(.create, "One"))
        let second = try outbox.append(Self.note(.save, "One", text: "more\n", baseRev: "0000000000000001"))
        let third = try outbox.append(Self.note(.delete, "Two", text: nil, baseRev: "0000000000000002"))
        XCTAssertEqual([first.seq, second.seq, third.seq], [1, 2, 3])
        XCTAssertEqual(outbox.all().map(\.id), [first.id, second.id, third.id])
        XCTAssertEqual(outbox.count, 3)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertEqual(names, ["000000000001-\(first.id).json", "000000000002-\(second.id).json", "000000000003-\(third.id).json"])
        // The folder holds no leftover temporary files: every write was renamed into place.
        XCTAssertFalse(try FileManager.default.contentsOfDirectory(atPath: folder.path).contains { $0.hasSuffix(".tmp") })
    }

    func testItemsSurviveReopeningTheFolder() throws {
        var photo = OutboxItem(kind: .upload, path: "/byteclub/photos/a.jpg", title: "a.jpg", localFile: "/tmp/a.jpg",
                               localSize: 1234, localModified: Clock.ago(60), queued: Clock.now)
        photo = try Outbox(directory: folder).append(photo)
        let rename = try Outbox(directory: folder).append(OutboxItem(kind: .rename, path: "/byteclub/A.txt", newPath: "/byteclub/B.txt",
                                                                     baseRev: "0123456789abcdef", title: "A", draftID: "note-x", queued: Clock.now))
        let reopened = Outbox(directory: folder)
        XCTAssertEqual(reopened.all(), [photo, rename])
        // A new instance carries on the numbering.
        XCTAssertEqual(try reopened.append(Self.note(.create, "C")).seq, 3)
    }

    func testADamagedFileIsSkippedAndKept() throws {
        let outbox = Outbox(directory: folder)
        let first = try outbox.append(Self.note(.create, "One"))
        let damaged = folder.appendingPathComponent("000000000002-damaged.json")
        try Data("{\"kind\": \"save\", \"path\": ".utf8).write(to: damaged)
        let third = try outbox.append(Self.note(.create, "Three"))
        XCTAssertEqual(outbox.all().map(\.id), [first.id, third.id])
        try outbox.remove(first)
        try outbox.remove(third)
        XCTAssertTrue(outbox.isEmpty)
        XCTAssertTrue(FileManager.default.fileExists(atPath: damaged.path), "a file that cannot be read is never deleted")
    }

    func testRemoveAndReplace() throws {
        let outbox = Outbox(directory: folder)
        let first = try outbox.append(Self.note(.save, "One", baseRev: "0000000000000001"))
        var second = try outbox.append(Self.note(.save, "One", text: "two\n", baseRev: "0000000000000001"))
        second.baseRev = "0000000000000009"
        second.path = "/byteclub/Uno.txt"
        try outbox.replace(second)
        XCTAssertEqual(Outbox(directory: folder).all(), [first, second])
        try outbox.remove(first)
        XCTAssertEqual(Outbox(directory: folder).all(), [second])
        try outbox.remove(first) // already gone: not an error
        try outbox.remove(second)
        XCTAssertTrue(Outbox(directory: folder).isEmpty)
    }

    func testTheSendLockRefusesASecondHolder() async throws {
        let outbox = Outbox(directory: folder)
        let other = Outbox(directory: folder)
        let inner = await outbox.withSendLock { () async -> [Int?] in
            let same = await outbox.withSendLock { () async -> Int in 1 }
            let another = await other.withSendLock { () async -> Int in 2 }
            return [same, another]
        }
        XCTAssertEqual(inner, [nil, nil], "neither this instance nor another one on the folder gets the lock while it is held")
        let after = await other.withSendLock { () async -> Int in 3 }
        XCTAssertEqual(after, 3, "released when the holder is done")
    }

    func testTheSendLockIsReleasedWhenTheBodyThrows() async throws {
        struct Failure: Error {}
        let outbox = Outbox(directory: folder)
        do {
            _ = try await outbox.withSendLock { () async throws -> Int in throw Failure() }
            XCTFail("expected the body's error")
        } catch is Failure {}
        let again = await Outbox(directory: folder).withSendLock { () async -> Int in 1 }
        XCTAssertEqual(again, 1)
    }
}
