import TerminalUI
import XCTest

@MainActor
final class ListStateTests: XCTestCase {
    let rows = (0..<100).map { ListRow(["Row \($0)"]) }

    func press(_ keys: [Key], _ state: inout ListState, rows: [ListRow]? = nil) -> ListOutcome {
        var last = ListOutcome.ignored
        for key in keys { last = state.handle(key, rows: rows ?? self.rows) }
        return last
    }

    func testMovement() async {
        var state = ListState()
        state.pageSize = 10
        XCTAssertEqual(press([.char("j"), .down, .down], &state), .moved)
        XCTAssertEqual(state.selected, 3)
        _ = press([.char("k"), .up], &state)
        XCTAssertEqual(state.selected, 1)
        _ = press([.up, .up, .char("k")], &state)
        XCTAssertEqual(state.selected, 0, "stops at the top")
        _ = press([.pageDown, .pageDown], &state)
        XCTAssertEqual(state.selected, 20)
        _ = press([.pageUp], &state)
        XCTAssertEqual(state.selected, 10)
        _ = press([.char("G")], &state)
        XCTAssertEqual(state.selected, 99)
        _ = press([.down, .pageDown], &state)
        XCTAssertEqual(state.selected, 99, "stops at the bottom")
        _ = press([.char("g")], &state)
        XCTAssertEqual(state.selected, 0)
        _ = press([.end], &state)
        XCTAssertEqual(state.selected, 99)
        _ = press([.home], &state)
        XCTAssertEqual(state.selected, 0)
        XCTAssertEqual(press([.char("x")], &state), .ignored)
        XCTAssertEqual(press([.escape], &state), .ignored, "Esc without a filter is someone else's")
    }

    func testEnterActivatesTheSelectedRow() async {
        var state = ListState()
        _ = press([.down, .down], &state)
        XCTAssertEqual(press([.enter], &state), .activated(row: 2))
        var empty = ListState()
        XCTAssertEqual(empty.handle(.enter, rows: []), .ignored)
    }

    func testFilterNarrowsLiveAndIgnoresCase() async {
        var state = ListState()
        XCTAssertEqual(press([.char("/")], &state), .filterChanged)
        XCTAssertTrue(state.isEditingFilter)
        _ = press(KeyDecoder.decode("ROW 1"), &state)
        XCTAssertEqual(state.filter, "ROW 1")
        XCTAssertEqual(state.visibleIndices(in: rows), [1] + Array(10...19))
        _ = press([.char("7")], &state)
        XCTAssertEqual(state.visibleIndices(in: rows), [17])
        _ = press([.backspace], &state)
        XCTAssertEqual(state.visibleIndices(in: rows).count, 11)
        // j is text while typing; arrows still move.
        _ = press([.char("j")], &state)
        XCTAssertEqual(state.filter, "ROW 1j")
        _ = press([.backspace, .down, .down], &state)
        XCTAssertEqual(state.selectedRow(in: rows), 11)
        XCTAssertEqual(press([.enter], &state), .filterChanged, "Enter ends typing")
        XCTAssertFalse(state.isEditingFilter)
        XCTAssertEqual(state.filter, "ROW 1", "and keeps the filter")
        XCTAssertEqual(press([.char("j")], &state), .moved, "j moves again")
        XCTAssertEqual(press([.enter], &state), .activated(row: 12))
        XCTAssertEqual(press([.escape], &state), .filterChanged, "Esc clears the filter")
        XCTAssertEqual(state.filter, "")
        XCTAssertEqual(state.selectedRow(in: rows), 12, "the selected row stays selected")
    }

    /// Issue 55: a nested tag lists under its parent in the tag filter.
    func testATagFilterFindsNestedTagsUnderTheirParent() async {
        let tagged = [ListRow(["Alpha"], tags: ["project/alpha"]), ListRow(["Plan"], tags: ["project"]),
                      ListRow(["Deep"], tags: ["project/beta/one"]), ListRow(["Other"], tags: ["projects", "alpha"])]
        var state = ListState()
        func filtered(_ text: String) -> [Int] {
            _ = press([.escape], &state, rows: tagged)
            _ = press([.char("/")] + KeyDecoder.decode(text), &state, rows: tagged)
            return state.visibleIndices(in: tagged)
        }
        XCTAssertEqual(filtered("#project "), [0, 1, 2], "the parent, and the notes tagged under it")
        XCTAssertEqual(filtered("#project/"), [0, 2], "only the nested ones")
        XCTAssertEqual(filtered("#project/beta "), [2])
        XCTAssertEqual(filtered("#project/alpha "), [0])
        XCTAssertEqual(filtered("#alpha "), [3], "a nested tag's last part is no tag of its own")
    }

    func testEscWhileTypingClearsTheFilter() async {
        var state = ListState()
        _ = press(KeyDecoder.decode("/99"), &state)
        XCTAssertEqual(state.selectedRow(in: rows), 99)
        _ = press([.escape], &state)
        XCTAssertEqual(state.filter, "")
        XCTAssertFalse(state.isEditingFilter)
        XCTAssertEqual(state.selectedRow(in: rows), 99)
    }

    func testFilterMatchesUnicodeCaseInsensitively() async {
        let rows = [ListRow(["Grüße.txt"]), ListRow(["GRÜSSE.md"]), ListRow(["你好.txt"])]
        var state = ListState()
        state.filter = "grü"
        XCTAssertEqual(state.visibleIndices(in: rows), [0, 1])
        state.filter = "你"
        XCTAssertEqual(state.visibleIndices(in: rows), [2])
        state.filter = "nothing"
        XCTAssertEqual(state.visibleIndices(in: rows), [])
        XCTAssertNil(state.selectedRow(in: rows))
    }

    func testScrollingKeepsTheSelectionVisible() async {
        var state = ListState()
        state.selected = 50
        state.clamp(count: 100, height: 10)
        XCTAssertEqual(state.offset, 41)
        state.selected = 45
        state.clamp(count: 100, height: 10)
        XCTAssertEqual(state.offset, 41, "no scroll while the selection is on screen")
        state.selected = 30
        state.clamp(count: 100, height: 10)
        XCTAssertEqual(state.offset, 30)
        state.selected = 500
        state.clamp(count: 100, height: 10)
        XCTAssertEqual(state.selected, 99)
        XCTAssertEqual(state.offset, 90)
        state.clamp(count: 0, height: 10)
        XCTAssertEqual(state.selected, 0)
        XCTAssertEqual(state.offset, 0)
    }

    func testRenderingUpdatesPageSizeAndOffset() async {
        var state = ListState()
        state.selected = 60
        let canvas = GridCanvas(width: 40, height: 12)
        ListView(columns: [ListColumn("Name")], rows: rows).render(into: canvas, area: canvas.bounds, state: &state)
        XCTAssertEqual(state.pageSize, 11)
        XCTAssertEqual(state.offset, 50)
        XCTAssertEqual(canvas.line(11).trimmingPrefix(" ").prefix(6), "Row 60")
    }

    func testTenThousandRowsDrawOnlyWhatIsVisible() async {
        let many = (0..<10_000).map { ListRow(["Row \($0)", "\($0) B"]) }
        var state = ListState()
        state.selected = 9_999
        let canvas = GridCanvas(width: 120, height: 40)
        let view = ListView(columns: [ListColumn("Name"), ListColumn("Size", width: .fixed(8), alignment: .right)], rows: many)
        let start = ContinuousClock.now
        for _ in 0..<20 { view.render(into: canvas, area: canvas.bounds, state: &state) }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(2), "20 frames of a 10,000-row list")
        XCTAssertTrue(canvas.line(39).contains("Row 9999"))
    }
}

@MainActor
final class TextInputStateTests: XCTestCase {
    func testInsertAndDeleteByGrapheme() async {
        var state = TextInputState()
        for key in KeyDecoder.decode("héllo 你好🎉") { _ = state.handle(key) }
        XCTAssertEqual(state.text, "héllo 你好🎉")
        XCTAssertEqual(state.cursor, 9)
        XCTAssertEqual(state.handle(.backspace), .edited)
        XCTAssertEqual(state.text, "héllo 你好")
        _ = state.handle(.home)
        _ = state.handle(.right)
        _ = state.handle(.delete)
        XCTAssertEqual(state.text, "hllo 你好")
        _ = state.handle(.char("e"))
        state.insert("\u{301}")  // a combining mark joins the e
        XCTAssertEqual(state.text, "he\u{301}llo 你好")
        XCTAssertEqual(state.cursor, 2)
        _ = state.handle(.backspace)
        XCTAssertEqual(state.text, "hllo 你好", "é goes as one")
        _ = state.handle(.end)
        XCTAssertEqual(state.cursor, 7)
        _ = state.handle(.left)
        _ = state.handle(.ctrl("k"))
        XCTAssertEqual(state.text, "hllo 你")
        _ = state.handle(.ctrl("w"))
        XCTAssertEqual(state.text, "hllo ")
        _ = state.handle(.ctrl("u"))
        XCTAssertEqual(state.text, "")
        XCTAssertEqual(state.cursor, 0)
        XCTAssertEqual(state.handle(.backspace), .moved)
        XCTAssertEqual(state.handle(.enter), .submitted)
        XCTAssertEqual(state.handle(.escape), .cancelled)
        XCTAssertEqual(state.handle(.f(5)), .ignored)
    }

    func testCursorStaysInBounds() async {
        var state = TextInputState(text: "ab")
        _ = state.handle(.right)
        XCTAssertEqual(state.cursor, 2)
        _ = state.handle(.home)
        _ = state.handle(.left)
        XCTAssertEqual(state.cursor, 0)
        state.text = ""
        XCTAssertEqual(state.cursor, 0)
    }

    func testRenderingPlacesTheCursorAfterWideCharacters() async {
        let canvas = GridCanvas(width: 20, height: 1)
        var state = TextInputState(text: "你好")
        TextInput().render(into: canvas, area: canvas.bounds, state: &state)
        XCTAssertEqual(canvas.cursor, Point(x: 4, y: 0))
        state.cursor = 1
        TextInput().render(into: canvas, area: canvas.bounds, state: &state)
        XCTAssertEqual(canvas.cursor, Point(x: 2, y: 0))
    }

    func testLongTextScrollsToTheCursor() async {
        let canvas = GridCanvas(width: 10, height: 1)
        var state = TextInputState(text: String(repeating: "x", count: 30) + "END")
        TextInput().render(into: canvas, area: canvas.bounds, state: &state)
        XCTAssertEqual(canvas.line(0), "xxxxxxEND")
        XCTAssertEqual(canvas.cursor, Point(x: 9, y: 0))
        _ = state.handle(.home)
        TextInput().render(into: canvas, area: canvas.bounds, state: &state)
        XCTAssertEqual(state.scroll, 0)
        XCTAssertEqual(canvas.cursor, Point(x: 0, y: 0))
    }
}

final class ModalStateTests: XCTestCase {
    let buttons = ["Save", "Discard", "Cancel"]

    func testSelectionAndChoice() {
        var state = ModalState()
        XCTAssertEqual(state.handle(.right, buttons: buttons), .moved)
        XCTAssertEqual(state.handle(.tab, buttons: buttons), .moved)
        XCTAssertEqual(state.selected, 2)
        _ = state.handle(.tab, buttons: buttons)
        XCTAssertEqual(state.selected, 0, "wraps around")
        _ = state.handle(.left, buttons: buttons)
        XCTAssertEqual(state.selected, 2)
        _ = state.handle(.backTab, buttons: buttons)
        XCTAssertEqual(state.handle(.enter, buttons: buttons), .chosen(1))
        XCTAssertEqual(state.handle(.char("S"), buttons: buttons), .chosen(0))
        XCTAssertEqual(state.handle(.char("d"), buttons: buttons), .chosen(1))
        XCTAssertEqual(state.handle(.escape, buttons: buttons), .cancelled)
        XCTAssertEqual(state.handle(.char("x"), buttons: buttons), .ignored)
        XCTAssertEqual(state.handle(.enter, buttons: []), .ignored)
    }
}
