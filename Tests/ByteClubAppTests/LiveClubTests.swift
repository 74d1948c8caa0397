import ByteClubApp
import ClubServer
import Foundation
import Remote
import Synchronization
import TerminalUI
import TestSupport
import XCTest

/// The live club in the app, against a real club server with two members (ray and ann) over
/// HTTP: ann's app sees ray's commits without a key press, her open note reloads or shows the
/// banner, and `H` shows a note's history and restores a revision.
@MainActor
final class LiveClubTests: XCTestCase {
    var club: MembersClub?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    private func annsApp(notes: [String: String] = ["Plans.txt": "Day 1: Lyon\nDay 2: rest\nDay 3: home\n"]) async throws -> (Harness, any RemoteStore) {
        let club = try await MembersClub(notes: notes)
        self.club = club
        let harness = Harness(store: club.store(token: club.annToken))
        await harness.start()
        return (harness, club.store(token: club.rayToken))
    }

    private func upload(_ text: String, to name: String, on store: any RemoteStore, mode: WriteMode = .overwrite) async throws {
        _ = try await store.upload(data: Data(text.utf8), to: "/byteclub/" + name, mode: mode, autorename: false)
    }

    func testAnotherMembersNotesShowWithoutAKeyPress() async throws {
        let (harness, ray) = try await annsApp(notes: ["Plans.txt": "x\n", "Budget.txt": "y\n"])
        harness.press(.down)
        XCTAssertEqual(harness.app.state.notes.list.selected, 1)
        let selected = harness.app.state.notes.entries[1].name

        try await upload("Day 1\n", to: "Trip plan.txt", on: ray)
        await harness.waitUntil("ray's note in ann's list") { harness.app.state.notes.entries.contains { $0.name == "Trip plan.txt" } }
        await harness.waitUntil("the status bar saying who") { harness.app.state.message?.text == "ray added \"Trip plan\"" }
        XCTAssertEqual(harness.app.noteItems.firstIndex { if case .note(let e, _) = $0 { e.name == selected } else { false } },
                       harness.app.state.notes.list.selected, "the selection stays on its note")

        try await upload("Day 1 and 2\n", to: "Trip plan.txt", on: ray)
        await harness.waitUntil("the change said") { harness.app.state.message?.text == "ray changed \"Trip plan\"" }

        _ = try await ray.move(from: "/byteclub/Trip plan.txt", to: "/byteclub/Journey.txt", autorename: false)
        await harness.waitUntil("the rename") { harness.app.state.notes.entries.contains { $0.name == "Journey.txt" } }
        await harness.waitUntil("the rename said") { harness.app.state.message?.text.contains("renamed \"Trip plan\" to \"Journey\"") ?? false }
        XCTAssertFalse(harness.app.state.notes.entries.contains { $0.name == "Trip plan.txt" })

        _ = try await ray.delete("/byteclub/Journey.txt")
        await harness.waitUntil("the deletion") { !harness.app.state.notes.entries.contains { $0.name == "Journey.txt" } }
        // The club says who deleted it (`deleted_by`): ray, not "Someone" (issue 54).
        await harness.waitUntil("the deletion said") { harness.app.state.message?.text == "ray deleted \"Journey\"" }
        harness.app.stopLiveUpdates()
    }

    func testTheOpenNoteReloadsInPlaceOrShowsTheBannerWhenEdited() async throws {
        let (harness, ray) = try await annsApp()
        harness.press(.enter)
        await harness.waitUntil("the note open") { harness.app.state.note?.isEditing == true }
        harness.press(.down, .right, .right)
        try await upload("Day 1: Lyon\nDay 2: Annecy\nDay 3: home\n", to: "Plans.txt", on: ray)
        await harness.waitUntil("the reload") { harness.app.state.note?.editor.body.text.contains("Annecy") ?? false }
        XCTAssertEqual(harness.app.state.message?.text, "Reloaded \"Plans\": ray changed it")
        XCTAssertEqual(harness.app.state.note?.editor.body.cursor, TextBuffer.Position(line: 1, offset: 2), "the cursor stays")
        XCTAssertEqual(harness.app.state.note?.isModified, false)

        // With an edit of her own, ann gets the banner and the change waits for the merge.
        harness.press(.char("!"))
        XCTAssertEqual(harness.app.state.note?.isModified, true)
        try await upload("Day 1: Lyon\nDay 2: Annecy\nDay 3: Geneva\n", to: "Plans.txt", on: ray)
        await harness.waitUntil("the banner") { harness.app.state.note?.remoteChange != nil }
        let change = try XCTUnwrap(harness.app.state.note?.remoteChange)
        XCTAssertEqual(change.who, "ray")
        XCTAssertEqual(harness.app.state.note?.banner, "Changed by ray at 20:50 · Ctrl-R merge now")
        XCTAssertTrue(harness.app.state.note?.editor.body.text.contains("Day 3: home") ?? false, "her text is untouched")
        XCTAssertNotEqual(change.rev, harness.app.state.note?.baseRev)
        for (width, height) in ShellSnapshotTests.sizes {
            assertSnapshot(harness.render(width: width, height: height), named: "live-banner-\(width)x\(height)")
        }
        harness.app.stopLiveUpdates()
    }

    func testHistoryListsTheRevisionsAndRestoresOne() async throws {
        let (harness, ray) = try await annsApp(notes: ["Plans.txt": "Day 1: Lyon\nDay 2: rest\n"])
        try await upload("Day 1: Lyon\nDay 2: Annecy\n", to: "Plans.txt", on: ray)
        try await upload("Day 1: Lyon\nDay 2: Annecy\nDay 3: Geneva\n", to: "Plans.txt", on: ray)
        await harness.waitUntil("the list up to date") { harness.app.state.notes.entries.first?.size == 40 }

        harness.press(.char("H"))
        await harness.waitUntil("three revisions") { harness.app.state.history?.revisions.count == 3 }
        harness.press(.down)
        await harness.waitUntil("the diff") { harness.app.state.history?.diff != nil }
        XCTAssertEqual(harness.app.state.history?.diff?.filter { $0.kind != .same }.map(\.text), ["Day 3: Geneva"])
        harness.press(.end)
        await harness.waitUntil("the oldest one's diff") { harness.app.state.history?.diff?.contains { $0.kind == .removed } ?? false }
        for (width, height) in ShellSnapshotTests.sizes {
            assertSnapshot(harness.render(width: width, height: height), named: "history-\(width)x\(height)")
        }

        harness.press(.enter)
        XCTAssertTrue(harness.compositor.top is DialogLayer, "a restore asks first")
        harness.press(.left, .enter)
        await harness.waitUntil("the restore") { harness.app.state.message?.text.hasPrefix("Restored \"Plans\"") ?? false }
        XCTAssertNil(harness.app.state.history)
        let (data, _) = try await ray.read("/byteclub/Plans.txt")
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "Day 1: Lyon\nDay 2: rest\n")
        let revisions = try await ray.revisions("/byteclub/Plans.txt")
        XCTAssertEqual(revisions.entries.count, 4, "the replaced text stays in the history")

        harness.press(.char("H"))
        await harness.waitUntil("four revisions") { harness.app.state.history?.revisions.count == 4 }
        harness.press(.escape)
        XCTAssertNil(harness.app.state.history)
        XCTAssertTrue(harness.compositor.top is MainScreen, "the history layer is gone")
        harness.app.stopLiveUpdates()
    }

    func testAccountsAreNamedByTheServer() async throws {
        let (harness, ray) = try await annsApp()
        let me = try await ray.currentAccount()
        let named = try await ray.account(id: me.id)
        XCTAssertEqual(named.displayName, "ray")
        do {
            _ = try await ray.account(id: "dbid:nobody")
            XCTFail("an unknown account was named")
        } catch {
            XCTAssertEqual(error, .notFound(""))
        }
        harness.app.stopLiveUpdates()
    }

    func testADeadServerIsAskedLessAndLessOftenAndNothingIsSaid() async throws {
        let store = DeadCursorStore(base: FakeStore(files: [FakeStore.file("/byteclub/a.txt", size: 1, modified: Clock.now)]))
        let effects = ManualEffects()
        let harness = Harness(store: store, effects: effects)
        await harness.start()
        // The store counts a try when it is asked; the retry is scheduled only when the failure
        // reaches the app: wait for that too, or the clock moves before the timer exists.
        func retriesScheduled(_ round: Int) -> Bool {
            Tab.allCases.allSatisfy { harness.app.liveFailuresInARow($0) == round }
        }
        await harness.waitUntil("both tabs asked once") { store.asked == 2 && retriesScheduled(1) }
        XCTAssertEqual(harness.app.state.message?.text, "1 note", "no error on screen")
        // Each tab waits 0.5 s, then 1 s, 2 s, 4 s: no busy loop while the server is down.
        var expected = 2
        for (round, wait) in [0.5, 1, 2, 4].enumerated() {
            await harness.waitUntil("retries scheduled") { retriesScheduled(round + 1) }
            effects.advance(by: .milliseconds(Int(wait * 1000) - 10))
            XCTAssertEqual(store.asked, expected, "asked again before \(wait) s")
            effects.advance(by: .milliseconds(10))
            expected += 2
            await harness.waitUntil("asked again after \(wait) s") { store.asked == expected }
        }
        await harness.waitUntil("the last retry scheduled") { retriesScheduled(5) }
        XCTAssertEqual(harness.app.state.message?.text, "1 note")
        harness.press(.char("q"))
        effects.advance(by: .seconds(60))
        XCTAssertEqual(store.asked, expected, "quitting stops the tries")
    }

    func testAStoreWithoutLongpollsStillLoadsAndQuitsCleanly() async throws {
        let store = FakeStore(files: [FakeStore.file("/byteclub/a.txt", size: 1, modified: Clock.now)])
        let harness = Harness(store: store)
        await harness.start()
        XCTAssertEqual(harness.app.state.notes.entries.map(\.name), ["a.txt"])
        harness.press(.char("q"))
        XCTAssertEqual(harness.quitStatus, 0)
    }
}

/// A club server with two members, ray and ann, on loopback, over a temp folder.
final class MembersClub: Sendable {
    let base: URL
    let server: ClubServer
    let rayToken = "ray-\(UUID().uuidString)"
    let annToken = "ann-\(UUID().uuidString)"

    /// `writePause`: how long the server waits after a live note's last key to write it (the
    /// server's own 2 s when nil).
    init(notes: [String: String], writePause: Duration? = nil) async throws {
        base = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-live-tests-\(UUID().uuidString)")
        let folder = base.appendingPathComponent("club/byteclub")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("photos"), withIntermediateDirectories: true)
        for (name, text) in notes { try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        var configuration = ClubServerConfiguration(root: base.appendingPathComponent("club").path, token: "")
        configuration.members = [ClubMember(name: "ray", token: rayToken), ClubMember(name: "ann", token: annToken)]
        configuration.logger.logLevel = .error
        if let writePause { configuration.live.writePause = writePause }
        server = try await ClubServer.start(configuration)
    }

    /// A member's store, with times fixed so the screen reads the same on every run.
    func store(token: String) -> any RemoteStore {
        FixedTimeStore(base: DropboxStore(displayName: "club", endpoints: .club(server.baseURL), tokens: StaticToken(token),
                                          configuration: .ephemeral))
    }

    func close() async {
        await server.stop()
        try? FileManager.default.removeItem(at: base)
    }
}

/// Forwards every call, the live ones included, and sets every entry's modification time to
/// ten minutes before the tests' "now" (revisions a minute apart, newest first).
struct FixedTimeStore: ForwardingStore {
    let base: any RemoteStore

    private func fix(_ entry: RemoteEntry) -> RemoteEntry {
        var entry = entry
        if entry.kind == .file { entry.modified = Clock.ago(600) }
        return entry
    }

    func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        let page = try await base.listPage(folder, cursor: cursor, limit: limit)
        return (page.entries.map(fix), page.next)
    }
    func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry { fix(try await base.metadata(path)) }
    func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        try await base.search(in: folder, extensions: extensions).map(fix)
    }
    func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                  onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry {
        fix(try await base.download(path, to: destination, resumeData: resumeData, progress: progress, onResumeData: onResumeData))
    }
    func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        fix(try await base.upload(file: file, to: path, mode: mode, autorename: autorename, progress: progress))
    }
    func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        fix(try await base.upload(data: data, to: path, mode: mode, autorename: autorename))
    }
    func move(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        fix(try await base.move(from: from, to: to, autorename: autorename))
    }
    func listChanges(since cursor: RemoteCursor) async throws(RemoteError) -> RemoteChanges {
        var changes = try await base.listChanges(since: cursor)
        changes.changes = changes.changes.map { change in
            if case .updated(let entry) = change { return .updated(fix(entry)) }
            return change
        }
        return changes
    }
    func revisions(_ path: String, limit: Int, before: String?) async throws(RemoteError) -> RemoteRevisions {
        var answer = try await base.revisions(path, limit: limit, before: before)
        answer.entries = answer.entries.enumerated().map { index, entry in
            var entry = entry
            entry.modified = Clock.ago(600 + Double(index) * 60)
            return entry
        }
        return answer
    }
    func restore(_ path: String, rev: String) async throws(RemoteError) -> RemoteEntry { fix(try await base.restore(path, rev: rev)) }
    func copy(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry {
        fix(try await base.copy(from: from, to: to, autorename: autorename))
    }
}

/// A store whose change cursor cannot be had (the server is down for it); counts the tries.
final class DeadCursorStore: RemoteStore {
    let base: FakeStore
    private let tries = Mutex(0)

    init(base: FakeStore) { self.base = base }

    var asked: Int { tries.withLock { $0 } }
    var displayName: String { base.displayName }

    func latestCursor(_ folder: String, recursive: Bool) async throws(RemoteError) -> RemoteCursor {
        tries.withLock { $0 += 1 }
        throw .network("Connection refused")
    }
    func listPage(_ folder: String, cursor: String?, limit: Int) async throws(RemoteError) -> (entries: [RemoteEntry], next: String?) {
        try await base.listPage(folder, cursor: cursor, limit: limit)
    }
    func metadata(_ path: String) async throws(RemoteError) -> RemoteEntry { try await base.metadata(path) }
    func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        try await base.search(in: folder, extensions: extensions)
    }
    func download(_ path: String, to destination: URL, resumeData: Data?, progress: ProgressHandler?,
                  onResumeData: (@Sendable (Data) -> Void)?) async throws(RemoteError) -> RemoteEntry { throw .notFound(path) }
    func upload(file: URL, to path: String, mode: WriteMode, autorename: Bool, progress: ProgressHandler?) async throws(RemoteError) -> RemoteEntry {
        throw .local("read-only")
    }
    func upload(data: Data, to path: String, mode: WriteMode, autorename: Bool) async throws(RemoteError) -> RemoteEntry { throw .local("read-only") }
    func thumbnail(_ path: String, size: ThumbnailSize) async throws(RemoteError) -> Data { throw .notFound(path) }
    func delete(_ path: String) async throws(RemoteError) -> RemoteEntry { throw .notFound(path) }
    func move(from: String, to: String, autorename: Bool) async throws(RemoteError) -> RemoteEntry { throw .notFound(from) }
    func createFolder(_ path: String) async throws(RemoteError) -> RemoteEntry { throw .local("read-only") }
}
