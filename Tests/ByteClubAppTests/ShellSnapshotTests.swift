import ByteClubApp
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// The shell rendered into a GridCanvas at 80×24 and 120×36, against a real club server seeded
/// with the sample club (over HTTP, through Remote and Transfer), or a scripted store.
@MainActor
final class ShellSnapshotTests: XCTestCase {
    static let sizes = [(80, 24), (120, 36)]
    var club: SampleClubServer?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    private func sampleHarness() async throws -> Harness {
        let club = try await SampleClubServer()
        self.club = club
        let harness = Harness(store: club.store())
        await harness.start()
        return harness
    }

    func testNotesTabListsTheSampleNotesNewestFirst() async throws {
        let harness = try await sampleHarness()
        XCTAssertEqual(harness.app.state.notes.entries.map(\.name), ["Welcome to Byte Club.txt", "Challenge 1 - Unicode widths.txt"])
        XCTAssertNil(harness.app.state.notes.error)
        for (width, height) in Self.sizes {
            let canvas = harness.render(width: width, height: height)
            XCTAssertEqual(canvas.position(of: "Welcome to Byte Club")?.y, 2)
            XCTAssertNil(canvas.position(of: "Welcome to Byte Club.txt"), "titles drop the extension")
            assertSnapshot(canvas, named: "notes-\(width)x\(height)")
        }
    }

    func testPhotosTabListsTheSamplePanoramas() async throws {
        let harness = try await sampleHarness()
        harness.press(.char("2"))
        XCTAssertEqual(harness.app.state.tab, .photos)
        XCTAssertEqual(harness.app.state.photos.entries.map(\.name), ["desk-at-night.jpg", "coast-noon.jpg", "city-dusk.jpg", "alps-sunrise.jpg"],
                       "newest first")
        for (width, height) in Self.sizes {
            assertSnapshot(harness.render(width: width, height: height), named: "photos-\(width)x\(height)")
        }
    }

    func testHelpListsEveryBinding() async throws {
        let harness = try await sampleHarness()
        harness.press(.char("?"))
        XCTAssertTrue(harness.compositor.top is HelpOverlay)
        let listed = Set(harness.compositor.commands().map(\.description))
        for command in MainScreen.bindings.commands {
            XCTAssertTrue(listed.contains(command.description), "help misses \(command.description)")
        }
        for (width, height) in Self.sizes {
            assertSnapshot(harness.render(width: width, height: height), named: "help-\(width)x\(height)")
        }
        harness.press(.escape)
        XCTAssertFalse(harness.compositor.top is HelpOverlay)
        harness.press(.f(1))
        XCTAssertTrue(harness.compositor.top is HelpOverlay)
    }

    func testAFailedRefreshKeepsTheListAndShowsTheErrorInRed() async throws {
        let store = FakeStore(files: [
            FakeStore.file("/byteclub/ideas.md", size: 1234, modified: Clock.ago(90)),
            FakeStore.file("/byteclub/reply to anna.txt", size: 300, modified: Clock.ago(25 * 3600)),
        ])
        let harness = Harness(store: store)
        await harness.start()
        store.set(failure: .network("Connection refused"))
        harness.press(.char("r"))
        XCTAssertTrue(harness.app.state.isBusy)
        await harness.waitForLoads(3)
        XCTAssertFalse(harness.app.state.isBusy)
        XCTAssertEqual(harness.app.state.notes.entries.count, 2, "the old list stays")
        XCTAssertEqual(harness.app.state.message?.kind, .error)
        for (width, height) in Self.sizes {
            let canvas = harness.render(width: width, height: height)
            XCTAssertNotNil(canvas.position(of: "ideas"))
            let status = try XCTUnwrap(canvas.column(of: "Could not load notes", inRow: height - 1))
            XCTAssertEqual(canvas.style(x: status, y: height - 1), canvas.theme.statusError)
            let pane = try XCTUnwrap(canvas.position(of: "✗ Could not load notes"))
            XCTAssertEqual(canvas.style(x: pane.x + 2, y: pane.y), canvas.theme.error)
            assertSnapshot(canvas, named: "error-\(width)x\(height)")
        }

        // The next refresh that works clears the error.
        store.set(failure: nil)
        harness.press(.char("r"))
        await harness.waitForLoads(4)
        XCTAssertNil(harness.app.state.notes.error)
        XCTAssertNotEqual(harness.app.state.message?.kind, .error)
    }

    func testFirstLoadFailureAndEmptyFolder() async throws {
        let store = FakeStore(failure: .unauthorized(.memberToken))
        let harness = Harness(store: store)
        await harness.start()
        var canvas = harness.render(width: 80, height: 24)
        XCTAssertNotNil(canvas.position(of: "Not authorized"))
        XCTAssertNotNil(canvas.position(of: "Nothing loaded yet. Press r to try again."))

        store.set(failure: nil)
        harness.press(.char("r"))
        await harness.waitForLoads(3)
        canvas = harness.render(width: 80, height: 24)
        XCTAssertNotNil(canvas.position(of: "No notes yet. Press n to write one."))
        XCTAssertNil(canvas.position(of: "Not authorized"))
    }

    func testLoadingShowsASpinner() async throws {
        let harness = Harness(store: FakeStore())
        harness.app.start()
        XCTAssertTrue(harness.app.state.isBusy)
        let canvas = harness.render(width: 80, height: 24)
        XCTAssertNotNil(canvas.position(of: "Loading notes…"))
        XCTAssertEqual(canvas.line(23).dropFirst(" http://192.168.1.20:8421 ".count).first, "⠋")
        await harness.waitForLoads(2)
        XCTAssertFalse(harness.app.state.isBusy)
        XCTAssertNil(harness.render(width: 80, height: 24).line(23).first { StatusBar.spinnerFrames.contains(String($0)) })
    }

    func testQuitAsksFirstWhenTransfersRunOrEditsAreUnsaved() async throws {
        let harness = try await sampleHarness()
        // A new note with a letter typed, and a download still stopping after Esc: both are
        // derived from the state, never set as flags.
        // (With the editor open `q` is text: the quit key is reached from the other tab.)
        harness.press(.char("n"), .char("x"), .backTab)
        XCTAssertTrue(harness.app.state.hasUnsavedEdits)
        XCTAssertEqual(harness.app.state.tab, .photos)
        let part = URL(fileURLWithPath: "/tmp/.alps-sunrise.jpg.byteclub-download")
        let progress = TransferProgress(direction: .download, name: "alps-sunrise.jpg", total: 1000)
        harness.app.update {
            _ = $0.transfers.started(PhotoTransfer(id: 99, progress: progress, remotePath: "/byteclub/photos/alps-sunrise.jpg", local: part), at: 1)
            _ = $0.transfers.cancelRequested(99)
        }
        XCTAssertEqual(harness.app.state.runningTransfers, 1)
        XCTAssertFalse(harness.app.state.transfers.hasActive)
        harness.press(.char("q"))
        XCTAssertNil(harness.quitStatus, "asks first")
        XCTAssertTrue(harness.compositor.top is DialogLayer)
        for (width, height) in Self.sizes {
            assertSnapshot(harness.render(width: width, height: height), named: "quit-\(width)x\(height)")
        }
        harness.press(.escape)
        XCTAssertNil(harness.quitStatus)
        XCTAssertFalse(harness.compositor.top is DialogLayer)
        harness.press(.char("q"), .char("q"))
        XCTAssertEqual(harness.quitStatus, 0)
    }

    func testQuitWithNothingPendingQuitsAtOnce() async throws {
        let harness = Harness(store: FakeStore())
        await harness.start()
        harness.press(.char("q"))
        XCTAssertEqual(harness.quitStatus, 0)
    }
}
