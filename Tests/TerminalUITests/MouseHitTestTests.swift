import TerminalUI
import XCTest

/// Clicks and the wheel hit-tested against screens drawn into a ``GridCanvas``: list rows,
/// the editor's text (wide characters, tabs, line ends), help, and modal routing.
@MainActor
final class MouseHitTestTests: XCTestCase {
    private static func rows(_ count: Int) -> [ListRow] { (0..<count).map { ListRow([String(format: "row %02d", $0)]) } }

    private func wheel(_ down: Bool, _ x: Int, _ y: Int) -> Key { .pointer(MouseEvent(down ? .wheelDown : .wheelUp, x: x, y: y)) }

    func testAClickHitsTheRowDrawnThereAndTheWheelScrolls() async throws {
        let rows = Self.rows(50)
        let canvas = GridCanvas(width: 40, height: 12)
        var state = ListState()
        let view = ListView(columns: [ListColumn("Name")], rows: rows)
        let area = Rect(x: 0, y: 2, width: 40, height: 10)  // a header line, then nine rows
        view.render(into: canvas, area: area, state: &state)
        let row5 = try XCTUnwrap(canvas.position(of: "row 05"))
        XCTAssertEqual(state.click(at: Point(x: 20, y: row5.y), rows: rows), 5)
        XCTAssertEqual(state.selected, 5)
        XCTAssertNil(state.click(at: Point(x: 3, y: 2), rows: rows), "the header is no row")
        XCTAssertNil(state.click(at: Point(x: 3, y: 500), rows: rows), "beyond the screen")
        XCTAssertEqual(state.selected, 5)

        // Three rows down a notch; the selection stays while in view, then is taken along.
        XCTAssertEqual(state.scroll(by: 3, count: rows.count), .moved)
        view.render(into: canvas, area: area, state: &state)
        XCTAssertEqual(state.offset, 3)
        XCTAssertEqual(canvas.position(of: "row 03")?.y, 3, canvas.dump())
        XCTAssertEqual(state.selected, 5)
        _ = state.scroll(by: 3, count: rows.count)
        view.render(into: canvas, area: area, state: &state)
        XCTAssertEqual(state.offset, 6, "drawing keeps the scroll: the selection came along")
        XCTAssertEqual(state.selected, 6)
        XCTAssertEqual(state.click(at: Point(x: 1, y: 3), rows: rows), 6, "rows count from the scroll position")
        XCTAssertEqual(state.scroll(by: 100, count: rows.count), .moved)
        XCTAssertEqual(state.offset, 41, "not past the last row")
        XCTAssertEqual(state.scroll(by: 3, count: rows.count), .ignored)
        XCTAssertEqual(state.scroll(by: -100, count: rows.count), .moved)
        XCTAssertEqual(state.offset, 0)

        // Filtered, a click answers the row under it among all the rows.
        state.filter = "row 4"
        view.render(into: canvas, area: area, state: &state)
        let row42 = try XCTUnwrap(canvas.position(of: "row 42"))
        XCTAssertEqual(state.row(at: row42, in: rows), 42)
    }

    private func editor(_ text: String, width: Int = 30, height: Int = 8) -> (NoteEditorState, GridCanvas) {
        var state = NoteEditorState(title: "T", body: text, isNew: false)
        let canvas = GridCanvas(width: width, height: height)
        NoteEditor().render(into: canvas, area: canvas.bounds, state: &state)
        return (state, canvas)
    }

    func testAClickPutsTheCursorOnTheCharacterDrawnThere() async throws {
        var (state, canvas) = editor("你好世界abc\n\tafter tab\nshort\nlast")
        let cjk = try XCTUnwrap(canvas.position(of: "你好"))
        XCTAssertEqual(state.handle(.mouse(x: cjk.x + 5, y: cjk.y)), .moved)
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 0, offset: 2), "the right half of 世 is 世")
        _ = state.handle(.mouse(x: cjk.x + 8, y: cjk.y))
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 0, offset: 4), "a is after four wide characters")
        let tab = try XCTUnwrap(canvas.position(of: "after"))
        _ = state.handle(.mouse(x: tab.x - 2, y: tab.y))
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 1, offset: 0), "inside the tab's blanks is the tab")
        _ = state.handle(.mouse(x: tab.x + 1, y: tab.y))
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 1, offset: 2), "the f of after")
        let short = try XCTUnwrap(canvas.position(of: "short"))
        _ = state.handle(.mouse(x: short.x + 20, y: short.y))
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 2, offset: 5), "past the end of a line: its end")
        _ = state.handle(.mouse(x: 2, y: canvas.size.height - 1))
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 3, offset: 4), "below the text: its end")
        XCTAssertEqual(state.handle(.mouse(x: 2, y: 40)), .ignored, "beyond the pane")
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 3, offset: 4))

        // The title: focus moves there, the cursor onto the clicked character.
        _ = state.handle(.mouse(x: 7, y: 0))
        XCTAssertEqual(state.focus, .title)
        XCTAssertEqual(state.title.cursor, 0)
        _ = state.handle(.mouse(x: cjk.x, y: cjk.y))
        XCTAssertEqual(state.focus, .body)
    }

    func testAClickOnAWrappedRowCountsFromThatRow() async throws {
        // Width 8: "aaaa bbbb cccc" wraps after "aaaa " and "bbbb ".
        var (state, canvas) = editor("aaaa bbbb cccc", width: 8)
        let second = try XCTUnwrap(canvas.position(of: "bbbb"))
        XCTAssertEqual(second.x, 0, canvas.dump())
        _ = state.handle(.mouse(x: 1, y: second.y))
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 0, offset: 6))
        _ = state.handle(.mouse(x: 7, y: second.y))
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 0, offset: 9), "past a wrapped row: its last character")
        _ = state.handle(.mouse(x: 7, y: second.y + 1))
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 0, offset: 14), "past the last row: the line's end")
    }

    func testTheWheelScrollsTheBodyAndTakesTheCursorAlongOnlyWhenItLeaves() async throws {
        let text = (1...40).map { "line \($0)" }.joined(separator: "\n")
        var (state, canvas) = editor(text, height: 12)  // title, rule, ten rows of text
        XCTAssertEqual(canvas.line(2).trimmingCharacters(in: .whitespaces), "line 1")
        _ = state.handle(.mouse(x: 3, y: 4))
        XCTAssertEqual(state.body.cursor.line, 2)
        XCTAssertEqual(state.handle(wheel(true, 5, 5)), .moved)
        NoteEditor().render(into: canvas, area: canvas.bounds, state: &state)
        XCTAssertEqual(canvas.line(2).trimmingCharacters(in: .whitespaces), "line 4", canvas.dump())
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 3, offset: 3), "taken to the top row, same column")
        for _ in 0..<20 { _ = state.handle(wheel(true, 5, 0)) }
        NoteEditor().render(into: canvas, area: canvas.bounds, state: &state)
        XCTAssertEqual(canvas.line(11).trimmingCharacters(in: .whitespaces), "line 40", "the end at the bottom, no further")
        XCTAssertEqual(canvas.line(2).trimmingCharacters(in: .whitespaces), "line 31")
        XCTAssertEqual(state.body.cursor.line, 30)
        _ = state.handle(wheel(false, 5, 5))
        NoteEditor().render(into: canvas, area: canvas.bounds, state: &state)
        XCTAssertEqual(canvas.line(2).trimmingCharacters(in: .whitespaces), "line 28")
        XCTAssertEqual(state.body.cursor.line, 30, "still in view: the cursor stays")
        XCTAssertEqual(state.handle(wheel(true, 5, 50)), .ignored, "outside the pane")
    }

    func testHelpScrollsByWheelAndModalsKeepClicksFromTheLayersBelow() async throws {
        let compositor = Compositor()
        let below = RecordingLayer()
        compositor.push(below)
        let commands = (0..<60).map { Command(keys: [.char("x")], description: "Command number \($0)", group: "G", keyLabel: "k\($0)") }
        let help = HelpOverlay(commands: commands)
        compositor.push(help)
        let canvas = GridCanvas(width: 40, height: 12)
        compositor.render(into: canvas)
        XCTAssertEqual(help.scroll, 0)
        compositor.handle(wheel(true, 1, 1))
        XCTAssertEqual(help.scroll, 3)
        compositor.handle(wheel(false, 1, 1))
        compositor.handle(wheel(false, 1, 1))
        XCTAssertEqual(help.scroll, 0)
        compositor.handle(.mouse(x: 0, y: 11))
        compositor.pop()

        var chosen: [Int?] = []
        let dialog = DialogLayer(Modal(title: "Delete?", buttons: ["Delete", "Cancel"])) { chosen.append($0) }
        compositor.push(dialog)
        compositor.render(into: canvas)
        compositor.handle(.mouse(x: 0, y: 0))
        compositor.handle(wheel(true, 0, 0))
        XCTAssertTrue(below.received.isEmpty, "a click or wheel outside a modal reaches nothing under it: \(below.received)")
        XCTAssertTrue(chosen.isEmpty)
        let cancel = try XCTUnwrap(canvas.position(of: "Cancel"))
        compositor.handle(.mouse(x: cancel.x, y: cancel.y))
        XCTAssertEqual(chosen, [1])
        compositor.handle(.mouse(x: 0, y: 0))
        XCTAssertEqual(below.received, [.mouse(x: 0, y: 0)], "with the modal gone, clicks reach the layer")
    }
}

@MainActor
private final class RecordingLayer: Layer {
    var received: [Key] = []
    func render(into canvas: any Canvas, area: Rect) {}
    func handle(_ key: Key, context: LayerContext) -> EventResult {
        received.append(key)
        return .consumed
    }
}
