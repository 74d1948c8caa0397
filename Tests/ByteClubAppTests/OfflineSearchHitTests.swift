import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// Issue 31: Enter on a search hit while the server is away said "Could not open … Network
/// error", though the search index holds the note's text. It now opens from the index's copy
/// (the note was never opened here, so the note cache has nothing), editable, and its save waits
/// in the outbox and reaches the server when it is back. Against a real club server stopped and
/// started again on one port, with the app's real SQLite index.
@MainActor
final class OfflineSearchHitTests: XCTestCase {
    var club: RestartableClub!
    var state: URL!

    override func setUp() async throws {
        club = try await RestartableClub(notes: ["Trip plan.txt": "Day 1: Lyon\nboat hire on day 2\n", "Ideas.txt": "kites\n"])
        state = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-offline-search-\(UUID().uuidString)")
    }

    override func tearDown() async throws {
        await club.close()
        try? FileManager.default.removeItem(at: state)
    }

    var outbox: Outbox { Outbox(directory: state.appendingPathComponent("outbox")) }
    var cache: ClubCache { ClubCache(directory: state.appendingPathComponent("cache")) }
    var indexFolder: URL { state.appendingPathComponent("index") }

    func testASearchHitOpensFromTheIndexWhileTheServerIsAwayAndItsSaveWaitsInTheOutbox() async throws {
        var retry = RetryPolicy()
        retry.retriesUnreachable = false
        retry.maxAttempts = 5
        retry.maxDelay = 2
        let store = DropboxStore(displayName: "club", endpoints: .club(club.url), tokens: StaticToken(club.rayToken),
                                 connection: ConnectionOptions(idleTimeout: 10), retry: retry)
        let harness = Harness(store: store, drafts: DraftStore(directory: state.appendingPathComponent("drafts"))) { configuration in
            configuration.outbox = self.outbox
            configuration.cache = self.cache
            configuration.searchIndex = AppConfiguration.searchIndex(in: self.indexFolder)
        }
        await harness.start()
        // The app indexes every note from the server; a second reader of the same file sees it.
        let reader = try AppConfiguration.searchIndex(in: indexFolder)()
        await harness.waitUntil("the notes indexed", timeout: 20) { ((try? reader.search("boat", limit: 5, under: nil)) ?? []).count == 1 }
        XCTAssertNil(cache.note("/byteclub/Trip plan.txt"), "never opened here: the note cache has no text of it")

        try await club.stop()
        harness.press(.ctrl("f"))
        for character in "boat" { harness.press(.char(character)) }
        await harness.waitUntil("the hit listed") { harness.app.state.search?.hits.map(\.name) == ["Trip plan.txt"] }
        harness.press(.enter)
        await harness.waitUntil("opened or refused") { harness.app.state.note?.isEditing == true || harness.app.state.message?.kind == .error }
        XCTAssertNotEqual(harness.app.state.message?.kind, .error, harness.app.state.message?.text ?? "")
        let note = try XCTUnwrap(harness.app.state.note)
        XCTAssertEqual(note.editor.body.text, "Day 1: Lyon\nboat hire on day 2\n", "the index's copy")
        XCTAssertFalse(note.isReadOnly, "editable")
        XCTAssertEqual(harness.app.state.message?.text,
                       "Opened \"Trip plan.txt\" from the search index's copy: the server cannot be reached")
        let screen = harness.render(width: 120, height: 30).dump()
        // The banner is the search's (n, N, Esc); the status bar says where the text came from.
        XCTAssertTrue(screen.contains("Opened \"Trip plan.txt\" from the search index's copy"), screen)
        XCTAssertTrue(screen.contains("Search: match 1 of 1, line 2"), screen)
        XCTAssertTrue(screen.contains("offline"), screen)

        harness.press(.documentEnd)
        for character in "Day 3: sail" { harness.press(.char(character)) }
        harness.press(.ctrl("s"))
        await harness.waitUntil("the save queued") { self.outbox.all().count == 1 }
        XCTAssertEqual(outbox.all().first?.kind, .save)
        XCTAssertEqual(outbox.all().first?.text, "Day 1: Lyon\nboat hire on day 2\nDay 3: sail")
        XCTAssertTrue(harness.app.state.offline.isOffline)

        try await club.start()
        await harness.waitUntil("sent", timeout: 15) { self.outbox.all().isEmpty && !harness.app.state.offline.isOffline }
        XCTAssertEqual(club.text("Trip plan.txt"), "Day 1: Lyon\nboat hire on day 2\nDay 3: sail")
        harness.app.requestQuit()
    }
}
