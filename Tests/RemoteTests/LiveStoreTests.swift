import ClubServer
import Foundation
import Synchronization
import Remote
import XCTest

/// A club server on loopback with members, a short longpoll second and a small journal, for the
/// live-club calls.
final class LiveClub: @unchecked Sendable {
    // @unchecked Sendable: every property is a `let` set in init, of Sendable types.
    let base: URL
    let root: URL
    let server: ClubServer
    static let alice = ClubMember(name: "Alice Liddell", token: "alice-token")
    static let bob = ClubMember(name: "Bob", token: "bob-token")

    init(port: Int = 0, base: URL? = nil, tweak: (inout ClubServerConfiguration) -> Void = { _ in }) async throws {
        self.base = base ?? FileManager.default.temporaryDirectory.appendingPathComponent("live-tests-\(UUID().uuidString)")
        root = self.base.appendingPathComponent("club")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("byteclub"), withIntermediateDirectories: true)
        var configuration = ClubServerConfiguration(root: root.path, token: "")
        configuration.members = [Self.alice, Self.bob]
        configuration.port = port
        configuration.logger.logLevel = .error
        tweak(&configuration)
        server = try await ClubServer.start(configuration)
    }

    func store(_ member: ClubMember = LiveClub.alice, token: String? = nil) -> DropboxStore {
        var retry = RetryPolicy()
        retry.maxAttempts = 2
        retry.baseDelay = 0.01
        return DropboxStore(displayName: "live", endpoints: .club(server.baseURL), tokens: StaticToken(token ?? member.token),
                            connection: ConnectionOptions(idleTimeout: 10), retry: retry)
    }

    /// Stops the server; the folder stays unless `removing`.
    func close(removing: Bool = true) async {
        await server.stop()
        if removing { try? FileManager.default.removeItem(at: base) }
    }
}

/// DropboxStore's live-club calls against the real club server over loopback HTTP.
final class LiveStoreTests: XCTestCase {
    var club: LiveClub!

    override func setUp() async throws {
        club = try await LiveClub { configuration in
            // A longpoll's "second" lasts 10 ms: timeout 30 answers after 0.3 s.
            configuration.longpollTimeUnit = .milliseconds(10)
        }
    }

    override func tearDown() async throws {
        await club?.close()
    }

    /// Issue 54: who deleted a file is asked on the club's own route (`/2/byteclub/files/list_revisions`),
    /// and only by a club's store: one in Dropbox mode (`--dropbox --dropbox-api` pointed at a
    /// club server) asks Dropbox's route, whose answer names no one, and reads no batches.
    func testWhoDeletedAFileIsAskedOnlyInClubMode() async throws {
        let alice = club.store()
        let bob = club.store(LiveClub.bob)
        _ = try await alice.upload(data: Data("soon gone".utf8), to: "/byteclub/Gone.txt", mode: .add, autorename: false)
        _ = try await bob.delete("/byteclub/Gone.txt")
        let asClub = try await alice.revisions("/byteclub/Gone.txt")
        XCTAssertTrue(asClub.isDeleted)
        XCTAssertEqual(asClub.deletedBy, ClubMember.accountID(of: LiveClub.bob.name))
        XCTAssertTrue(alice.speaksClub && alice.readsInBatches)

        let dropboxMode = DropboxStore(displayName: "dropbox", endpoints: .club(club.server.baseURL), tokens: StaticToken(LiveClub.alice.token),
                                       connection: ConnectionOptions(idleTimeout: 10), speaksClub: false)
        XCTAssertFalse(dropboxMode.readsInBatches)
        let asDropbox = try await dropboxMode.revisions("/byteclub/Gone.txt")
        XCTAssertTrue(asDropbox.isDeleted)
        XCTAssertNil(asDropbox.deletedBy, "Dropbox's route names no one")
        XCTAssertEqual(asDropbox.entries.map(\.rev), asClub.entries.map(\.rev))
    }

    func testChangesSinceACursorWithDeletions() async throws {
        let store = club.store()
        _ = try await store.upload(data: Data("old".utf8), to: "/byteclub/old.txt", mode: .add, autorename: false)
        let kept = try await store.upload(data: Data("v1".utf8), to: "/byteclub/kept.txt", mode: .add, autorename: false)
        let cursor = try await store.latestCursor("/byteclub", recursive: false)
        XCTAssertEqual(cursor.folder, "/byteclub")
        let none = try await store.listChanges(since: cursor)
        XCTAssertEqual(none.changes, [], "nothing changed since the latest cursor")

        let fresh = try await store.upload(data: Data("new".utf8), to: "/byteclub/New.txt", mode: .add, autorename: false)
        let changed = try await store.upload(data: Data("v2".utf8), to: "/byteclub/kept.txt", mode: .update(rev: try XCTUnwrap(kept.rev)), autorename: false)
        _ = try await store.delete("/byteclub/old.txt")
        _ = try await store.createFolder("/byteclub/photos")
        let delta = try await store.listChanges(since: cursor)
        let byPath = Dictionary(delta.changes.map { ($0.pathLower, $0) }, uniquingKeysWith: { _, last in last })
        XCTAssertEqual(byPath["/byteclub/new.txt"], .updated(fresh))
        guard case .updated(let keptNow) = byPath["/byteclub/kept.txt"] else { return XCTFail("kept.txt not changed: \(delta.changes)") }
        XCTAssertEqual(keptNow.rev, changed.rev)
        guard case .deleted(let name, let path, _) = byPath["/byteclub/old.txt"] else { return XCTFail("no deletion: \(delta.changes)") }
        XCTAssertEqual(name, "old.txt")
        XCTAssertEqual(path, "/byteclub/old.txt")
        guard case .updated(let folder) = byPath["/byteclub/photos"] else { return XCTFail("no folder: \(delta.changes)") }
        XCTAssertEqual(folder.kind, .folder)

        // The new cursor sees only what comes after it.
        let after = try await store.listChanges(since: delta.cursor)
        XCTAssertEqual(after.changes, [])
        XCTAssertEqual(after.cursor.folder, "/byteclub")
    }

    func testLongpollWakesOnACommitAndTimesOutOtherwise() async throws {
        let store = club.store()
        let cursor = try await store.latestCursor("/byteclub", recursive: false)
        let quiet = try await store.longpoll(cursor, timeout: 30)
        XCTAssertFalse(quiet.changes, "nothing changed: the (shortened) 30 s passed")

        let poll = Task { () async throws -> (LongpollAnswer, ContinuousClock.Instant) in
            (try await store.longpoll(cursor, timeout: 480), ContinuousClock.now)
        }
        let deadline = Date().addingTimeInterval(5)
        while club.server.waitingLongpolls == 0 && Date() < deadline { try await Task.sleep(for: .milliseconds(2)) }
        XCTAssertEqual(club.server.waitingLongpolls, 1)
        let committed = ContinuousClock.now
        _ = try await club.store(LiveClub.bob).upload(data: Data("hi".utf8), to: "/byteclub/hello.txt", mode: .add, autorename: false)
        let (answer, answered) = try await poll.value
        XCTAssertTrue(answer.changes)
        // Woken by the commit, long before its 480 s ran out (how soon is a benchmark figure:
        // transfer-bench live).
        XCTAssertLessThan(answered - committed, .seconds(10), "the commit woke the longpoll")
    }

    func testLongpollNeedsNoToken() async throws {
        let cursor = try await club.store().latestCursor("/byteclub", recursive: false)
        _ = try await club.store().upload(data: Data("x".utf8), to: "/byteclub/x.txt", mode: .add, autorename: false)
        let stranger = club.store(token: "not-a-member")
        let answer = try await stranger.longpoll(cursor, timeout: 30)
        XCTAssertTrue(answer.changes)
        await assertThrows(.unauthorized(.memberToken)) { () async throws(RemoteError) in try await stranger.listChanges(since: cursor) }
    }

    func testAForeignCursorIsRefusedClearly() async throws {
        let store = club.store()
        do {
            _ = try await store.listChanges(since: RemoteCursor(folder: "/byteclub", recursive: false, value: "not-a-cursor"))
            XCTFail("a made-up cursor was accepted")
        } catch {
            // Dropbox answers a malformed cursor with 400 or `reset`; either way, a clear error.
            XCTAssertTrue(error == .cursorReset || error.message.contains("400"), error.message)
        }
    }

    func testResetAfterTheJournalMovedOn() async throws {
        await club.close()
        club = try await LiveClub { configuration in
            configuration.journalLimit = 2
            configuration.longpollTimeUnit = .milliseconds(10)
        }
        let store = club.store()
        let cursor = try await store.latestCursor("/byteclub", recursive: false)
        for index in 0..<8 {
            _ = try await store.upload(data: Data("\(index)".utf8), to: "/byteclub/n\(index).txt", mode: .add, autorename: false)
        }
        await assertThrows(.cursorReset) { () async throws(RemoteError) in try await store.listChanges(since: cursor) }
        // A reset is what watchers list again on; a fresh cursor works.
        let fresh = try await store.latestCursor("/byteclub", recursive: false)
        let listing = try await store.listAll("/byteclub", recursive: false)
        XCTAssertEqual(listing.count, 8)
        let after = try await store.listChanges(since: fresh)
        XCTAssertEqual(after.changes, [])
    }

    func testAPagedListingIsHeardAsItComesIn() async throws {
        let folder = club.root.appendingPathComponent("byteclub/many")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for n in 0..<2_500 { try Data("\(n)".utf8).write(to: folder.appendingPathComponent(String(format: "n%04d.md", n))) }
        let heard = Mutex<[Int]>([])
        let all = try await club.store().listRecursively("/byteclub", partial: { progress in
            heard.withLock { $0.append(progress.firstPage?.count ?? -progress.count) }
        })
        XCTAssertEqual(all.filter { $0.kind == .file }.count, 2_500)
        // The first page of 2,000 (the folder and 1,999 notes) with its entries, and nothing once the last is in.
        XCTAssertEqual(heard.withLock { $0 }, [2_000])
    }

    func testRevisionsNewestFirstRestoreAndRevDownloads() async throws {
        let alice = club.store(LiveClub.alice)
        let bob = club.store(LiveClub.bob)
        let first = try await alice.upload(data: Data("one".utf8), to: "/byteclub/Note.txt", mode: .add, autorename: false)
        let second = try await bob.upload(data: Data("two!".utf8), to: "/byteclub/note.txt", mode: .update(rev: try XCTUnwrap(first.rev)), autorename: false)
        let third = try await alice.upload(data: Data("three".utf8), to: "/byteclub/note.txt", mode: .overwrite, autorename: false)

        let history = try await alice.revisions("/byteclub/note.txt")
        XCTAssertFalse(history.isDeleted)
        XCTAssertFalse(history.hasMore)
        XCTAssertEqual(history.entries.map(\.rev), [third.rev, second.rev, first.rev], "newest first")
        XCTAssertEqual(history.entries.map(\.size), [5, 4, 3])
        let me = try await alice.currentAccount()
        let them = try await bob.currentAccount()
        XCTAssertEqual(history.entries.map(\.modifiedBy), [me.id, them.id, me.id], "each revision says who made it")

        let page = try await alice.revisions("/byteclub/note.txt", limit: 2)
        XCTAssertEqual(page.entries.map(\.rev), [third.rev, second.rev])
        XCTAssertTrue(page.hasMore)
        let older = try await alice.revisions("/byteclub/note.txt", limit: 2, before: page.entries.last?.rev)
        XCTAssertEqual(older.entries.map(\.rev), [first.rev])

        let old = try await bob.read(rev: try XCTUnwrap(first.rev))
        XCTAssertEqual(String(decoding: old.data, as: UTF8.self), "one")
        XCTAssertEqual(old.entry.rev, first.rev)

        let restored = try await bob.restore("/byteclub/note.txt", rev: try XCTUnwrap(first.rev))
        XCTAssertNotEqual(restored.rev, third.rev)
        XCTAssertEqual(restored.size, 3)
        let now = try await alice.read("/byteclub/note.txt")
        XCTAssertEqual(String(decoding: now.data, as: UTF8.self), "one")
        let afterRestore = try await alice.revisions("/byteclub/note.txt")
        XCTAssertEqual(afterRestore.entries.first?.rev, restored.rev)
        XCTAssertEqual(afterRestore.entries.first?.modifiedBy, them.id)
        XCTAssertEqual(afterRestore.entries.count, 4, "a restore adds a revision; nothing is lost")
    }

    func testBadRevisionsRequests() async throws {
        let store = club.store()
        let note = try await store.upload(data: Data("a".utf8), to: "/byteclub/a.txt", mode: .add, autorename: false)
        let other = try await store.upload(data: Data("b".utf8), to: "/byteclub/b.txt", mode: .add, autorename: false)
        await assertThrows(.notFound("/byteclub/missing.txt")) { () async throws(RemoteError) in try await store.revisions("/byteclub/missing.txt") }
        await assertThrows(.notFound("rev 0123456789abcdef of /byteclub/a.txt")) { () async throws(RemoteError) in
            try await store.restore("/byteclub/a.txt", rev: "0123456789abcdef")
        }
        // A rev of another file does not restore into this one.
        let foreign = try XCTUnwrap(other.rev)
        do {
            _ = try await store.restore("/byteclub/a.txt", rev: foreign)
            XCTFail("restored b.txt's rev into a.txt")
        } catch {
            XCTAssertEqual(error, .notFound("rev \(foreign) of /byteclub/a.txt"))
        }
        await assertThrows(.notFound("rev:0123456789abcdef")) { () async throws(RemoteError) in try await store.read(rev: "0123456789abcdef") }
        XCTAssertNotNil(note.rev)
    }

    func testCopy() async throws {
        let store = club.store()
        let note = try await store.upload(data: Data("copy me".utf8), to: "/byteclub/a.txt", mode: .add, autorename: false)
        let copy = try await store.copy(from: "/byteclub/a.txt", to: "/byteclub/B.txt", autorename: false)
        XCTAssertEqual(copy.path, "/byteclub/B.txt")
        XCTAssertEqual(copy.kind, .file)
        XCTAssertNotEqual(copy.id, note.id, "a copy is a new file")
        XCTAssertEqual(copy.contentHash, note.contentHash)
        let copied = try await store.read("/byteclub/b.txt")
        XCTAssertEqual(String(decoding: copied.data, as: UTF8.self), "copy me")
        await assertThrows(.conflict("/byteclub/b.txt")) { () async throws(RemoteError) in
            try await store.copy(from: "/byteclub/a.txt", to: "/byteclub/b.txt", autorename: false)
        }
        let renamed = try await store.copy(from: "/byteclub/a.txt", to: "/byteclub/b.txt", autorename: true)
        XCTAssertNotEqual(renamed.pathLower, "/byteclub/b.txt")
        await assertThrows(.notFound("/byteclub/nope.txt")) { () async throws(RemoteError) in
            try await store.copy(from: "/byteclub/nope.txt", to: "/byteclub/c.txt", autorename: false)
        }
    }

    func testCurrentAccount() async throws {
        let alice = try await club.store(LiveClub.alice).currentAccount()
        XCTAssertEqual(alice.displayName, "Alice Liddell")
        XCTAssertTrue(alice.id.hasPrefix("dbid:"), alice.id)
        let bob = try await club.store(LiveClub.bob).currentAccount()
        XCTAssertEqual(bob.displayName, "Bob")
        XCTAssertNotEqual(alice.id, bob.id)
        await assertThrows(.unauthorized(.memberToken)) { () async throws(RemoteError) in try await self.club.store(token: "nobody").currentAccount() }
    }

    func testStoresThatCannotSayItClearly() async throws {
        struct Bare: RemoteStore {
            var displayName: String { "bare" }
            func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) { ([], nil) }
            func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry { throw .notFound(path) }
            func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] { [] }
            func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                          onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry { throw .notFound(path) }
            func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry { throw .notFound(path) }
            func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry { throw .notFound(path) }
            func thumbnail(_ path: String, size: ThumbnailSize) async throws(RemoteError) -> Data { throw .notFound(path) }
            func delete(_ path: String) async throws(RemoteError) -> RemoteEntry { throw .notFound(path) }
            func move(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry { throw .notFound(from) }
            func createFolder(_ path: String) async throws(RemoteError) -> RemoteEntry { throw .notFound(path) }
        }
        let bare = Bare()
        await assertThrows(.notSupported("revisions")) { () async throws(RemoteError) in try await bare.revisions("/a.txt") }
        await assertThrows(.notSupported("waiting for changes")) { () async throws(RemoteError) in
            try await bare.longpoll(RemoteCursor(folder: "", recursive: false, value: "c"), timeout: 30)
        }
        XCTAssertEqual(RemoteError.notSupported("revisions").message, "Not supported by this remote: revisions")
    }
}
