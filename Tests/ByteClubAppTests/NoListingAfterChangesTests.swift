@testable import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// Issue 68: after a save, a rename, a delete or a new folder made in the app, the list takes the
/// entry the server answered, and the club is not listed again: a 100,000-note club was listed
/// whole after each of them. Read from a real club server's own access log, with the change feed
/// following the club and without one (where the app used to list again every time).
@MainActor
final class NoListingAfterChangesTests: XCTestCase {
    private var club: RestartableClub?
    private var state: URL?

    override func tearDown() async throws {
        await club?.close()
        if let state { try? FileManager.default.removeItem(at: state) }
    }

    private func rayApp(live: Bool) async throws -> (Harness, RequestLog) {
        let log = RequestLog()
        let club = try await RestartableClub(notes: ["Plan.txt": "Rig the jib\n", "Old.txt": "old\n", "Ideas.txt": "kites\n"], requests: log)
        self.club = club
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-no-listing-\(UUID().uuidString)")
        self.state = state
        let harness = club.rayApp(state: state, live: live)
        await harness.start()
        await harness.waitUntil("the list") { harness.app.state.notes.entries.count == 3 && !harness.app.state.notes.isLoading }
        if live { await harness.waitUntil("the change feed") { harness.app.live.isWatching(.notes) } }
        return (harness, log)
    }

    private func select(_ title: String, in harness: Harness) {
        guard let index = harness.app.noteItems.firstIndex(where: { $0.title == title }) else {
            return XCTFail("no \(title) in \(harness.app.noteItems.map(\.title))")
        }
        harness.press(.home)
        for _ in 0..<index { harness.press(.down) }
    }

    private func type(_ text: String, into harness: Harness) {
        for character in text { harness.press(.char(character)) }
    }

    /// Saves, renames, deletes and makes a folder; returns the club's listings the server logged
    /// meanwhile (first pages: a change page, `list_folder/continue`, is the feed's, not a listing).
    private func walk(_ harness: Harness, log: RequestLog) async throws -> [String] {
        let mark = log.count
        func settled(_ what: String, _ said: String) async {
            await harness.waitUntil(what) { harness.app.state.message?.text.hasPrefix(said) == true }
            XCTAssertFalse(harness.app.state.notes.isLoading, "the club is being listed again after \(what)")
        }
        // A save.
        try await harness.open(note: "Plan.txt")
        harness.press(.documentEnd)
        type("and the main", into: harness)
        harness.press(.ctrl("s"))
        await settled("the save", "Saved \"Plan")
        harness.press(.escape)
        await harness.waitUntil("the note closed") { harness.app.state.note == nil }
        // A rename from the list.
        select("Ideas", in: harness)
        harness.press(.char("R"))
        await harness.waitUntil("the rename prompt") { harness.compositor.top is PromptLayer }
        harness.press(.ctrl("u"))
        type("Kite ideas", into: harness)
        harness.press(.enter)
        await settled("the rename", "Renamed to \"Kite ideas")
        // A delete.
        select("Old", in: harness)
        harness.press(.char("d"), .left, .enter)
        await settled("the delete", "Deleted \"Old")
        // A folder.
        harness.press(.char("N"))
        await harness.waitUntil("the folder prompt") { harness.compositor.top is PromptLayer }
        type("Trips", into: harness)
        harness.press(.enter)
        await settled("the new folder", "Made folder \"Trips\"")

        // The list is the club's, as a listing would give it.
        let club = try XCTUnwrap(club)
        let names = try FileManager.default.contentsOfDirectory(atPath: club.folder.path).filter { !$0.hasPrefix(".") }
        XCTAssertEqual(Set(harness.app.state.notes.entries.map(\.name)), Set(names.filter { $0.hasSuffix(".txt") }))
        XCTAssertEqual(Set(harness.app.state.notes.folders.map(\.name)), ["Trips"])
        XCTAssertEqual(harness.app.noteItems.map(\.title), ["Trips/", "Kite ideas", "Plan"])
        XCTAssertEqual(club.text("Plan.txt"), "Rig the jib\nand the main")
        return log.lines(from: mark).filter { $0.contains("/2/files/list_folder ") }
    }

    func testWithTheChangeFeedTheClubIsNotListedAgainAfterAnyChange() async throws {
        let (harness, log) = try await rayApp(live: true)
        let listings = try await walk(harness, log: log)
        XCTAssertEqual(listings, [])
        harness.app.stopLiveUpdates()
    }

    func testWithoutAChangeFeedTheClubIsNotListedAgainAfterAnyChange() async throws {
        let (harness, log) = try await rayApp(live: false)
        let listings = try await walk(harness, log: log)
        XCTAssertEqual(listings, [])
    }
}
