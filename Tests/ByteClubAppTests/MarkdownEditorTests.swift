import ByteClubApp
import Foundation
import TerminalUI
import TestSupport
import XCTest

/// Markdown in the app's editor: a `.md` note drawn with the theme's syntax styles, a big one
/// parsed off the UI queue, and a stale parse never styling the wrong text.
@MainActor
final class MarkdownEditorTests: XCTestCase {
    var club: SampleClubServer?

    override func tearDown() async throws {
        await club?.close()
        club = nil
    }

    /// Opens `name` (written into the club with `text`) in the editor.
    private func open(_ name: String, _ text: String) async throws -> Harness {
        let club = try await SampleClubServer()
        self.club = club
        try Data(text.utf8).write(to: club.base.appendingPathComponent("club/byteclub/\(name)"))
        let harness = Harness(store: club.store())
        await harness.start()
        await harness.waitUntil("the note listed") { harness.app.state.notes.entries.contains { $0.name == name } }
        // Written last, it is the newest: the first row.
        harness.app.update { $0.notes.list.selected = 0 }
        harness.press(.enter)
        await harness.waitUntil("the note open") { harness.app.state.note?.isEditing == true }
        XCTAssertEqual(harness.app.state.note?.entry?.name, name)
        return harness
    }

    /// The style of the first cell of `text` on the screen, if it is there.
    private func style(of text: String, in canvas: GridCanvas) -> Style? {
        canvas.position(of: text).map { canvas.style(x: $0.x, y: $0.y) }
    }

    func testASmallMarkdownNoteIsStyledAsItIsDrawn() async throws {
        let harness = try await open("Plan.md", "# Heading here\n\nsome `code` and text\n")
        let canvas = harness.render(width: 120, height: 36)
        let syntax = canvas.theme.syntax
        XCTAssertEqual(style(of: "# Heading here", in: canvas), canvas.theme.text.overlaid(with: syntax.heading))
        XCTAssertEqual(style(of: "`code`", in: canvas), canvas.theme.text.overlaid(with: syntax.code))
        XCTAssertEqual(style(of: "some", in: canvas), canvas.theme.text)
    }

    func testABigNoteIsStyledOffTheUIQueueAndAStaleParseStylesOnlyTheTextItParsed() async throws {
        // 3,000 lines: over the limit for a parse while drawing.
        var text = "# Top heading\n"
        for i in 0..<3_000 { text += "line \(i) of plain words\n" }
        let harness = try await open("Big.md", text)
        let heading = { self.style(of: "# Top heading", in: harness.render(width: 120, height: 36)) }
        let theme = harness.render(width: 120, height: 36).theme
        let headingStyle = theme.text.overlaid(with: theme.syntax.heading)
        await harness.waitUntil("the parse off the UI queue") { heading() == headingStyle }

        // A line typed above it: until the next parse the old one styles the heading, shifted by
        // the line added, and the new line "# new" (a heading too, once parsed) is drawn plain.
        harness.press(.documentStart)
        for c in "# new" { harness.press(.char(c)) }
        harness.press(.enter)
        let canvas = harness.render(width: 120, height: 36)
        XCTAssertEqual(style(of: "# Top heading", in: canvas), headingStyle, "the heading's own text keeps its style")
        XCTAssertEqual(style(of: "# new", in: canvas), canvas.theme.text, "text the parse has not seen is plain")
        await harness.waitUntil("the next parse styles the new heading") {
            self.style(of: "# new", in: harness.render(width: 120, height: 36)) == headingStyle
        }
    }
}
