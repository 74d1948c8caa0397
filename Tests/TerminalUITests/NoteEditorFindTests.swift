import TerminalUI
import TestSupport
import XCTest

/// The editor's selection, clipboard, find bar and list keys, as values and as drawn.
@MainActor
final class NoteEditorFindTests: XCTestCase {
    private func send(_ input: String, to state: inout NoteEditorState) -> [NoteEditorOutcome] {
        KeyDecoder.decode(input).map { state.handle($0) }
    }

    func testShiftArrowsSelectAndCopyCutPaste() async {
        var state = NoteEditorState(title: "t", body: "hello world", isNew: false)
        _ = send("\u{1B}[1;2C\u{1B}[1;2C", to: &state)
        XCTAssertEqual(state.body.selectedText, "he")
        XCTAssertEqual(state.handle(.ctrl("c")), .copied("he"))
        XCTAssertEqual(state.handle(.ctrl("x")), .cut("he"))
        XCTAssertEqual(state.body.text, "llo world")
        state.register = "HE"
        XCTAssertEqual(state.handle(.ctrl("v")), .edited)
        XCTAssertEqual(state.body.text, "HEllo world")
        _ = send("\u{1B}[1;6C", to: &state)  // Ctrl-Shift-→
        XCTAssertEqual(state.body.selectedText, "llo")
        XCTAssertEqual(state.handle(.char("X")), .edited, "typing replaces the selection")
        XCTAssertEqual(state.body.text, "HEX world")
    }

    func testCtrlWAndAltBackspaceDeleteWords() async {
        var state = NoteEditorState(body: "one two three", isNew: false)
        state.body.moveToLineEnd()
        XCTAssertEqual(send("\u{17}", to: &state), [.edited])
        XCTAssertEqual(state.body.text, "one two ")
        XCTAssertEqual(send("\u{1B}\u{7F}", to: &state), [.edited])
        XCTAssertEqual(state.body.text, "one ")
        XCTAssertEqual(state.handle(.ctrl("z")), .edited)
        XCTAssertEqual(state.body.text, "one two three")
        XCTAssertFalse(state.isModified)
    }

    func testFindCountsMatchesStepsAndWidensToEveryNote() async {
        var state = NoteEditorState(body: "Fox one\nfox two\nFOX three", isNew: false)
        XCTAssertEqual(state.handle(.ctrl("f")), .moved)
        _ = send("fox", to: &state)
        XCTAssertEqual(state.bar?.summary, "1/3")
        XCTAssertEqual(state.body.selectedText, "Fox")
        XCTAssertEqual(state.handle(.enter), .moved)
        XCTAssertEqual(state.bar?.summary, "2/3")
        XCTAssertEqual(state.body.cursor, TextBuffer.Position(line: 1, offset: 3))
        XCTAssertEqual(state.handle(.ctrl("p")), .moved)
        XCTAssertEqual(state.handle(.ctrl("p")), .moved)
        XCTAssertEqual(state.bar?.summary, "3/3", "previous wraps")
        XCTAssertEqual(state.handle(.ctrl("f")), .searchEveryNote("fox"))
        XCTAssertNil(state.bar)
        XCTAssertEqual(state.handle(.ctrl("n")), .moved, "Ctrl-N finds the last query again")
        XCTAssertEqual(state.body.selection?.lowerBound, TextBuffer.Position(line: 0, offset: 0))
    }

    func testReplaceOneThenAllThenOneUndo() async {
        var state = NoteEditorState(body: "a cat, a cat, a cat", isNew: false)
        _ = state.handle(.ctrl("\\"))
        _ = send("cat\t", to: &state)
        _ = send("dog", to: &state)
        XCTAssertEqual(state.handle(.enter), .edited)
        XCTAssertEqual(state.body.text, "a dog, a cat, a cat")
        XCTAssertEqual(state.bar?.summary, "1/2")
        XCTAssertEqual(state.handle(.alt("a")), .edited)
        XCTAssertEqual(state.body.text, "a dog, a dog, a dog")
        XCTAssertEqual(state.bar?.note, "Replaced 2")
        XCTAssertEqual(state.handle(.ctrl("z")), .edited)
        XCTAssertEqual(state.body.text, "a dog, a cat, a cat")
    }

    func testGoToLineSaysWhatIsWrong() async {
        var state = NoteEditorState(body: "1\n2\n3\n4", isNew: false)
        _ = state.handle(.ctrl("g"))
        _ = send("9\r", to: &state)
        XCTAssertEqual(state.bar?.note, "No line 9: the note has 4 lines")
        _ = state.handle(.backspace)
        _ = send("3\r", to: &state)
        XCTAssertNil(state.bar)
        XCTAssertEqual(state.body.cursor.line, 2)
    }

    func testFindHighlightsEveryMatchAndTheBarShowsTheCount() async {
        var state = NoteEditorState(body: "ab ab ab", isNew: false)
        _ = state.handle(.ctrl("f"))
        _ = send("ab", to: &state)
        let canvas = GridCanvas(width: 30, height: 6)
        NoteEditor().render(into: canvas, area: canvas.bounds, state: &state)
        XCTAssertTrue(canvas.line(5).hasPrefix("Find: ab"), (0..<6).map(canvas.line).joined(separator: "\n"))
        XCTAssertTrue(canvas.line(5).contains("1/3"))
        let theme = canvas.theme
        XCTAssertEqual(canvas.style(x: 0, y: 2), theme.selection, "the current match is selected")
        XCTAssertEqual(canvas.style(x: 3, y: 2), theme.selectionUnfocused, "another match")
        XCTAssertEqual(canvas.style(x: 2, y: 2), theme.text)
    }

    func testEnterContinuesTheListAndAltXToggles() async {
        var state = NoteEditorState(body: "- [ ] eggs", isNew: false)
        state.body.moveToLineEnd()
        _ = send("\r", to: &state)
        _ = send("ham", to: &state)
        XCTAssertEqual(state.body.text, "- [ ] eggs\n- [ ] ham")
        XCTAssertEqual(send("\u{1B}x", to: &state), [.edited])
        XCTAssertEqual(state.body.text, "- [ ] eggs\n- [x] ham")
        XCTAssertEqual(state.handle(.tab), .edited)
        XCTAssertEqual(state.handle(.backTab), .edited)
        XCTAssertEqual(state.handle(.backTab), .ignored, "not indented: Shift-Tab is the shell's")
    }

    func testADragInTheBodySelects() async {
        var state = NoteEditorState(title: "t", body: "hello world\nsecond line", isNew: false)
        let canvas = GridCanvas(width: 30, height: 8)
        NoteEditor().render(into: canvas, area: canvas.bounds, state: &state)
        let body = state.frames.body
        XCTAssertEqual(state.handle(.mouse(x: body.x + 6, y: body.y)), .moved)
        XCTAssertEqual(state.handle(.pointer(MouseEvent(.drag(.left), x: body.x + 3, y: body.y + 1))), .moved)
        XCTAssertEqual(state.body.selectedText, "world\nsec")
        XCTAssertEqual(state.handle(.backspace), .edited, "Backspace removes the selection")
        XCTAssertEqual(state.body.text, "hello ond line")
    }

    /// The replace bar shows its keys on screen, as nano's and micro's do, and keeps them there
    /// while both fields hold text; each line says what Enter does in the field being typed in.
    func testTheReplaceBarShowsItsKeys() async {
        var state = NoteEditorState(body: "a cat, a cat", isNew: false)
        _ = state.handle(.ctrl("\\"))
        func screen() -> String {
            let canvas = GridCanvas(width: 80, height: 12)
            NoteEditor().render(into: canvas, area: canvas.bounds, state: &state)
            return canvas.dump()
        }
        for words in ["Find:", "Replace with:", "Alt-A all", "Enter one", "Esc close", "Enter next match"] {
            XCTAssertTrue(screen().contains(words), "\(words) in:\n\(screen())")
        }
        for key in KeyDecoder.decode("cat") { _ = state.handle(key) }
        _ = state.handle(.tab)
        for key in KeyDecoder.decode("dog") { _ = state.handle(key) }
        let typed = screen()
        XCTAssertTrue(typed.contains("Replace with: dog"), typed)
        for words in ["Enter one", "Alt-A all", "Esc close"] {
            XCTAssertTrue(typed.contains(words), "\(words), with text in both fields:\n\(typed)")
        }
        XCTAssertFalse(typed.contains("Enter next match"), "in Replace with, Enter replaces one")

        // A short pane keeps the fields and drops the row of keys first.
        let short = GridCanvas(width: 80, height: 6)
        NoteEditor().render(into: short, area: short.bounds, state: &state)
        XCTAssertTrue(short.dump().contains("Replace with: dog"), short.dump())
    }
}
