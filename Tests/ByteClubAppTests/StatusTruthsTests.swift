import ByteClubApp
import Foundation
import Remote
import Synchronization
import TerminalUI
import XCTest

/// What the lists and the status bar say is true now (issue 43): relative times move on with
/// no key pressed, a tab's count is its own from its first frame and follows its list, the
/// status bar names the club (never its URL) and the rendered view, and a question clears
/// what was said before it.
@MainActor
final class StatusTruthsTests: XCTestCase {
    /// A wall clock the test turns, for the lists' relative times (``DisplayFormat/now``).
    final class WallClock: Sendable {
        private let date = Mutex(Clock.now)
        var now: Date { date.withLock { $0 } }
        func advance(by seconds: TimeInterval) { date.withLock { $0.addTimeInterval(seconds) } }
    }

    /// The status bar: the last row.
    private func statusBar(_ canvas: GridCanvas) -> String { canvas.line(canvas.size.height - 1) }

    // MARK: Relative times tick

    func testJustNowBecomesTwoMinAgoWithNoKeyPressedAndOnlyThenIsDrawnAgain() async throws {
        let wall = WallClock()
        let effects = ManualEffects()
        let store = FakeStore(files: [FakeStore.file("/byteclub/Fresh.md", size: 10, modified: Clock.now)])
        let harness = Harness(store: store, effects: effects) { configuration in
            configuration.format = DisplayFormat(now: { wall.now }, timeZone: TimeZone(identifier: "UTC")!)
        }
        await harness.start()
        XCTAssertTrue(harness.render(width: 80, height: 24).line(2).hasSuffix("just now"))
        var asked = 0
        harness.compositor.onNeedsRedraw = { asked += 1 }

        // The clock ticks, but nothing on screen reads otherwise yet: no frame.
        wall.advance(by: 55)
        effects.advance(by: .seconds(55))
        XCTAssertEqual(asked, 0, "no frame while every time on screen still reads the same")

        // Two minutes on, with no key pressed: the tick asks for a frame, and the row says so.
        wall.advance(by: 65)
        effects.advance(by: .seconds(65))
        XCTAssertGreaterThan(asked, 0, "a frame once \"just now\" is no longer true")
        let row = harness.render(width: 80, height: 24).line(2)
        XCTAssertTrue(row.hasSuffix("2 min ago"), row)

        // Drawn at 2 min, the row next changes at 3 min: no frame before then.
        asked = 0
        wall.advance(by: 50)
        effects.advance(by: .seconds(50))
        XCTAssertEqual(asked, 0)
        wall.advance(by: 15)
        effects.advance(by: .seconds(15))
        XCTAssertGreaterThan(asked, 0)
        XCTAssertTrue(harness.render(width: 80, height: 24).line(2).hasSuffix("3 min ago"))
        XCTAssertEqual(effects.repeatingCount, 1, "one tick for the whole app")
    }

    func testTheNotesListIsRemadeWhenATimeInItWouldReadOtherwise() async {
        let wall = WallClock()
        let format = DisplayFormat(now: { wall.now }, timeZone: TimeZone(identifier: "UTC")!)
        var state = AppState(backend: "club")
        state.notes.hasLoaded = true
        // Saved 30 s past a minute: "just now" until 30 s past the next one, not at the minute.
        state.notes.entries = [FakeStore.file("/byteclub/Plan.md", size: 3, modified: Clock.ago(30))]
        let listing = NoteListing.make(state, format: format)
        XCTAssertEqual(listing.rows.first?.cells.last, "just now")
        XCTAssertEqual(listing.nextChange, Clock.ago(30).addingTimeInterval(60))
        var times = RelativeTimes()
        times.noteChange(at: listing.nextChange)
        times.drew(Clock.ago(8 * 86_400), format: format)
        XCTAssertEqual(times.next, listing.nextChange, "a date a week old never changes")
        XCTAssertFalse(times.isDue(now: Clock.now.addingTimeInterval(29)))
        XCTAssertTrue(times.isDue(now: Clock.now.addingTimeInterval(30)))
        XCTAssertFalse(RelativeTimes().isDue(now: .distantFuture), "nothing on screen: never")
    }

    // MARK: A tab's count

    func testTheCountSaidIsTheTabOnScreensAsItsListIsNow() {
        var state = AppState(backend: "club")
        let notes = state.beginLoad(.notes)
        state.finishLoad(.notes, generation: notes, result: .success([FakeStore.file("/byteclub/a.md", size: 1, modified: Clock.now),
                                                                       FakeStore.file("/byteclub/b.md", size: 1, modified: Clock.now)]))
        XCTAssertEqual(state.shownMessage, StatusMessage("2 notes"))

        // The Photos tab before its list is there: never the notes' count.
        state.tab = .photos
        XCTAssertEqual(state.shownMessage, StatusMessage("Loading photos…"))
        state.sayCount()
        XCTAssertEqual(state.shownMessage, StatusMessage("Loading photos…"))
        let photos = state.beginLoad(.photos)
        state.finishLoad(.photos, generation: photos, result: .success([FakeStore.file("/byteclub/photos/a.jpg", size: 1, modified: Clock.now)]))
        XCTAssertEqual(state.shownMessage, StatusMessage("1 photo"))

        // The list changes (a live update) and the count with it, said by no one.
        state.photos.entries.edit { $0.append(FakeStore.file("/byteclub/photos/b.jpg", size: 1, modified: Clock.now)) }
        XCTAssertEqual(state.shownMessage, StatusMessage("2 photos"))
        state.tab = .notes
        XCTAssertEqual(state.shownMessage, StatusMessage("2 notes"))

        // Anything said since is said as it is.
        state.message = StatusMessage("Saved \"a.md\"")
        XCTAssertEqual(state.shownMessage, StatusMessage("Saved \"a.md\""))
    }

    func testThePhotosTabsFirstFrameSaysItLoadsThenItsOwnCount() async throws {
        let gate = Gate()
        let files = [FakeStore.file("/byteclub/Plan.md", size: 10, modified: Clock.now),
                     FakeStore.file("/byteclub/Trip.md", size: 10, modified: Clock.now),
                     FakeStore.file("/byteclub/photos/desk.jpg", size: 10, modified: Clock.now)]
        let harness = Harness(store: SlowPhotos(base: FakeStore(files: files), gate: gate))
        harness.app.start()
        await harness.waitForLoads(1)
        XCTAssertTrue(statusBar(harness.render(width: 80, height: 24)).contains("2 notes"))
        harness.press(.char("2"))
        let first = statusBar(harness.render(width: 80, height: 24))
        XCTAssertTrue(first.contains("Loading photos…"), first)
        XCTAssertFalse(first.contains("notes"), "the notes' count is not the photos': \(first)")
        gate.open()
        await harness.waitForLoads(2)
        let loaded = statusBar(harness.render(width: 80, height: 24))
        XCTAssertTrue(loaded.contains("1 photo") && !loaded.contains("1 photos"), loaded)
    }

    // MARK: The status bar

    func testTheStatusBarNamesTheClubNotItsURL() async throws {
        let store = FakeStore(displayName: "http://192.168.1.20:8421", files: [FakeStore.file("/byteclub/Plan.md", size: 1, modified: Clock.now)])
        let harness = Harness(store: store) { $0.backendLabel = "club" }
        await harness.start()
        let bar = statusBar(harness.render(width: 80, height: 24))
        XCTAssertTrue(bar.hasPrefix(" club "), bar)
        XCTAssertFalse(bar.contains("192.168"), bar)
    }

    func testAMessageFromBeforeADialogDoesNotStayBehindIt() async throws {
        let harness = Harness(store: FakeStore(files: [FakeStore.file("/byteclub/Plan.md", size: 1, modified: Clock.now)]))
        await harness.start()
        harness.app.update { $0.message = StatusMessage("Saved \"Old.md\"") }
        harness.press(.char("d"))
        let canvas = harness.render(width: 80, height: 24)
        XCTAssertNotNil(canvas.position(of: "Delete note"), canvas.dump())
        XCTAssertFalse(statusBar(canvas).contains("Saved"), "the old message is gone behind the question: \(statusBar(canvas))")
        harness.press(.escape)
        XCTAssertFalse(statusBar(harness.render(width: 80, height: 24)).contains("Saved"))
    }
}

/// Holds photo searches until opened: the Photos tab's list arrives when the test says.
final class Gate: Sendable {
    private let isOpen = Mutex(false)
    func open() { isOpen.withLock { $0 = true } }
    func wait() async {
        while !isOpen.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
    }
}

struct SlowPhotos: ForwardingStore {
    let base: any RemoteStore
    let gate: Gate

    func search(in folder: String, extensions: [String]) async throws(RemoteError) -> [RemoteEntry] {
        await gate.wait()
        return try await base.search(in: folder, extensions: extensions)
    }
}
