import TerminalUI
import TestSupport
import XCTest

/// The editor's key handling (plain values) and its rendering (snapshots).
@MainActor
final class NoteEditorTests: XCTestCase {
    private func send(_ input: String, to state: inout NoteEditorState) -> [NoteEditorOutcome] {
        KeyDecoder.decode(input).map { state.handle($0) }
    }

    private func render(_ state: inout NoteEditorState, editor: NoteEditor = NoteEditor(), width: Int = 40, height: Int = 10) -> GridCanvas {
        let canvas = GridCanvas(width: width, height: height)
        editor.render(into: canvas, area: canvas.bounds, state: &state)
        return canvas
    }

    // MARK: - Keys

    func testNewNoteStartsInTheTitleAndEnterMovesToTheBody() async {
        var state = NoteEditorState(isNew: true)
        XCTAssertEqual(state.focus, .title)
        XCTAssertEqual(send("Hi", to: &state), [.edited, .edited])
        XCTAssertEqual(state.handle(.enter), .moved)
        XCTAssertEqual(state.focus, .body)
        XCTAssertEqual(send("Beat this\r!", to: &state), Array(repeating: .edited, count: 11))
        XCTAssertEqual(state.title.text, "Hi")
        XCTAssertEqual(state.body.text, "Beat this\n!")
        XCTAssertEqual(state.handle(.ctrl("t")), .moved)
        XCTAssertEqual(state.focus, .title)
        XCTAssertEqual(state.handle(.tab), .moved)
        XCTAssertEqual(state.focus, .body)
        _ = state.handle(.ctrl("t"))
        XCTAssertEqual(state.handle(.down), .moved)
        XCTAssertEqual(state.focus, .body)
        XCTAssertTrue(state.isModified)
    }

    func testExistingNoteStartsInTheBody() async {
        let state = NoteEditorState(title: "club-rules.md", body: "Be kind.", isNew: false)
        XCTAssertEqual(state.focus, .body)
        XCTAssertFalse(state.isModified)
    }

    func testSaveAndCloseAreLeftToTheOwner() async {
        var state = NoteEditorState(title: "t", body: "b", isNew: false)
        XCTAssertEqual(state.handle(.ctrl("s")), .save)
        XCTAssertEqual(state.handle(.escape), .close)
        _ = state.handle(.ctrl("t"))
        XCTAssertEqual(state.handle(.ctrl("s")), .save, "in the title too")
        XCTAssertEqual(state.handle(.escape), .close)
        XCTAssertEqual(state.title.text, "t")
        XCTAssertEqual(state.body.text, "b")
        XCTAssertEqual(state.handle(.f(5)), .ignored)
        XCTAssertEqual(NoteEditorOutcome.ignored.eventResult, .ignored)
        XCTAssertEqual(NoteEditorOutcome.save.eventResult, .consumed)
    }

    func testBodyKeys() async {
        var state = NoteEditorState(body: "first line\nsecond", isNew: false)
        XCTAssertEqual(state.handle(.end), .moved)
        XCTAssertEqual(state.body.cursor, .init(line: 0, offset: 10))
        XCTAssertEqual(state.handle(.ctrl("a")), .moved)
        XCTAssertEqual(state.handle(.wordRight), .moved)
        XCTAssertEqual(state.body.cursor.offset, 5)
        XCTAssertEqual(state.handle(.alt("f")), .moved)
        XCTAssertEqual(state.body.cursor.offset, 10)
        XCTAssertEqual(state.handle(.alt("b")), .moved)
        XCTAssertEqual(state.body.cursor.offset, 6)
        XCTAssertEqual(state.handle(.ctrl("k")), .edited)
        XCTAssertEqual(state.body.text, "first \nsecond")
        XCTAssertEqual(state.handle(.ctrl("z")), .edited)
        XCTAssertEqual(state.body.text, "first line\nsecond")
        XCTAssertEqual(state.handle(.ctrl("y")), .edited)
        XCTAssertEqual(state.handle(.ctrl("y")), .moved, "nothing left to redo")
        XCTAssertEqual(state.handle(.documentEnd), .moved)
        XCTAssertEqual(state.handle(.paste("你好\n🎉")), .edited)
        XCTAssertEqual(state.body.text, "first \nsecond你好\n🎉")
        XCTAssertEqual(state.handle(.ctrl("z")), .edited, "a paste is one step")
        XCTAssertEqual(state.body.text, "first \nsecond")
        XCTAssertEqual(state.handle(.tab), .edited)
        XCTAssertEqual(state.body.text, "first \nsecond    ")
        XCTAssertEqual(state.handle(.documentStart), .moved)
        XCTAssertEqual(state.handle(.backspace), .moved, "nothing before the start")
        XCTAssertEqual(state.handle(.delete), .edited)
        XCTAssertEqual(state.body.line(0), "irst ")
    }

    func testPasteIntoTheTitleIsOneLine() async {
        var state = NoteEditorState(isNew: true)
        XCTAssertEqual(state.handle(.paste("two\nlines\n")), .edited)
        XCTAssertEqual(state.title.text, "two lines", "inner breaks become spaces, trailing ones go")
        XCTAssertEqual(state.focus, .title)
    }

    func testReadOnlyRefusesEdits() async {
        var state = NoteEditorState(title: "binary.txt", body: "abc", isNew: true, isReadOnly: true)
        XCTAssertEqual(state.focus, .body, "a read-only note opens in the body")
        XCTAssertEqual(state.handle(.char("x")), .readOnly)
        XCTAssertEqual(state.handle(.enter), .readOnly)
        XCTAssertEqual(state.handle(.backspace), .readOnly)
        XCTAssertEqual(state.handle(.paste("y")), .readOnly)
        XCTAssertEqual(state.handle(.ctrl("z")), .readOnly)
        XCTAssertEqual(state.handle(.right), .moved)
        XCTAssertEqual(state.body.cursor.offset, 1)
        XCTAssertEqual(state.handle(.ctrl("t")), .moved)
        XCTAssertEqual(state.handle(.char("x")), .readOnly, "the title too")
        XCTAssertEqual(state.handle(.left), .moved)
        XCTAssertEqual(state.handle(.ctrl("s")), .readOnly, "never re-saved")
        XCTAssertEqual(state.handle(.escape), .close)
        XCTAssertEqual(state.title.text, "binary.txt")
        XCTAssertEqual(state.body.text, "abc")
        XCTAssertFalse(state.isModified)
    }

    func testModifiedCountsTheTitleAndResetsOnSave() async {
        var state = NoteEditorState(title: "a", body: "b", isNew: false)
        _ = state.handle(.ctrl("t"))
        _ = state.handle(.char("x"))
        XCTAssertTrue(state.isModified)
        _ = state.handle(.backspace)
        XCTAssertFalse(state.isModified, "the title is back to what was opened")
        _ = state.handle(.enter)
        _ = state.handle(.char("y"))
        XCTAssertTrue(state.isModified)
        state.markSaved()
        XCTAssertFalse(state.isModified)
        XCTAssertEqual(state.savedTitle, "a")
    }

    func testCommandsListEveryEditorKeyForHelp() async {
        let commands = NoteEditorState.commands
        XCTAssertTrue(commands.allSatisfy { $0.group == "Editor" })
        let labels = commands.map(\.keyLabel)
        for label in ["Ctrl-S", "Esc", "Ctrl-T", "Enter / Tab / ↓", "Ctrl-Z", "Ctrl-Y", "Ctrl-K", "PgUp", "PgDn",
                      "Home / Ctrl-A", "End / Ctrl-E", "Ctrl-← / Alt-←", "Ctrl-→ / Alt-→", "Ctrl-Home", "Ctrl-End"] {
            XCTAssertTrue(labels.contains(label), "help lists \(label)")
        }
    }

    // MARK: - Rendering

    func testNewNoteWithTitleFocus() async {
        var state = NoteEditorState(isNew: true)
        let canvas = render(&state, height: 6)
        assertSnapshot(canvas, named: "editor-new-40x6")
        XCTAssertEqual(canvas.cursor, Point(x: 7, y: 0), "in the empty title, after the prompt")
        XCTAssertEqual(canvas.style(x: 7, y: 0), canvas.theme.inputPlaceholder)
    }

    func testBodyWithWideCharactersWrapped() async {
        var state = NoteEditorState(
            title: "Challenge for Ray",
            body: "Beat this: 你好, Grüße! 🎉 Then wrap this long line of text 你好你好你好你好你好 at the edge.\n👨‍👩‍👧 family\ne\u{301}nd",
            isNew: false)
        state.body.moveToDocumentEnd()
        let canvas = render(&state, editor: NoteEditor(isModified: true), width: 24, height: 12)
        assertSnapshot(canvas, named: "editor-wrapped-24x12")
        XCTAssertEqual(canvas.line(0).suffix(3), "[+]")
        // The cursor after "énd" on the body's last row.
        let row = (0..<12).last { canvas.line($0).hasPrefix("e\u{301}nd") }
        XCTAssertEqual(canvas.cursor, row.map { Point(x: 3, y: $0) })
        for y in 0..<12 {
            XCTAssertLessThanOrEqual(TextWidth.of(canvas.line(y)), 24, "row \(y) fits")
        }
    }

    func testScrolledBodyKeepsTheCursorOnScreen() async {
        var state = NoteEditorState(title: "long", body: (1...50).map { "line \($0)" }.joined(separator: "\n"), isNew: false)
        for _ in 0..<20 { _ = state.handle(.down) }
        let canvas = render(&state, width: 30, height: 8)
        XCTAssertEqual(canvas.line(7), "line 21")
        XCTAssertEqual(canvas.cursor, Point(x: 0, y: 7))
        _ = state.handle(.pageDown)
        let next = render(&state, width: 30, height: 8)
        XCTAssertEqual(next.line(2), "line 21", "a page is the body height (6) less one, and the view moves with the cursor")
        XCTAssertEqual(next.line(7), "line 26")
        XCTAssertEqual(next.cursor, Point(x: 0, y: 7))
    }

    func testBannerAndModifiedMarker() async {
        var state = NoteEditorState(title: "ideas.txt", body: "Draft text survives.", isNew: false)
        let canvas = render(&state, editor: NoteEditor(isModified: true, banner: "Restored your unsaved draft from 21 Nov 20:56"), width: 40, height: 6)
        assertSnapshot(canvas, named: "editor-banner-40x6")
        XCTAssertEqual(canvas.cursor, Point(x: 0, y: 3), "the body starts under the banner and the rule")
        XCTAssertEqual(canvas.style(x: 0, y: 1), canvas.theme.accent)
    }

    func testReadOnly() async {
        var state = NoteEditorState(title: "blob.txt", body: "caf\u{FFFD} au lait", isNew: false, isReadOnly: true)
        let canvas = render(&state, editor: NoteEditor(banner: "Not valid UTF-8: opened read-only"), width: 40, height: 6)
        assertSnapshot(canvas, named: "editor-readonly-40x6")
        XCTAssertEqual(canvas.style(x: 39, y: 0), canvas.theme.error)
    }

    func testUnfocusedEditorHidesTheCursor() async {
        var state = NoteEditorState(title: "t", body: "b", isNew: false)
        let canvas = render(&state, editor: NoteEditor(isFocused: false))
        XCTAssertNil(canvas.cursor)
    }

    // MARK: - Others' cursors (live notes)

    /// A name tag goes after the text of the caret's row, and, when that row is full, after the
    /// nearest row's that has room: never over text.
    func testANameTagFindsRoomNearItsCaretWhenTheRowIsFull() async {
        let full = String(repeating: "w", count: 38)
        var state = NoteEditorState(title: "t", body: "Agenda\n" + full + "\n" + full, isNew: false)
        func tagRow(_ line: Int, offset: Int) -> Int? {
            var editor = NoteEditor()
            editor.others = [.init(name: "bob", position: TextBuffer.Position(line: line, offset: offset), colour: 0)]
            let canvas = render(&state, editor: editor)
            return (0..<canvas.bounds.height).first { canvas.line($0).contains("◂ bob") }
        }
        // The body starts under the title and its rule (row 2): "Agenda" is row 2, the full rows 3 and 4.
        XCTAssertEqual(tagRow(0, offset: 6), 2, "after the caret's own row when it has room")
        XCTAssertEqual(tagRow(1, offset: 38), 2, "the rows below full too: the row above")
        XCTAssertEqual(tagRow(2, offset: 38), 5, "the last line full: the empty row under the text")
        for y in 3...4 { XCTAssertFalse(render(&state).line(y).contains("◂"), "never over text") }
    }
}
