import ByteClubApp
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// The Transfers panel (`T`) drawn at sizes down to the "too small" limit, its keys, and many
/// uploads at once from marks in the file chooser against a real club server.
@MainActor
final class TransfersPanelTests: XCTestCase {
    var club: SampleClubServer?
    var scratch: URL!

    override func setUp() async throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-transfers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        await club?.close()
        club = nil
        try? FileManager.default.removeItem(at: scratch)
    }

    private func transfer(_ id: Int, _ direction: TransferProgress.Direction, _ name: String) -> PhotoTransfer {
        PhotoTransfer(id: id, progress: TransferProgress(direction: direction, name: name, total: 4_000_000),
                      remotePath: "/byteclub/photos/" + name, local: URL(fileURLWithPath: "/tmp/" + name))
    }

    /// Every state a row can be in, with fixed figures: done, failed, three running (one named
    /// with an escape sequence), one queued, one paused.
    private func sampleTransfers() -> Transfers {
        var machine = Transfers()
        machine.limit = 3
        let entry = RemoteEntry(kind: .file, name: "alps-sunrise.jpg", path: "/byteclub/photos/alps-sunrise.jpg", rev: "1", size: 4_000_000)
        _ = machine.enqueue(transfer(1, .upload, "alps-sunrise.jpg"), showsModal: false)
        _ = machine.enqueue(transfer(2, .upload, "coast-noon.jpg"), showsModal: false)
        _ = machine.enqueue(transfer(3, .download, "city-dusk.jpg"), showsModal: false)
        _ = machine.enqueue(transfer(4, .upload, "trip-day-2-a-very-long-name-for-a-panorama.jpg"), showsModal: false)
        _ = machine.enqueue(transfer(5, .upload, "evil\u{1B}[2J.jpg"), showsModal: false)
        _ = machine.enqueue(transfer(6, .download, "desk-at-night.jpg"), showsModal: false)
        _ = machine.progressed(1, done: 0, expected: 4_000_000, at: 10)
        _ = machine.uploadFinished(1, .success(entry), at: 14)
        _ = machine.uploadFinished(2, .failure(.network("Connection reset")), at: 14)
        for (id, done) in [(3, 1_720_000), (4, 1_000_000), (5, 400_000)] {
            _ = machine.progressed(id, done: 0, expected: 4_000_000, at: 10)
            _ = machine.progressed(id, done: Int64(done), expected: 4_000_000, at: 12)
        }
        _ = machine.enqueue(transfer(7, .upload, "waiting.jpg"), showsModal: false)
        _ = machine.pauseOrResume(6)
        _ = machine.downloadFinished(6, .failure(.cancelled), resumable: true)
        return machine
    }

    private func fakeHarness() async -> Harness {
        let harness = Harness(store: FakeStore(files: []))
        await harness.start()
        return harness
    }

    func testThePanelAtEverySize() async throws {
        let harness = await fakeHarness()
        harness.app.update { $0.transfers = self.sampleTransfers() }
        harness.press(.char("T"))
        XCTAssertTrue(harness.compositor.top is TransfersPanel)
        for (width, height) in [(120, 36), (80, 24), (40, 10)] {
            let canvas = harness.render(width: width, height: height)
            XCTAssertNil(canvas.dump().range(of: "\u{1B}"), "no raw escape from a name")
            assertSnapshot(canvas, named: "transfers-\(width)x\(height)")
        }
        let wide = harness.render(width: 120, height: 36).dump()
        for word in ["queued", "running", "paused", "done", "failed", "43%", "25%", "10%", "evil\\x1b[2J.jpg", "Transfers ↑3 ↓1 19%"] {
            XCTAssertTrue(wide.contains(word), "the panel shows \(word)")
        }
        // Below the minimum, the notice, never a half-drawn panel.
        for (width, height) in [(39, 10), (30, 8), (12, 3), (1, 1), (0, 0)] {
            let canvas = harness.render(width: width, height: height)
            XCTAssertEqual(canvas.size, Size(width: width, height: height))
            XCTAssertFalse(canvas.dump().contains("Transfers"), "\(width)×\(height)")
        }
        assertSnapshot(harness.render(width: 39, height: 10), named: "transfers-too-small-39x10")
    }

    func testThePanelsKeys() async throws {
        let harness = await fakeHarness()
        harness.app.update { $0.transfers = self.sampleTransfers() }
        harness.press(.char("T"))
        // The first row is selected: 1 is done.
        harness.press(.char("c"))
        XCTAssertTrue(harness.app.state.message?.text.contains("has ended already") ?? false)
        harness.press(.down, .char("r"))
        XCTAssertNil(harness.app.state.transfers.rows.first { $0.id == 2 }, "the failed upload is asked for again")
        XCTAssertTrue(harness.app.state.message?.text.hasPrefix("No such file") ?? false, "its file is gone: said, not lost in silence")
        // Now on 3 (running): down to 7, the queued one, and Esc cancels it.
        harness.press(.end, .escape)
        XCTAssertEqual(harness.app.state.transfers.rows.first { $0.id == 7 }?.rowState, .cancelled)
        harness.press(.char("x"))
        XCTAssertEqual(harness.app.state.transfers.rows.map(\.id), [3, 4, 5, 6], "finished rows cleared, paused kept")
        XCTAssertTrue(harness.compositor.top is TransfersPanel, "Esc cancelled, it did not close the panel")
        harness.press(.char("T"))
        XCTAssertFalse(harness.compositor.top is TransfersPanel)
        harness.press(.char("T"))
        harness.press(.char("q"))
        XCTAssertFalse(harness.compositor.top is TransfersPanel)
        XCTAssertNil(harness.quitStatus, "q closes the panel, it does not quit")
    }

    func testQuittingAsksOnceForEveryTransferNotOver() async throws {
        let harness = await fakeHarness()
        harness.app.update { $0.transfers = self.sampleTransfers() }
        XCTAssertEqual(harness.app.state.runningTransfers, 4, "three running and one queued")
        harness.press(.char("q"))
        XCTAssertTrue(harness.compositor.top is DialogLayer)
        XCTAssertTrue(harness.render(width: 120, height: 36).dump().contains("4 transfers are still running"))
        XCTAssertNil(harness.quitStatus)
    }

    func testMarkedFilesUploadTogetherWithinTheLimit() async throws {
        let club = try await SampleClubServer()
        self.club = club
        let photos = club.base.appendingPathComponent("club/byteclub/photos")
        let folder = scratch.appendingPathComponent("trip")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = try Data(contentsOf: photos.appendingPathComponent("coast-noon.jpg"))
        for n in 1...3 { try source.write(to: folder.appendingPathComponent("trip-\(n).jpg")) }
        let harness = Harness(store: club.store()) { configuration in
            configuration.uploadStartDirectory = folder
            configuration.transfers = 2
        }
        await harness.start()
        harness.press(.char("2"), .char("u"))
        XCTAssertTrue(harness.compositor.top is FileChooser)
        harness.press(.char("*"))
        harness.press(.enter)
        XCTAssertFalse(harness.compositor.top is FileChooser)
        XCTAssertFalse(harness.compositor.top is TransferModal, "a batch runs without the modal")
        XCTAssertEqual(harness.app.state.transfers.slotsInUse, 2, "two at once")
        XCTAssertEqual(harness.app.state.transfers.queued.count, 1)
        XCTAssertEqual(harness.app.state.message?.text, "Uploading 3 photos, 2 at once · T shows them")
        await harness.waitUntil("all three uploaded") { harness.app.state.transfers.rows.filter { $0.rowState == .done }.count == 3 }
        for n in 1...3 { XCTAssertEqual(try Data(contentsOf: photos.appendingPathComponent("trip-\(n).jpg")), source) }
        XCTAssertEqual(harness.app.state.runningTransfers, 0)
    }

    func testASecondDownloadWaitsForTheSlotAndThenRuns() async throws {
        let club = try await SampleClubServer()
        self.club = club
        let downloads = scratch.appendingPathComponent("downloads")
        let resume = scratch.appendingPathComponent("resume")
        let harness = Harness(store: club.store()) { configuration in
            configuration.downloadDirectory = downloads
            configuration.pausedDownloads = PausedDownloads(directory: resume)
            configuration.transfers = 1
        }
        await harness.start()
        harness.press(.char("2"), .enter)
        XCTAssertTrue(harness.compositor.top is TransferModal, "the transfer just asked for shows in the modal")
        harness.press(.char("b"), .down, .enter)
        let second = harness.app.state.transfers.rows.last
        XCTAssertEqual(harness.app.state.transfers.rows.count, 2)
        // The keys ran in one turn of the main queue: the first cannot have ended meanwhile.
        XCTAssertEqual(harness.app.state.transfers.rows.first?.rowState, .running)
        XCTAssertEqual(second?.rowState, .queued, "one at a time")
        XCTAssertTrue(harness.app.state.message?.text.contains("waits for a free slot (1 at once)") ?? false)
        harness.press(.char("b"))
        await harness.waitUntil("both downloaded") { harness.app.state.transfers.rows.filter { $0.rowState == .done }.count == 2 }
        let photos = club.base.appendingPathComponent("club/byteclub/photos")
        for name in ["desk-at-night.jpg", "coast-noon.jpg"] {
            XCTAssertEqual(try Data(contentsOf: downloads.appendingPathComponent(name)), try Data(contentsOf: photos.appendingPathComponent(name)))
        }
    }

    func testCtrlFOffersAFolderWithItsCount() async throws {
        let club = try await SampleClubServer()
        self.club = club
        let folder = scratch.appendingPathComponent("day")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let photos = club.base.appendingPathComponent("club/byteclub/photos")
        let source = try Data(contentsOf: photos.appendingPathComponent("city-dusk.jpg"))
        for n in 1...2 { try source.write(to: folder.appendingPathComponent("day-\(n).jpg")) }
        try Data("x".utf8).write(to: folder.appendingPathComponent("notes.txt"))
        let scratch = self.scratch!
        let harness = Harness(store: club.store()) { $0.uploadStartDirectory = scratch }
        await harness.start()
        harness.press(.char("2"), .char("u"), .down, .ctrl("f"))
        XCTAssertTrue(harness.compositor.top is DialogLayer)
        XCTAssertTrue(harness.render(width: 80, height: 24).dump().contains("Upload the 2 photos in \"day\"?"))
        harness.press(.enter)
        await harness.waitUntil("both uploaded") { harness.app.state.transfers.rows.filter { $0.rowState == .done }.count == 2 }
        XCTAssertEqual(try Data(contentsOf: photos.appendingPathComponent("day-2.jpg")), source)
    }

    /// Issue 43 §5: the agent's rows had no rate and no time left (each was made afresh from the
    /// agent's counts), and a cancelled one showed 0 % where `byteclub transfers` said how far it
    /// got. The app now keeps each running one's progress as it saw it move.
    func testTheAgentsRowsHaveARateAndTimeLeftAndACancelledOneKeepsItsProgress() {
        let local = URL(fileURLWithPath: "/tmp/big.bin")
        func agent(_ state: TransferRowState, done: Int64) -> BackgroundTransfer {
            BackgroundTransfer(id: "a1", isUpload: true, name: "big.bin", remotePath: "/byteclub/photos/big.bin", local: local,
                               state: state, done: done, total: 10 << 20)
        }
        var state = AppState(backend: "club")
        for (time, done) in [(100.0, Int64(2 << 20)), (101.0, Int64(3 << 20)), (102.0, Int64(4 << 20))] {
            let change = agent(.running, done: done)
            state.backgroundRates["a1"] = AppState.movedAgain(state.backgroundRates["a1"], change, at: time)
            state.background = [change]
        }
        let running = try? XCTUnwrap(state.transferRows.first { $0.isBackground })
        XCTAssertEqual(running?.progress.percentText, "40%")
        XCTAssertEqual(running?.progress.rateText, ByteFormat.rate(Double(1 << 20)))
        XCTAssertEqual(running?.progress.etaText, ByteFormat.duration(6))

        state.background = [agent(.cancelled, done: 4 << 20)]
        state.backgroundRates["a1"] = AppState.movedAgain(state.backgroundRates["a1"], state.background[0], at: 103)
        XCTAssertNil(state.backgroundRates["a1"], "only a running transfer has a rate")
        let cancelled = state.transferRows.first { $0.isBackground }
        XCTAssertEqual(cancelled?.progress.percentText, "40%", "as far as it got, as `byteclub transfers` says")
    }

    /// Issue 43 §5: handing a WebDAV upload to the agent on quit started it again from 0 % (the
    /// server has no upload sessions) without a word; the quit question says so where it will.
    func testTheQuitQuestionSaysAWebDAVUploadStartsAgain() {
        let webdav = QuitQuestion.lines(running: 1, uploadsStartOver: true, unsavedEdits: false)
        XCTAssertTrue(webdav.contains { $0.contains("starts again from 0 %") }, "\(webdav)")
        let club = QuitQuestion.lines(running: 2, uploadsStartOver: false, unsavedEdits: true)
        XCTAssertFalse(club.contains { $0.contains("starts again") }, "a club server continues the upload's session")
        XCTAssertEqual(club.first, "2 transfers are still running.")
        XCTAssertTrue(club.contains("A note has unsaved changes (its draft is kept for next time)."))
    }
}
