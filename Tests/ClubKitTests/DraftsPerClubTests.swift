import ClubKit
import Foundation
import Remote
import XCTest

/// Issue 53, 1: drafts belong to one club. Two clubs on one machine: a draft saved in one is
/// never listed, loaded or taken by the other; and the drafts an older byteclub kept in one
/// folder for every club go to the club they are known to be from, or stay aside, never lost
/// and never shown in a club they may not be from.
final class DraftsPerClubTests: XCTestCase {
    private var scratch: URL!
    private var saved: [String: String?] = [:]

    override func setUp() {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("clubkit-drafts-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        // Paths reads the XDG folders from the environment: this test's own, put back after.
        for (name, folder) in [("XDG_STATE_HOME", "state"), ("XDG_CACHE_HOME", "cache"), ("XDG_DATA_HOME", "data")] {
            saved[name] = ProcessInfo.processInfo.environment[name]
            setenv(name, scratch.appendingPathComponent(folder).path, 1)
        }
    }

    override func tearDown() {
        for (name, value) in saved {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        try? FileManager.default.removeItem(at: scratch)
    }

    /// A club server's backend (made without a request: nothing here reaches the server).
    private func club(_ url: String) async throws -> Backend {
        try await Backend.connect(.club(url: try XCTUnwrap(URL(string: url)), token: "t", pin: nil), connection: ConnectionOptions())
    }

    /// The folder drafts were kept in, every club's together, before they were per club.
    private var olderFolder: URL { scratch.appendingPathComponent("state/byteclub/drafts") }

    private func ids(_ drafts: DraftStore) -> Set<String> { Set(drafts.all().map(\.id)) }

    private func draft(_ path: String?, rev: String?, _ title: String, _ body: String) -> Draft {
        Draft(id: path.map { Draft.id(forPath: $0) } ?? Draft.newID(), path: path, baseRev: rev, title: title, body: body, updated: Date())
    }

    func testADraftSavedInOneClubIsNeverListedOrLoadedInAnother() async throws {
        let home = try await club("http://10.0.0.7:8421/")
        let joined = try await club("http://10.0.0.8:8421/")
        // The trial's two: an unsaved edit of a note both clubs have, and a new note.
        let welcome = draft("/byteclub/Welcome to Byte Club.txt", rev: "015f2a3b00000001", "Welcome to Byte Club", "home's words")
        let plan = draft(nil, rev: nil, "Plan: June", "June's plan")
        try home.drafts.save(welcome)
        try home.drafts.save(plan)

        // Every start (the app, `edit`, `outbox`) takes what is its club's, and only that.
        joined.adoptFormerFolders()
        home.adoptFormerFolders()
        XCTAssertEqual(ids(home.drafts), [welcome.id, plan.id])
        XCTAssertEqual(ids(joined.drafts), [], "the other club lists none of them: no ✎ row, nothing Ctrl-S could send")
        XCTAssertNil(joined.drafts.load(welcome.id), "opening the other club's welcome note restores no draft")
        XCTAssertNil(joined.drafts.load(plan.id))
        XCTAssertEqual(home.drafts.load(welcome.id)?.body, "home's words")
        XCTAssertEqual(ids(Backend.draftsKeptAside), [])

        // Each club's folder is named by its key, as its outbox and cache are.
        XCTAssertEqual(home.drafts.directory.lastPathComponent, home.key)
        XCTAssertEqual(home.drafts.directory.deletingLastPathComponent().path, olderFolder.path)
        XCTAssertNotEqual(home.drafts.directory, joined.drafts.directory)
        // Two embedded clubs (two --data-dir) are two clubs too.
        let one = Paths.drafts(Paths.key(displayName: "embedded", embeddedRoot: scratch.appendingPathComponent("club")))
        let other = Paths.drafts(Paths.key(displayName: "embedded", embeddedRoot: scratch.appendingPathComponent("club2")))
        XCTAssertNotEqual(one, other)
    }

    func testDraftsFromTheOlderSharedFolderGoOnlyToTheClubTheyAreKnownToBeFrom() async throws {
        let home = try await club("http://10.0.0.7:8421/")
        let joined = try await club("http://10.0.0.8:8421/")
        let older = DraftStore(directory: olderFolder)
        let now = Date()
        // Home's: one a queued change was made from, one at the rev of home's cached text (with
        // the file an editor left beside it), one at the rev of home's cached list.
        let queued = draft(nil, rev: nil, "Queued", "queued from home")
        let opened = draft("/byteclub/Welcome to Byte Club.txt", rev: "rev-home-welcome", "Welcome to Byte Club", "home's words")
        let listed = draft("/byteclub/Trip.txt", rev: "rev-home-trip", "Trip", "home's trip")
        // The joined club's: at the rev its cached text has.
        let theirs = draft("/byteclub/Joined.txt", rev: "rev-joined", "Joined", "joined's words")
        // No club's for sure: a new note with nothing queued, and a note at a rev no cache has.
        let plan = draft(nil, rev: nil, "Plan: June", "June's plan")
        let stale = draft("/byteclub/Stale.txt", rev: "rev-gone", "Stale", "stale words")
        for each in [queued, opened, listed, theirs, plan, stale] { try older.save(each) }
        let editorFile = olderFolder.appendingPathComponent(opened.id + ".editing.txt")
        try Data("home's words, and more from vi".utf8).write(to: editorFile)

        try home.outbox.append(OutboxItem(kind: .create, path: "/byteclub/Queued.txt", title: "Queued", text: "queued from home",
                                          draftID: queued.id, queued: now))
        try home.cache.saveNote(ClubCache.Note(path: "/byteclub/Welcome to Byte Club.txt", rev: "rev-home-welcome", text: "Welcome\n", saved: now))
        try home.cache.saveListing(.notes, ClubCache.Listing(entries: [
            RemoteEntry(kind: .file, name: "Trip.txt", path: "/byteclub/Trip.txt", rev: "rev-home-trip"),
            RemoteEntry(kind: .file, name: "Stale.txt", path: "/byteclub/Stale.txt", rev: "rev-now"),
        ], cursor: nil, saved: now))
        try joined.cache.saveNote(ClubCache.Note(path: "/byteclub/Joined.txt", rev: "rev-joined", text: "Joined\n", saved: now))
        // The joined club has a welcome note too, at a rev of its own (as two seeded clubs do).
        try joined.cache.saveNote(ClubCache.Note(path: "/byteclub/Welcome to Byte Club.txt", rev: "rev-joined-welcome", text: "Theirs\n", saved: now))

        // The joined club first: it takes its own, and none of home's.
        joined.adoptFormerFolders()
        XCTAssertEqual(ids(joined.drafts), [theirs.id])
        home.adoptFormerFolders()
        XCTAssertEqual(ids(home.drafts), [queued.id, opened.id, listed.id])
        XCTAssertEqual(ids(joined.drafts), [theirs.id], "home's welcome draft never reaches the joined club's welcome note")
        // Kept aside is kept: in no club, with its text.
        XCTAssertEqual(ids(Backend.draftsKeptAside), [plan.id, stale.id])
        XCTAssertEqual(Backend.draftsKeptAside.load(plan.id)?.body, "June's plan")
        XCTAssertEqual(Backend.draftsKeptAside.load(stale.id)?.body, "stale words")
        // The editor's file went with its draft (it may hold newer text than the draft).
        XCTAssertFalse(FileManager.default.fileExists(atPath: editorFile.path))
        XCTAssertEqual(try String(contentsOf: home.drafts.directory.appendingPathComponent(opened.id + ".editing.txt"), encoding: .utf8),
                       "home's words, and more from vi")
        XCTAssertEqual(home.drafts.load(opened.id)?.body, "home's words")

        // Again, in either order: nothing more moves.
        home.adoptFormerFolders()
        joined.adoptFormerFolders()
        XCTAssertEqual(ids(home.drafts), [queued.id, opened.id, listed.id])
        XCTAssertEqual(ids(joined.drafts), [theirs.id])
        XCTAssertEqual(ids(Backend.draftsKeptAside), [plan.id, stale.id])

        // Taken into a club when asked (`byteclub outbox --take-draft`): then it is that club's.
        XCTAssertTrue(Backend.draftsKeptAside.move(plan.id, to: joined.drafts))
        XCTAssertEqual(ids(joined.drafts), [theirs.id, plan.id])
        XCTAssertEqual(ids(Backend.draftsKeptAside), [stale.id])
    }

    func testAnOlderDraftNeverReplacesTheClubsOwnAndAMoveCutShortIsFinished() async throws {
        let home = try await club("http://10.0.0.7:8421/")
        let older = DraftStore(directory: olderFolder)
        let path = "/byteclub/Welcome to Byte Club.txt"
        try home.cache.saveNote(ClubCache.Note(path: path, rev: "rev-1", text: "Welcome\n", saved: Date()))
        try older.save(draft(path, rev: "rev-1", "Welcome to Byte Club", "older words"))
        try home.drafts.save(draft(path, rev: "rev-1", "Welcome to Byte Club", "newer words, in the club"))
        home.adoptFormerFolders()
        XCTAssertEqual(home.drafts.load(Draft.id(forPath: path))?.body, "newer words, in the club", "the club's own draft stays")
        XCTAssertEqual(Backend.draftsKeptAside.load(Draft.id(forPath: path))?.body, "older words", "and the older one stays aside")

        // A move cut short after the editor's file was linked into the club: the next finishes it.
        let trip = draft("/byteclub/Trip.txt", rev: "rev-trip", "Trip", "trip words")
        try older.save(trip)
        let name = trip.id + ".editing.md"
        try Data("trip words from vi".utf8).write(to: olderFolder.appendingPathComponent(name))
        try FileManager.default.createDirectory(at: home.drafts.directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: olderFolder.appendingPathComponent(name), to: home.drafts.directory.appendingPathComponent(name))
        try home.cache.saveNote(ClubCache.Note(path: "/byteclub/Trip.txt", rev: "rev-trip", text: "Trip\n", saved: Date()))
        home.adoptFormerFolders()
        XCTAssertEqual(home.drafts.load(trip.id)?.body, "trip words")
        XCTAssertNil(Backend.draftsKeptAside.load(trip.id))
        XCTAssertFalse(FileManager.default.fileExists(atPath: olderFolder.appendingPathComponent(name).path))
        XCTAssertEqual(try String(contentsOf: home.drafts.directory.appendingPathComponent(name), encoding: .utf8), "trip words from vi")
    }

    func testAFormerAccountsDraftsMoveWithItsOutbox() async throws {
        let plain = try await club("http://10.0.0.7:8421/")
        try plain.drafts.save(draft(nil, rev: nil, "Idea", "an idea"))
        let backend = Backend(store: plain.store, server: nil, label: "dropbox", account: "dbid:me", formerAccounts: [nil])
        XCTAssertNotEqual(backend.key, plain.key)
        backend.adoptFormerFolders()
        XCTAssertEqual(backend.drafts.all().map(\.title), ["Idea"], "the account's own name takes the drafts made under the plain one")
        XCTAssertEqual(plain.drafts.all(), [])
    }
}
