import ByteClubApp
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// The full-screen viewer (`v`) on the sample club's panoramas: snapshots at several sizes down
/// to the too-small limit, its keys, and pixels placed instead of symbols when the terminal has them.
@MainActor
final class ViewerSnapshotTests: XCTestCase {
    var club: SampleClubServer?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    private func openViewer(graphics: TerminalGraphics? = nil) async throws -> Harness {
        let club = try await SampleClubServer()
        self.club = club
        let harness = Harness(store: club.store()) { $0.graphics = graphics }
        await harness.start()
        harness.press(.char("2"), .char("v"))
        XCTAssertEqual(harness.app.state.viewer?.pathLower, harness.app.state.selectedPhoto?.pathLower)
        await harness.waitUntil("the picture") {
            let canvas = harness.render(width: 120, height: 36)
            return canvas.position(of: "Loading") == nil && canvas.position(of: "px") != nil
        }
        return harness
    }

    /// Whether every cell of row `y` is a picture cell (colored, not the blank background).
    private func isPictureRow(_ canvas: GridCanvas, _ y: Int) -> Bool {
        (0..<canvas.size.width).allSatisfy { canvas.style(x: $0, y: y).background != .default }
    }

    func testTheViewerAtEverySize() async throws {
        let harness = try await openViewer()
        for (width, height) in [(120, 36), (80, 24), (60, 16), (40, 10), (39, 9)] {
            let canvas = harness.render(width: width, height: height)
            if width >= 40 {
                XCTAssertTrue(isPictureRow(canvas, (height - 2) / 2), "the panorama fills the width at \(width)×\(height)")
                XCTAssertNotNil(canvas.position(of: "desk-at-night.jpg"), "the status line names the photo")
                XCTAssertNotNil(canvas.position(of: "━"), "the position bar")
            }
            assertSnapshot(canvas, named: "viewer-\(width)x\(height)")
        }
    }

    func testPanZoomFitAndClose() async throws {
        let harness = try await openViewer()
        let selected = harness.app.state.photos.list.selected
        // The picture's colors along a row (the cells are all ▀, their colors are the picture).
        let pictureRow = { (0..<120).map { harness.render(width: 120, height: 36).style(x: $0, y: 10) } }
        let before = pictureRow()
        XCTAssertNotNil(harness.render(width: 120, height: 36).position(of: "zoom 100%"))
        harness.press(.char("l"))
        XCTAssertEqual(harness.app.state.viewer?.offset, 12, "a tenth of the screen")
        let panned = pictureRow()
        XCTAssertNotEqual(before, panned, "l shows another part")
        harness.press(.char("L"), .end)
        let end = try XCTUnwrap(harness.app.state.viewer?.offset)
        harness.press(.char("l"))
        XCTAssertEqual(harness.app.state.viewer?.offset, end, "no further than the right end")
        harness.press(.home)
        XCTAssertEqual(harness.app.state.viewer?.offset, 0)
        harness.press(.char("+"))
        XCTAssertEqual(harness.app.state.viewer?.zoom, 1.5)
        XCTAssertNotNil(harness.render(width: 120, height: 36).position(of: "zoom 150%"))
        harness.press(.char("f"))
        XCTAssertNotNil(harness.render(width: 120, height: 36).position(of: "whole"))
        harness.press(.char("0"), .char("d"))
        XCTAssertFalse(harness.compositor.top is DialogLayer, "list keys (d deletes) do not reach the list")

        harness.press(.escape)
        XCTAssertNil(harness.app.state.viewer)
        XCTAssertTrue(harness.compositor.top is MainScreen)
        XCTAssertEqual(harness.app.state.photos.list.selected, selected, "the same selection")
        XCTAssertNotNil(harness.render(width: 120, height: 36).position(of: "PanoPhotos"))
    }

    func testUpAndDownShowTheOtherPhotos() async throws {
        let harness = try await openViewer()
        let names = harness.app.state.photos.entries.map(\.name)
        harness.press(.down)
        XCTAssertEqual(harness.app.state.viewer?.pathLower, harness.app.state.photos.entries[1].pathLower)
        XCTAssertEqual(harness.app.state.selectedPhoto?.name, names[1], "the list follows")
        await harness.waitUntil("the next picture") { harness.render(width: 120, height: 36).position(of: names[1] + " · ") != nil
            && harness.render(width: 120, height: 36).position(of: "Loading") == nil }
        harness.press(.up)
        XCTAssertEqual(harness.app.state.selectedPhoto?.name, names[0])
        harness.press(.char("q"))
        XCTAssertNil(harness.app.state.viewer)
    }

    func testPixelsArePlacedInsteadOfSymbols() async throws {
        let graphics = TerminalGraphics(mode: .kitty, cellSize: Size(width: 10, height: 20))
        let harness = try await openViewer(graphics: graphics)
        graphics.beginFrame()
        let canvas = harness.render(width: 120, height: 36)
        XCTAssertFalse(isPictureRow(canvas, 17), "the cells under a picture stay blank")
        let bytes = String(decoding: graphics.endFrame().bytes, as: UTF8.self)
        XCTAssertTrue(bytes.contains("\u{1B}_Ga=t"), "a kitty image")
        XCTAssertTrue(bytes.contains(",c=120,"), "as wide as the screen")
        XCTAssertTrue(bytes.contains(",x=0,y=0,"), "placed from its left end (a source rectangle)")
        XCTAssertFalse(bytes.contains("\u{1B}_Ga=d"), "nothing to delete yet")
        harness.press(.escape)
        graphics.beginFrame()
        _ = harness.render(width: 120, height: 36)
        // Closing frees it; what follows are the list's thumbnails, now kitty pictures too.
        let closing = String(decoding: graphics.endFrame().bytes, as: UTF8.self)
        XCTAssertTrue(closing.hasPrefix("\u{1B}_Ga=d,d=I,i="), "closing frees it: \(closing.prefix(40).debugDescription)")
        XCTAssertEqual(closing.components(separatedBy: "\u{1B}_Ga=d").count - 1, 1, "one delete, nothing else")
        XCTAssertFalse(closing.contains(",c=120,"), "the viewer's full-width picture is not sent again")
    }
}
