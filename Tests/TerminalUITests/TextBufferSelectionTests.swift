import TerminalUI
import XCTest

/// The buffer's selection, clipboard text, readline deletes, find/replace and list rules.
final class TextBufferSelectionTests: XCTestCase {
    private typealias P = TextBuffer.Position

    // MARK: - Selection

    func testShiftMovesSelectAndAPlainMoveDropsTheSelection() {
        var buffer = TextBuffer(text: "hello world\nsecond")
        buffer.extendSelection { $0.moveWordRight() }
        XCTAssertEqual(buffer.selectedText, "hello")
        buffer.extendSelection { $0.moveDown() }
        XCTAssertEqual(buffer.selectedText, "hello world\nsecon", "down keeps the column")
        buffer.extendSelection { $0.moveUp() }
        buffer.extendSelection { $0.moveToLineStart() }
        XCTAssertNil(buffer.selection, "the cursor back on the anchor selects nothing")
        buffer.extendSelection { $0.moveToLineEnd() }
        buffer.moveLeft()
        XCTAssertNil(buffer.selection)
    }

    func testReplacingTheSelectionIsOneUndoStep() {
        var buffer = TextBuffer(text: "one two three")
        buffer.moveCursor(to: P(line: 0, offset: 4))
        buffer.extendSelection { $0.moveWordRight() }
        buffer.replace(buffer.selection!, with: "2\nand")
        XCTAssertEqual(buffer.text, "one 2\nand three")
        XCTAssertEqual(buffer.cursor, P(line: 1, offset: 3))
        XCTAssertTrue(buffer.undo())
        XCTAssertEqual(buffer.text, "one two three")
        XCTAssertFalse(buffer.isModified)
    }

    func testCopyAndCutTakeTheLineWhenNothingIsSelected() {
        var buffer = TextBuffer(text: "first\nsecond\nthird")
        buffer.moveDown()
        XCTAssertEqual(buffer.copiedText, "second\n")
        XCTAssertEqual(buffer.cut(), "second\n")
        XCTAssertEqual(buffer.text, "first\nthird")
        buffer.moveToDocumentEnd()
        XCTAssertEqual(buffer.cut(), "third\n")
        XCTAssertEqual(buffer.text, "first")
        buffer.undo()
        buffer.undo()
        XCTAssertEqual(buffer.text, "first\nsecond\nthird")
    }

    // MARK: - Readline deletes

    func testWordDeletesAndARunOfThemIsOneUndoStep() {
        var buffer = TextBuffer(text: "alpha beta, gamma")
        buffer.moveToLineEnd()
        XCTAssertTrue(buffer.deleteWordBackward())
        XCTAssertEqual(buffer.text, "alpha beta, ")
        XCTAssertTrue(buffer.deleteWordBackward())
        XCTAssertEqual(buffer.text, "alpha ")
        buffer.deleteBackward()
        XCTAssertEqual(buffer.text, "alpha")
        XCTAssertTrue(buffer.undo())
        XCTAssertEqual(buffer.text, "alpha beta, gamma", "the run of deletes came back in one step")
        XCTAssertFalse(buffer.canUndo)

        buffer.moveToLineStart()
        XCTAssertTrue(buffer.deleteWordForward())
        XCTAssertEqual(buffer.text, " beta, gamma")
        buffer.moveCursor(to: P(line: 0, offset: 6))
        XCTAssertTrue(buffer.deleteToLineStart())
        XCTAssertEqual(buffer.text, " gamma")
        XCTAssertFalse(buffer.deleteToLineStart(), "nothing before the cursor")
    }

    // MARK: - Find and replace

    func testFindFoldsCaseAndAccentsAsTheClubSearchDoes() {
        let buffer = TextBuffer(text: "Café and CAFE\ncafe\u{301}, cafés")
        let matches = buffer.matches(of: "cafe")
        XCTAssertEqual(matches.map(\.position), [P(line: 0, offset: 0), P(line: 0, offset: 9), P(line: 1, offset: 0), P(line: 1, offset: 6)])
        XCTAssertEqual(matches.map(\.length), [4, 4, 4, 4])
        XCTAssertEqual(buffer.matches(of: "zzz"), [])
        XCTAssertEqual(TextSearch.occurrences(of: "ab", in: "xABab").map(\.offset), [1, 3])
    }

    func testReplaceAllIsOneUndoStep() {
        var buffer = TextBuffer(text: "cat cat\ndog\ncat")
        let count = buffer.replaceAll(buffer.matches(of: "CAT"), with: "lion")
        XCTAssertEqual(count, 3)
        XCTAssertEqual(buffer.text, "lion lion\ndog\nlion")
        XCTAssertTrue(buffer.undo())
        XCTAssertEqual(buffer.text, "cat cat\ndog\ncat")
        XCTAssertFalse(buffer.isModified, "undo back to the saved text is unmodified")
    }

    func testGoToLineClamps() {
        var buffer = TextBuffer(text: "a\nb\nc")
        buffer.goToLine(2)
        XCTAssertEqual(buffer.cursor, P(line: 1, offset: 0))
        buffer.goToLine(99)
        XCTAssertEqual(buffer.cursor.line, 2)
    }

    // MARK: - Lists

    func testEnterContinuesAListAndEndsItOnAnEmptyItem() {
        var buffer = TextBuffer(text: "- milk")
        buffer.moveToLineEnd()
        XCTAssertTrue(buffer.insertNewlineInList())
        XCTAssertEqual(buffer.text, "- milk\n- ")
        XCTAssertTrue(buffer.insertNewlineInList())
        XCTAssertEqual(buffer.text, "- milk\n", "an empty item ends the list")

        var numbered = TextBuffer(text: "  9. nine")
        numbered.moveToLineEnd()
        XCTAssertTrue(numbered.insertNewlineInList())
        XCTAssertEqual(numbered.text, "  9. nine\n  10. ")

        var tasks = TextBuffer(text: "* [x] done")
        tasks.moveToLineEnd()
        XCTAssertTrue(tasks.insertNewlineInList())
        XCTAssertEqual(tasks.text, "* [x] done\n* [ ] ")

        var plain = TextBuffer(text: "-not a list\n---")
        plain.moveToLineEnd()
        XCTAssertFalse(plain.insertNewlineInList())
        plain.moveToDocumentEnd()
        XCTAssertFalse(plain.insertNewlineInList(), "a thematic break is no list")
    }

    func testTabIndentsShiftTabOutdentsAndAltXTogglesTheTask() {
        var buffer = TextBuffer(text: "- [ ] call Ray")
        buffer.moveToLineEnd()
        XCTAssertTrue(buffer.indentListItem())
        XCTAssertEqual(buffer.text, "    - [ ] call Ray")
        XCTAssertEqual(buffer.cursor.offset, 18)
        XCTAssertTrue(buffer.outdentListItem())
        XCTAssertEqual(buffer.text, "- [ ] call Ray")
        XCTAssertFalse(buffer.outdentListItem(), "nothing to outdent")
        XCTAssertTrue(buffer.toggleTask())
        XCTAssertEqual(buffer.text, "- [x] call Ray")
        XCTAssertTrue(buffer.toggleTask())
        XCTAssertEqual(buffer.text, "- [ ] call Ray")

        var bare = TextBuffer(text: "1. item\nprose")
        XCTAssertTrue(bare.toggleTask())
        XCTAssertEqual(bare.text, "1. [ ] item\nprose")
        bare.moveDown()
        XCTAssertFalse(bare.toggleTask())
        XCTAssertFalse(bare.indentListItem())
    }
}
