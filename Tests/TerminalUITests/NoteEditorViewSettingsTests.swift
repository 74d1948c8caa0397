import TerminalUI
import TestSupport
import XCTest

/// The editor's view settings, drawn: line numbers in a gutter (a click still lands on the
/// character under it), and soft wrap off, where a long line runs past the right edge and the
/// view scrolls sideways to the cursor (the terminal cursor, a click and the text agree).
@MainActor
final class NoteEditorViewSettingsTests: XCTestCase {
    private func render(_ state: inout NoteEditorState, editor: NoteEditor, width: Int = 30, height: Int = 8) -> GridCanvas {
        let canvas = GridCanvas(width: width, height: height)
        editor.render(into: canvas, area: canvas.bounds, state: &state)
        return canvas
    }

    private func rows(_ canvas: GridCanvas) -> [String] { canvas.dump().split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    func testLineNumbersGoInAGutterAndAClickStillFindsItsCharacter() async {
        var state = NoteEditorState(title: "Plan", body: "alpha\nbeta gamma delta epsilon zeta\nomega", isNew: false)
        var editor = NoteEditor()
        editor.showsLineNumbers = true
        let canvas = render(&state, editor: editor)
        let shown = rows(canvas)
        XCTAssertTrue(shown.contains { $0.hasPrefix("1 alpha") }, shown.joined(separator: "\n"))
        XCTAssertTrue(shown.contains { $0.hasPrefix("2 beta") })
        XCTAssertTrue(shown.contains { $0.hasPrefix("3 omega") })
        // The wrapped row of line 2 has no number of its own.
        XCTAssertTrue(shown.contains { $0.hasPrefix("  ") && $0.contains("zeta") }, shown.joined(separator: "\n"))
        XCTAssertEqual(state.frames.body.x, 2, "the text starts after the gutter")
        // A click on the "l" of "alpha" (screen column 3) puts the cursor before it.
        let y = state.frames.body.y
        _ = state.handle(.mouse(x: 3, y: y))
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 0, offset: 1))
    }

    func testWithoutSoftWrapALongLineScrollsSidewaysToTheCursor() async {
        let long = "start " + String(repeating: "x", count: 40) + " END"
        var state = NoteEditorState(title: "Plan", body: "top\n" + long, isNew: false)
        var editor = NoteEditor()
        editor.softWrap = false
        var shown = rows(render(&state, editor: editor))
        XCTAssertTrue(shown.contains { $0.hasPrefix("start xxx") }, "one row, cut at the edge")
        XCTAssertFalse(shown.joined().contains("END"))
        XCTAssertEqual(shown.filter { $0.contains("xxx") }.count, 1, "not wrapped")

        // The cursor at the line's end: the view scrolls sideways, the cursor on screen is there.
        _ = state.handle(.down)
        _ = state.handle(.end)
        let canvas = render(&state, editor: editor)
        shown = rows(canvas)
        let row = try? XCTUnwrap(shown.firstIndex { $0.contains(" END") })
        XCTAssertNotNil(row, shown.joined(separator: "\n"))
        XCTAssertFalse(shown.joined().contains("start"), "the line's start is scrolled off to the left")
        XCTAssertEqual(state.body.firstColumn, long.count - 30 + 1)
        XCTAssertEqual(canvas.cursor, Point(x: 29, y: row ?? 0), "the terminal cursor just after END")

        // A click on the "E" of END lands on it, not on what column 27 holds unscrolled.
        let endColumn = shown[row ?? 0].range(of: "END").map { shown[row ?? 0].distance(from: shown[row ?? 0].startIndex, to: $0.lowerBound) } ?? 0
        _ = state.handle(.mouse(x: endColumn, y: row ?? 0))
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 1, offset: long.count - 3))

        // Back on: wrapped again, from the first column.
        editor.softWrap = true
        shown = rows(render(&state, editor: editor))
        XCTAssertEqual(state.body.firstColumn, 0)
        XCTAssertTrue(shown.joined().contains("start") && shown.joined().contains("END"))
    }

    func testSelectAllSelectsEveryLineAndTypingReplacesIt() async {
        var state = NoteEditorState(title: "Plan", body: "one\ntwo\nthree", isNew: false)
        XCTAssertEqual(state.handle(.alt("s")), .moved)
        XCTAssertEqual(state.body.selectedText, "one\ntwo\nthree")
        XCTAssertEqual(state.handle(.char("Z")), .edited)
        XCTAssertEqual(state.body.text, "Z")
        _ = state.handle(.alt("s"))
        XCTAssertEqual(state.handle(.ctrl("x")), .cut("Z"))
        XCTAssertEqual(state.body.text, "")
    }
}
