import ByteClubApp
import Foundation
import Remote
import TerminalUI
import XCTest

/// The app's timed work through injected effects: nothing waits on a real clock.
@MainActor
final class EffectsTests: XCTestCase {
    func testEditsAreJournalledOnceTheDelayHasPassedAndNotBefore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-effects-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let drafts = DraftStore(directory: directory)
        let effects = ManualEffects()
        let harness = Harness(store: FakeStore(), drafts: drafts, effects: effects)
        await harness.start()

        harness.press(.char("n"), .char("H"), .char("i"))
        XCTAssertTrue(harness.app.state.hasUnsavedEdits)
        XCTAssertEqual(effects.pending, 1, "one journal write is scheduled, not one per key")
        effects.advance(by: .milliseconds(299))
        XCTAssertEqual(drafts.all(), [], "not before the delay")
        effects.advance(by: .milliseconds(1))
        // The write itself runs on the drafts' queue, off the UI queue (a big note's text and
        // JSON take longer than a frame), and reports back on the UI queue.
        await harness.waitUntil("the draft written") { drafts.all().map(\.title) == ["Hi"] }
        XCTAssertEqual(effects.pending, 0)

        harness.press(.enter, .char("x"))
        await harness.waitUntil("the next edit journalled too") {
            effects.advance(by: .seconds(1))
            return drafts.all().map(\.body) == ["x"]
        }
    }

    func testTheRowsAndTheSelectedPhotoAreFunctionsOfTheState() {
        var state = AppState(backend: "embedded")
        let photos = ["a.jpg", "b.jpg", "c.jpg"].map { FakeStore.file("/byteclub/photos/" + $0, size: 10, modified: Clock.now) }
        state.photos.entries = EntryTable(photos)
        XCTAssertEqual(state.photoRows.map { $0.cells.first }, ["a.jpg", "b.jpg", "c.jpg"])
        state.photos.list.selected = 1
        XCTAssertEqual(state.selectedPhoto?.name, "b.jpg")
        state.photos.list.filter = "c"
        state.photos.list.selected = 0
        XCTAssertEqual(state.selectedPhoto?.name, "c.jpg", "the selection counts the filtered rows only")

        state.notes.hasLoaded = true
        state.notes.entries = [FakeStore.file("/byteclub/Plan.txt", size: 3, modified: Clock.ago(60))]
        state.drafts = [Draft(id: "d1", path: nil, baseRev: nil, title: "Idea", body: "x", updated: Clock.now)]
        let listing = NoteListing.make(state, format: Clock.format)
        XCTAssertEqual(listing.rows.map { $0.cells.first }, ["✎ Idea (draft)", "Plan"])
        state.notes.list.selected = 1
        guard case .note(let entry, hasDraft: false)? = state.selectedNoteItem(in: listing) else { return XCTFail("the note") }
        XCTAssertEqual(entry.name, "Plan.txt")
    }
}
