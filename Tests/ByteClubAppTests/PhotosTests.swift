import ByteClubApp
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// The PanoPhotos tab against a real club server with the sample club: thumbnails drawn as
/// cells, the paused-download row, uploads with the modal (finished and cancelled), downloads.
@MainActor
final class PhotosTests: XCTestCase {
    var club: SampleClubServer?
    var scratch: URL!

    override func setUp() async throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("byteclub-photos-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() async throws {
        await club?.close()
        club = nil
        try? FileManager.default.removeItem(at: scratch)
    }

    var photosFolder: URL { club!.base.appendingPathComponent("club/byteclub/photos") }

    private func harness(start: Bool = true) async throws -> Harness {
        let club = try await SampleClubServer()
        self.club = club
        let scratch = self.scratch!
        let harness = Harness(store: club.store()) { configuration in
            configuration.downloadDirectory = scratch.appendingPathComponent("downloads")
            configuration.pausedDownloads = PausedDownloads(directory: scratch.appendingPathComponent("resume"))
            configuration.thumbnailsDirectory = scratch.appendingPathComponent("thumbnails")
            configuration.uploadStartDirectory = scratch
        }
        if start {
            await harness.start()
            harness.press(.char("2"))
        }
        return harness
    }

    func testThumbnailsAreDrawnAsColoredCellsAndCachedOnDisk() async throws {
        let harness = try await harness()
        _ = harness.render(width: 120, height: 36)
        await harness.waitUntil("four thumbnails") { harness.app.thumbnails.fetchedCount == 4 }
        let canvas = harness.render(width: 120, height: 36)
        // The first row's thumbnail: 24 cells of colored blocks, not placeholders.
        var colored = 0
        for y in 1..<5 {
            for x in 1..<25 {
                let style = canvas.cell(x: x, y: y).style
                if case .indexed = style.background, case .indexed = style.foreground { colored += 1 }
            }
        }
        XCTAssertGreaterThan(colored, 40, "most thumbnail cells carry 256-color foreground and background")
        assertSnapshot(canvas, named: "photos-thumbnails-120x36")
        let cached = try FileManager.default.contentsOfDirectory(atPath: scratch.appendingPathComponent("thumbnails").path)
        XCTAssertEqual(cached.filter { $0.hasSuffix(".jpg") }.count, 4)

        // A second app reads them from disk instead of the server.
        let again = Harness(store: club!.store()) { $0.thumbnailsDirectory = self.scratch.appendingPathComponent("thumbnails") }
        await again.start()
        again.press(.char("2"))
        _ = again.render(width: 120, height: 36)
        await again.waitUntil("thumbnails from disk") { again.app.thumbnails.diskHits == 4 }
        XCTAssertEqual(again.app.thumbnails.fetchedCount, 0)
    }

    func testAPausedDownloadShowsOnItsRowAndAStaleOneIsDropped() async throws {
        let harness = try await harness(start: false)
        let store = club!.store()
        let alps = try await store.metadata("/byteclub/photos/alps-sunrise.jpg")
        let paused = PausedDownloads(directory: scratch.appendingPathComponent("resume"))
        paused.save(PausedDownload(path: alps.path, rev: alps.rev, done: (alps.size * 42 + 99) / 100, total: alps.size, resumeData: Data("{}".utf8)))
        await harness.start()
        harness.press(.char("2"))
        let canvas = harness.render(width: 80, height: 24)
        XCTAssertNotNil(canvas.position(of: "paused 42% · Enter resumes"))
        assertSnapshot(canvas, named: "photos-paused-80x24")

        // The photo changes on the server: Enter starts again instead of resuming stale bytes.
        try Data(contentsOf: photosFolder.appendingPathComponent("city-dusk.jpg")).write(to: photosFolder.appendingPathComponent("alps-sunrise.jpg"))
        harness.press(.char("r"))
        await harness.waitForLoads(3)
        // Newest first: the alps, oldest of the sample, is the last row.
        harness.press(.char("G"))
        XCTAssertEqual(harness.app.state.selectedPhoto?.name, "alps-sunrise.jpg")
        harness.press(.enter)
        XCTAssertEqual(harness.app.state.message?.text.contains("starting again"), true, harness.app.state.message?.text ?? "")
        await harness.waitUntil("the download") { harness.app.state.message?.text.hasPrefix("Downloaded") == true }
        let downloaded = scratch.appendingPathComponent("downloads/alps-sunrise.jpg")
        XCTAssertEqual(try Data(contentsOf: downloaded), try Data(contentsOf: photosFolder.appendingPathComponent("alps-sunrise.jpg")))
        XCTAssertEqual(paused.all(), [])
        XCTAssertTrue(harness.app.state.paused.isEmpty)

        // Downloading again keeps the first file and picks a new name.
        harness.press(.enter)
        await harness.waitUntil("the second download") { harness.app.state.message?.text.contains("alps-sunrise (1).jpg") == true }
    }

    func testUploadShowsTheModalThenSelectsTheNewPhoto() async throws {
        let harness = try await harness()
        let source = photosFolder.appendingPathComponent("desk-at-night.jpg")
        let file = scratch.appendingPathComponent("my desk.jpg")
        try FileManager.default.copyItem(at: source, to: file)
        harness.app.upload(file)
        XCTAssertTrue(harness.compositor.top is TransferModal)
        XCTAssertEqual(harness.app.state.runningTransfers, 1)
        await harness.waitUntil("the upload") { harness.app.state.message?.text == "Uploaded \"my desk.jpg\"" }
        XCTAssertFalse(harness.compositor.top is TransferModal)
        XCTAssertEqual(try Data(contentsOf: photosFolder.appendingPathComponent("my desk.jpg")), try Data(contentsOf: file))
        await harness.waitUntil("the new photo selected") { harness.app.state.selectedPhoto?.name == "my desk.jpg" }
        XCTAssertEqual(harness.app.state.runningTransfers, 0)
    }

    func testUploadRefusesWhatIsNotAPicture() async throws {
        let harness = try await harness()
        let text = scratch.appendingPathComponent("notes.jpg")
        try Data("not a picture".utf8).write(to: text)
        harness.app.upload(text)
        XCTAssertEqual(harness.app.state.message?.kind, .error)
        XCTAssertTrue(harness.app.state.message?.text.contains("is not a picture") ?? false)
        harness.app.upload(scratch.appendingPathComponent("missing.jpg"))
        XCTAssertTrue(harness.app.state.message?.text.hasPrefix("No such file") ?? false)
        harness.app.upload(scratch)
        XCTAssertTrue(harness.app.state.message?.text.contains("is a folder") ?? false)
        XCTAssertFalse(harness.compositor.top is TransferModal)
    }

    func testUKeyOpensTheFileChooserAndEscClosesIt() async throws {
        let harness = try await harness()
        harness.press(.char("u"))
        XCTAssertTrue(harness.compositor.top is FileChooser)
        harness.press(.escape)
        XCTAssertFalse(harness.compositor.top is FileChooser)
    }
}
