import ByteClubApp
import Foundation
import Logging
import Remote
import Synchronization
import TerminalUI
import XCTest

/// One path from Ctrl-S to the store (issue 44): a save made online and the same save made
/// offline (queued in the outbox, sent when the server is back) reach a real club server as the
/// same requests, read from the server's own access log. A new note, an edited note, a renamed one.
/// And after either, no listing of the club: the list takes the entry the server returned (issue
/// 68; a 100,000-note club was listed whole after each save while no change feed followed it).
@MainActor
final class OneSavePathTests: XCTestCase {
    static let notes = ["Trip plan.txt": "Day 1: Lyon\nDay 2: rest\n"]
    private var clubs: [RestartableClub] = []
    private var folders: [URL] = []

    override func tearDown() async throws {
        for club in clubs { await club.close() }
        for folder in folders { try? FileManager.default.removeItem(at: folder) }
        clubs = []
        folders = []
    }

    /// What a save does to the store, as the server logged it ("POST /2/files/upload 200"). The
    /// start's reads of tags are not the save's (``listings(_:)`` are asked of none).
    static let saveRoutes = ["/2/files/upload", "/2/files/move_v2", "/2/files/get_metadata", "/2/files/download",
                             "/2/files/list_revisions", "/2/byteclub/files/list_revisions", "/2/users/get_account"]

    private func run(offline: Bool, edit: (Harness) async -> Void, waiting: Int) async throws -> (requests: [String], listings: [String], text: String?, names: [String]) {
        let log = RequestLog()
        let club = try await RestartableClub(notes: Self.notes, requests: log)
        clubs.append(club)
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-one-path-\(UUID().uuidString)")
        folders.append(state)
        var retry = RetryPolicy()
        retry.retriesUnreachable = false
        let harness = club.rayApp(state: state, live: false, retry: retry)
        await harness.start()
        await edit(harness)
        // From here on, the save's requests (the note was opened above).
        var mark = log.count
        if offline { try await club.stop() }
        harness.press(.ctrl("s"))
        if offline {
            await harness.waitUntil("the save queued") { harness.app.state.offline.waiting == waiting }
            XCTAssertEqual(saves(log.lines(from: mark)), [], "nothing of the save reached the server while it was down")
            mark = log.count
            try await club.start()
            await harness.waitUntil("the outbox sent", timeout: 15) { harness.app.state.offline.waiting == 0 && !harness.app.state.offline.isOffline }
            // The app finds the server back by its probe (one small get_metadata of the club
            // folder, OfflineProbe), or by a read that reaches it first: the start's fetch of every
            // note's tags runs below the UI's priority, and on a loaded machine its call may come
            // only now, and answer. Either way nothing of the save went before: the probe, when
            // there is one, is the first request that is not that read, and is no part of the save.
            let back = log.lines(from: mark)
            if let first = back.firstIndex(where: { !Self.route($0).contains("/2/files/tags/get") }),
               Self.route(back[first]) == "POST /2/files/get_metadata 200" {
                mark += first + 1
            }
        } else {
            await harness.waitUntil("saved") { harness.app.state.message?.text.hasPrefix("Saved \"") == true }
            XCTAssertEqual(harness.app.state.offline.waiting, 0)
        }
        // A listing the save started would be on its way now (the list's load begins in the
        // callback that took the answer): none is, and the list holds the note the server has.
        XCTAssertFalse(harness.app.state.notes.isLoading, "the list is being loaded again after the save")
        let listed = listings(log.lines(from: mark))
        let requests = saves(log.lines(from: mark))
        let names = try FileManager.default.contentsOfDirectory(atPath: club.folder.path).filter { !$0.hasPrefix(".") && $0 != "photos" }.sorted()
        harness.app.requestQuit()
        let texts = names.map { club.text($0) ?? "" }.joined(separator: "\n---\n")
        XCTAssertEqual(Set(harness.app.state.notes.entries.map(\.name)), Set(names), "the list after the save")
        return (requests, listed, texts, names)
    }

    private func assertOneRoad(_ what: String, waiting: Int, _ edit: @escaping (Harness) async -> Void, expected: [String],
                               file: StaticString = #filePath, line: UInt = #line) async throws {
        let online = try await run(offline: false, edit: edit, waiting: waiting)
        let offline = try await run(offline: true, edit: edit, waiting: waiting)
        XCTAssertEqual(online.requests.map(Self.route), expected, "\(what) online: \(online.requests)", file: file, line: line)
        XCTAssertEqual(offline.requests.map(Self.route), online.requests.map(Self.route), "\(what): offline as online", file: file, line: line)
        XCTAssertEqual(offline.names, online.names, what, file: file, line: line)
        XCTAssertEqual(offline.text, online.text, what, file: file, line: line)
        XCTAssertEqual(online.listings, [], "\(what) online: the club listed again after the save", file: file, line: line)
        XCTAssertEqual(offline.listings, [], "\(what) offline: the club listed again after the outbox sent it", file: file, line: line)
    }

    private func saves(_ lines: [String]) -> [String] { lines.filter { line in Self.saveRoutes.contains { line.contains(" \($0) ") } } }

    /// The listings of the club among `lines` (a first page or a continued one). A listing that
    /// found no folder (409) is `n`'s look for a templates folder the club has not got, which
    /// may come after the test's mark; the club's folder is always there.
    private func listings(_ lines: [String]) -> [String] {
        lines.filter { $0.contains("/2/files/list_folder") && !$0.contains(" 409 ") }
    }

    /// "POST /2/files/upload 200 3ms" → "POST /2/files/upload 200" (the time differs run to run).
    static func route(_ line: String) -> String { line.split(separator: " ").prefix(3).joined(separator: " ") }

    private func type(_ harness: Harness, _ text: String) {
        for character in text { harness.press(.char(character)) }
    }

    private func openTripPlan(_ harness: Harness) async {
        harness.press(.home, .enter)
        await harness.waitUntil("Trip plan open") { harness.app.state.note?.isEditing == true }
    }

    /// Issue 68: a conflict was read and merged twice, by the outbox's sender and then by the
    /// app for its merge view (their note and the base revision downloaded again). The sender's
    /// reading is the only one: one download, and the merge view shows the overlap it found.
    func testAConflictingSaveIsReadOnceForTheMergeView() async throws {
        let log = RequestLog()
        let club = try await RestartableClub(notes: Self.notes, requests: log)
        clubs.append(club)
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-one-path-\(UUID().uuidString)")
        folders.append(state)
        let harness = club.rayApp(state: state, live: false)
        await harness.start()
        await openTripPlan(harness)
        harness.press(.down, .end)
        type(harness, " and a swim")
        let ann = DropboxStore(displayName: "club", endpoints: .club(club.url), tokens: StaticToken(club.annToken))
        let current = try await ann.metadata("/byteclub/Trip plan.txt")
        _ = try await ann.upload(data: Data("Day 1: Lyon\nDay 2: museum\n".utf8), to: current.path, mode: .update(rev: current.rev ?? ""), autorename: false)

        let mark = log.count
        harness.press(.ctrl("s"))
        await harness.waitUntil("the merge view") { harness.app.state.note?.merge != nil }
        XCTAssertEqual(harness.app.state.note?.merge?.conflictCount, 1, "day 2, changed by both")
        let downloads = log.lines(from: mark).filter { $0.contains("/2/files/download ") }
        XCTAssertEqual(downloads.count, 1, "their note read once, by the sender: \(log.lines(from: mark))")
        harness.app.requestQuit()
    }

    func testANewNoteIsOneAddOnlineAndOffline() async throws {
        try await assertOneRoad("a new note", waiting: 1, { harness in
            harness.press(.char("n"))
            self.type(harness, "Fresh")
            harness.press(.enter)
            self.type(harness, "hello")
        }, expected: ["POST /2/files/upload 200"])
    }

    func testAnEditedNoteIsOneUpdateOnlineAndOffline() async throws {
        try await assertOneRoad("an edited note", waiting: 1, { harness in
            await self.openTripPlan(harness)
            harness.press(.documentEnd)
            self.type(harness, "Day 3: home")
        }, expected: ["POST /2/files/upload 200"])
    }

    func testARenamedNoteIsTheSameChecksMoveAndUpdateOnlineAndOffline() async throws {
        try await assertOneRoad("a renamed note", waiting: 2, { harness in
            await self.openTripPlan(harness)
            harness.press(.documentEnd)
            self.type(harness, "Day 3: home")
            harness.press(.ctrl("t"), .end)
            self.type(harness, "s")
        }, expected: ["POST /2/files/get_metadata 200", "POST /2/files/get_metadata 409", "POST /2/files/move_v2 200", "POST /2/files/upload 200"])
    }
}

/// The club server's access log (one line a request: method, path, status, time), kept in memory.
final class RequestLog: Sendable {
    private let entries = Mutex<[String]>([])

    var count: Int { entries.withLock { $0.count } }
    func lines(from start: Int) -> [String] { entries.withLock { Array($0[min(start, $0.count)...]) } }
    func add(_ line: String) { entries.withLock { $0.append(line) } }

    /// A logger for the server's configuration that records its info lines here.
    func logger() -> Logger {
        var logger = Logger(label: "byteclub.server.requests") { _ in Handler(log: self) }
        logger.logLevel = .info
        return logger
    }

    struct Handler: LogHandler {
        let log: RequestLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
            let text = "\(message)"
            if text.hasPrefix("POST ") || text.hasPrefix("GET ") { log.add(text) }
        }
    }
}
