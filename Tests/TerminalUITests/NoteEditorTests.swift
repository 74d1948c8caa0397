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

    /// Where another member's caret (its colour, `colour` 0) and name tag are drawn: their rows,
    /// the tag's column, and the width of the text on the caret's row.
    private func placed(_ canvas: GridCanvas, tag: String = "◂ bob") -> (caret: Point?, tag: Point?, textEnd: Int) {
        var caret: Point?
        for y in 0..<canvas.bounds.height {
            if let x = (0..<canvas.bounds.width).first(where: { canvas.style(x: $0, y: y).background == .magenta }) { caret = Point(x: x, y: y) }
        }
        let found = canvas.position(of: tag)
        let row = found.map { canvas.line($0.y) } ?? ""
        let text = row.range(of: tag).map { String(row[..<$0.lowerBound]) } ?? row
        return (caret, found, TextWidth.of(text.replacingOccurrences(of: " +$", with: "", options: .regularExpression)))
    }

    /// A name tag is on its caret's row, after the row's text and never over it: a full row too,
    /// as soft-wrapped text keeps room at its right for the tags while others are in the note.
    func testANameTagIsOnItsCaretsRowAfterTheTextEvenWhenTheLineIsFull() async {
        let full = String(repeating: "w", count: 38)
        var state = NoteEditorState(title: "t", body: "Agenda\n" + full + "\n" + full, isNew: false)
        for (line, offset) in [(0, 6), (0, 0), (1, 38), (1, 10), (1, 0), (2, 38), (2, 20)] {
            var editor = NoteEditor()
            editor.others = [.init(name: "bob", position: TextBuffer.Position(line: line, offset: offset), colour: 0)]
            let canvas = render(&state, editor: editor)
            let (caret, tag, textEnd) = placed(canvas)
            XCTAssertNotNil(tag, "\(line):\(offset) has its tag:\n\(canvas.dump())")
            XCTAssertEqual(tag?.y, caret?.y, "\(line):\(offset): the tag on the caret's row:\n\(canvas.dump())")
            XCTAssertGreaterThan(tag?.x ?? 0, max(textEnd, caret?.x ?? 0), "\(line):\(offset): after the text and the caret, never over them")
        }
        // The room kept is the tag's: the full lines wrap short of it, and every word is shown.
        var editor = NoteEditor()
        editor.others = [.init(name: "bob", position: TextBuffer.Position(line: 1, offset: 38), colour: 0)]
        let canvas = render(&state, editor: editor)
        XCTAssertEqual((0..<10).map { canvas.line($0).filter { $0 == "w" }.count }.reduce(0, +), 76, canvas.dump())
        XCTAssertEqual(canvas.line(3), String(repeating: "w", count: 34))
        // Alone in the note, the text takes the whole width again.
        XCTAssertEqual(render(&state).line(3), full)
    }

    /// Issue 68 (9): on a soft-wrapped line, a member's name tag was drawn a row above their
    /// caret (after the nearest row with room: a wrapped row seldom has any), and deep in a
    /// paragraph, where no row near had room, not at all (issue 70). Every place in a paragraph
    /// wrapped over seven rows puts the tag on the caret's row, after the row's text.
    func testOnASoftWrappedLineTheNameTagIsOnTheRowOfItsCaret() async {
        let paragraph = String(repeating: "The quick brown fox jumps over the lazy dog and then some more words follow. ", count: 3)
        var state = NoteEditorState(title: "t", body: "Agenda\n" + paragraph + "\nnext", isNew: false)
        for name in ["bob", "Alice Liddell the second"] {
            let tag = "◂ " + TextWidth.truncate(name, to: NoteEditor.tagNameWidth)
            for offset in 0...paragraph.count {
                var editor = NoteEditor()
                editor.others = [.init(name: name, position: TextBuffer.Position(line: 1, offset: offset), colour: 0)]
                let canvas = render(&state, editor: editor, width: 40, height: 16)
                let (caret, found, textEnd) = placed(canvas, tag: tag)
                XCTAssertGreaterThanOrEqual(state.body.wrappedRows(ofLine: 1).count, 7, "the paragraph wraps")
                XCTAssertNotNil(caret, "offset \(offset): the caret is drawn")
                XCTAssertNotNil(found, "offset \(offset): the tag is drawn:\n\(canvas.dump())")
                XCTAssertEqual(found?.y, caret?.y, "offset \(offset): the tag on the caret's row:\n\(canvas.dump())")
                XCTAssertGreaterThan(found?.x ?? 0, max(textEnd, caret?.x ?? 0), "offset \(offset): after the text:\n\(canvas.dump())")
            }
        }
    }

    /// Unwrapped, a row may run past the view: its tag is drawn only where it fits after the
    /// row's text, and never on another row.
    func testUnwrappedATagIsOnItsCaretsRowOrNotDrawn() async {
        var state = NoteEditorState(title: "t", body: "Agenda\n" + String(repeating: "w", count: 60) + "\nshort", isNew: false)
        for (line, offset, shown) in [(1, 5, false), (2, 5, true), (0, 3, true)] {
            var editor = NoteEditor()
            editor.softWrap = false
            editor.others = [.init(name: "bob", position: TextBuffer.Position(line: line, offset: offset), colour: 0)]
            let canvas = render(&state, editor: editor)
            let (caret, tag, _) = placed(canvas)
            XCTAssertEqual(tag != nil, shown, "\(line):\(offset):\n\(canvas.dump())")
            if shown { XCTAssertEqual(tag?.y, caret?.y) }
        }
    }
}
