import Foundation
@testable import Remote
import TestSupport
import XCTest

/// The live club on WebDAV, by polling, against a real `rclone serve webdav` (whose folders
/// have no ETag, so every look is a listing): another member's additions, changes and
/// deletions come out of `listChanges` from a cursor (kept on disk between runs too), a
/// longpoll wakes on them, and a write of this store's own makes it look every 2 s instead of 10.
final class WebDAVChangesTests: XCTestCase {
    var server: RcloneWebDAV!
    var store: WebDAVStore!
    /// Another member: a second store with its own connection.
    var other: WebDAVStore!

    override func setUp() async throws {
        try Requirement.tool(RcloneWebDAV.executable != nil, "rclone is not installed (make deps)")
        server = try RcloneWebDAV()
        try FileManager.default.createDirectory(at: server.file("byteclub/photos/2026"), withIntermediateDirectories: true)
        try write("first\n", "byteclub/a.txt")
        try write("second\n", "byteclub/b.txt")
        try write("jpeg", "byteclub/photos/2026/desk.jpg")
        store = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)
        other = try await WebDAVStore.connect(url: server.url, user: server.user, password: server.password)
    }

    override func tearDown() async throws {
        store = nil
        other = nil
        server?.remove()
    }

    private func write(_ text: String, _ relative: String) throws {
        let url = server.file(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    private func updated(_ changes: [RemoteChange]) -> [String: RemoteEntry] {
        var found: [String: RemoteEntry] = [:]
        for case .updated(let entry) in changes { found[entry.path] = entry }
        return found
    }

    private func deleted(_ changes: [RemoteChange]) -> [String] {
        changes.compactMap { if case .deleted(_, let path, _) = $0 { path } else { nil } }
    }

    /// Another member's upload still on its way in (its hidden temporary name) is no change:
    /// the polls read the same listing as everything else.
    func testAnUploadOnItsWayInIsNoChange() async throws {
        let cursor = try await store.latestCursor("/byteclub", recursive: false)
        let staged = WebDAVStore.temporaryName()
        try write("half a no", "byteclub/" + staged)
        try write("whole\n", "byteclub/c.txt")
        let changes = try await store.listChanges(since: cursor)
        XCTAssertEqual(Set(updated(changes.changes).keys), ["/byteclub/c.txt"], "\(changes.changes)")
    }

    func testAddedChangedAndDeletedFromACursorKeptOnDisk() async throws {
        let cursor = try await store.latestCursor("/byteclub", recursive: false)
        XCTAssertEqual(cursor.folder, "/byteclub")
        // Nothing changed: nothing to say, and the cursor after it says the same.
        let quiet = try await store.listChanges(since: cursor)
        XCTAssertEqual(quiet.changes, [])

        // The cursor goes to disk and back, as the app's cache keeps it across a restart.
        let kept = try JSONDecoder().decode(RemoteCursor.self, from: try JSONEncoder().encode(cursor))
        // Another member adds a note, rewrites one and deletes one, through WebDAV.
        _ = try await other.upload(data: Data("new from bob ✓\n".utf8), to: "/byteclub/Trip plan.txt", mode: .add, autorename: false)
        let opened = try await other.metadata("/byteclub/a.txt")
        let rewritten = try await other.upload(data: Data("first, and more\n".utf8), to: "/byteclub/a.txt", mode: .update(rev: opened.rev!),
                                               autorename: false)
        _ = try await other.delete("/byteclub/b.txt")

        let delta = try await store.listChanges(since: kept)
        XCTAssertEqual(deleted(delta.changes), ["/byteclub/b.txt"])
        if case .deleted(let name, _, let lower) = delta.changes.first { XCTAssertEqual([name, lower], ["b.txt", "/byteclub/b.txt"]) }
        let updates = updated(delta.changes)
        XCTAssertEqual(Set(updates.keys), ["/byteclub/Trip plan.txt", "/byteclub/a.txt"])
        XCTAssertEqual(updates["/byteclub/a.txt"]?.rev, rewritten.rev, "the change carries the ETag the server has now")
        XCTAssertEqual(updates["/byteclub/Trip plan.txt"]?.size, Int64("new from bob ✓\n".utf8.count))
        XCTAssertFalse(updates.keys.contains("/byteclub/photos"), "a folder already there is no news")

        // The cursor after them has them all: asked again, nothing.
        let after = try await store.listChanges(since: delta.cursor)
        XCTAssertEqual(after.changes, [])
    }

    func testRecursiveCursorSeesPhotosInSubfoldersAndAFolderDeletedWhole() async throws {
        let cursor = try await store.latestCursor("/byteclub/photos", recursive: true)
        try write("another jpeg", "byteclub/photos/2026/trip/lake.jpg")
        let added = try await store.listChanges(since: cursor)
        XCTAssertEqual(Set(updated(added.changes).keys), ["/byteclub/photos/2026/trip", "/byteclub/photos/2026/trip/lake.jpg"])
        XCTAssertEqual(deleted(added.changes), [])

        try FileManager.default.removeItem(at: server.file("byteclub/photos/2026"))
        let gone = try await store.listChanges(since: added.cursor)
        // The folder before what was in it, so a reader that drops a folder's contents with it says it once.
        XCTAssertEqual(deleted(gone.changes), ["/byteclub/photos/2026", "/byteclub/photos/2026/desk.jpg", "/byteclub/photos/2026/trip",
                                               "/byteclub/photos/2026/trip/lake.jpg"])
        XCTAssertEqual(updated(gone.changes), [:])
    }

    func testACursorThatIsNotASnapshotIsAReset() async throws {
        let foreign = RemoteCursor(folder: "/byteclub", recursive: false, value: "AAGx0bp_dropbox_cursor")
        do {
            _ = try await store.listChanges(since: foreign)
            XCTFail("a Dropbox cursor is not a WebDAV snapshot")
        } catch {
            XCTAssertEqual(error, .cursorReset)
        }
        var escaping = try await store.latestCursor("/byteclub", recursive: false)
        escaping.value = WebDAVSnapshot.prefix + #"{"folders":{"":""},"items":{"../etc/passwd":"x"}}"#
        do {
            _ = try await store.longpoll(escaping, timeout: 5)
            XCTFail("a path outside the folder is refused")
        } catch {
            XCTAssertEqual(error, .cursorReset)
        }
    }

    /// A longpoll looks once per interval: quiet, it answers "no changes" at its timeout; a
    /// change by someone else wakes it at the next look.
    func testLongpollWakesOnAnotherMembersChangeAndOtherwiseTimesOut() async throws {
        let store: WebDAVStore = self.store
        store.polling.schedule = WebDAVPollSchedule(interval: .milliseconds(300), burstInterval: .milliseconds(300))
        let cursor = try await store.latestCursor("/byteclub", recursive: false)
        let began = ContinuousClock.now
        let quiet = try await store.longpoll(cursor, timeout: 2)
        XCTAssertFalse(quiet.changes)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - began, .seconds(2))
        XCTAssertGreaterThanOrEqual(store.pollCounts.checks, 4, "a look every 300 ms")

        let waiting = Task { try await store.longpoll(cursor, timeout: 60) }
        try write("from someone else\n", "byteclub/c.txt")
        let answer = try await waiting.value
        XCTAssertTrue(answer.changes)
        let delta = try await store.listChanges(since: cursor)
        XCTAssertEqual(Set(updated(delta.changes).keys), ["/byteclub/c.txt"])
    }

    /// The 2 s burst: after a write of this store's own, looks come at the short interval, so
    /// another member's answer shows long before the normal interval; without one, no look
    /// comes before the normal interval.
    func testOwnWriteBringsLooksNearer() async throws {
        let normal: Duration = .seconds(6)
        store.polling.schedule = WebDAVPollSchedule(interval: normal, burstInterval: .milliseconds(250), burstLength: .seconds(30))

        // No write of ours yet: another member's change waits for the normal interval.
        let began = ContinuousClock.now
        let cursor = try await store.latestCursor("/byteclub", recursive: false)
        try write("bob was here\n", "byteclub/bob.txt")
        let slow = try await store.longpoll(cursor, timeout: 30)
        XCTAssertTrue(slow.changes)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - began, normal, "no look before the normal interval")

        // Our own save, then someone answers: seen within a couple of short intervals.
        _ = try await store.upload(data: Data("mine\n".utf8), to: "/byteclub/mine.txt", mode: .add, autorename: false)
        let mine = try await store.latestCursor("/byteclub", recursive: false)
        let answered = ContinuousClock.now
        try write("bob answers\n", "byteclub/answer.txt")
        let fast = try await store.longpoll(mine, timeout: 30)
        XCTAssertTrue(fast.changes)
        XCTAssertLessThan(ContinuousClock.now - answered, .seconds(3), "looked at the short interval after our own write")
    }
}
