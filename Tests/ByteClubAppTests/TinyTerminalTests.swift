import ByteClubApp
import Foundation
import Remote
import TerminalUI
import TestSupport
import XCTest

/// Every screen of issues 6 and 7 drawn at sizes from roomy down to absurd: nothing crashes,
/// nothing draws outside the canvas, and the editor's text survives the squeeze.
@MainActor
final class TinyTerminalTests: XCTestCase {
    var club: SampleClubServer?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    static let sizes = [(120, 36), (80, 24), (50, 12), (40, 8), (30, 6), (20, 5), (12, 3), (1, 1), (0, 0)]

    private func renderEverywhere(_ harness: Harness, _ what: String) {
        for (width, height) in Self.sizes {
            let canvas = harness.render(width: width, height: height)
            XCTAssertEqual(canvas.size, Size(width: width, height: height), what)
            if let cursor = canvas.cursor {
                XCTAssertTrue(canvas.bounds.contains(cursor), "\(what) at \(width)×\(height): the cursor is off the canvas at \(cursor)")
            }
        }
        // Roomy again before the next keys: keys typed while too small are dropped.
        _ = harness.render(width: 120, height: 36)
    }

    func testEveryScreenDrawsAtEverySize() async throws {
        let club = try await SampleClubServer()
        self.club = club
        let harness = Harness(store: club.store())
        await harness.start()
        renderEverywhere(harness, "notes list")

        // The editor, with a long wrapped text of wide characters.
        harness.press(.char("n"))
        for character in "A title that is far too long for a tiny terminal" { harness.press(.char(character)) }
        harness.press(.enter)
        harness.press(.paste(String(repeating: "你好 Grüße 👨‍👩‍👧 ", count: 200)))
        renderEverywhere(harness, "editor")
        XCTAssertEqual(harness.app.state.note?.editor.body.text, String(repeating: "你好 Grüße 👨‍👩‍👧 ", count: 200),
                       "drawing never changes the text")

        // Its dialogs.
        harness.press(.escape)
        XCTAssertTrue(harness.compositor.top is DialogLayer)
        renderEverywhere(harness, "unsaved-changes dialog")
        harness.press(.char("c"))

        // Photos (Shift-Tab: in the editor, Tab indents), with thumbnails on their way and then in.
        harness.press(.backTab)
        renderEverywhere(harness, "photos")
        _ = harness.render(width: 120, height: 36)
        await harness.waitUntil("thumbnails") { harness.app.thumbnails.fetchedCount == 4 }
        renderEverywhere(harness, "photos with thumbnails")
        harness.press(.char("p"))
        renderEverywhere(harness, "photos with the preview pane")
        harness.press(.char("u"))
        renderEverywhere(harness, "file chooser")
        harness.press(.escape)
        XCTAssertEqual(harness.app.state.tab, .photos)
    }
}
