import ByteClubApp
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// The PanoPhotos list on a terminal with kitty pixels: each visible thumbnail is one kitty
/// picture over blank cells, and a frame that only moves the selection sends nothing.
@MainActor
final class PhotosPixelsTests: XCTestCase {
    var club: SampleClubServer?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    /// How many kitty pictures (`ESC _ G a=t`, the first chunk of each) `bytes` holds.
    private func kittyImages(_ bytes: [UInt8]) -> Int {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: "\u{1B}_Ga=t").count - 1
    }

    func testVisibleThumbnailsAreKittyPicturesAndASelectionMoveSendsNothing() async throws {
        let club = try await SampleClubServer()
        self.club = club
        let graphics = TerminalGraphics(mode: .kitty, cellSize: Size(width: 10, height: 20))
        let harness = Harness(store: club.store()) { $0.graphics = graphics }
        await harness.start()
        harness.press(.char("2"))
        _ = harness.render(width: 120, height: 36)
        await harness.waitUntil("four thumbnails") { harness.app.thumbnails.fetchedCount == 4 }

        graphics.beginFrame()
        let canvas = harness.render(width: 120, height: 36)
        let first = graphics.endFrame().bytes
        XCTAssertEqual(kittyImages(first), 4, "one kitty picture per visible row with a thumbnail")
        // The first row's thumbnail cells stay blank under its picture (symbols mode colors them).
        for y in 1..<5 {
            for x in 2..<24 { XCTAssertEqual(canvas.style(x: x, y: y).background, .default, "blank cell at \(x),\(y)") }
        }

        // The same frame again, then a selection move within the page: nothing new is sent.
        graphics.beginFrame()
        _ = harness.render(width: 120, height: 36)
        XCTAssertEqual(graphics.endFrame().bytes, [])
        let selected = harness.app.state.photos.list.selected
        harness.press(.down)
        XCTAssertNotEqual(harness.app.state.photos.list.selected, selected, "the selection moved")
        graphics.beginFrame()
        _ = harness.render(width: 120, height: 36)
        XCTAssertEqual(graphics.endFrame().bytes, [], "moving the selection without scrolling sends nothing")
    }
}
