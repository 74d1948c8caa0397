import TerminalUI
import TestSupport
import XCTest

final class TextBufferTests: XCTestCase {
    private typealias P = TextBuffer.Position

    /// Byte-exact text, since `String ==` treats "é" and "e\u{301}" as equal.
    private func assertBytes(_ buffer: TextBuffer, _ expected: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Array(buffer.text.utf8), Array(expected.utf8), "got \(buffer.text.debugDescription)", file: file, line: line)
    }

    private func type(_ text: String, into buffer: inout TextBuffer) {
        for c in text {
            if c == "\n" { buffer.insertNewline() } else { buffer.insert(String(c)) }
        }
    }

    // MARK: - Graphemes and widths

    /// A text's lines are its clusters whatever its bytes: ASCII lines take a way of their own
    /// (a byte a character), the rest the general one; CR LF across a line's end, an accent
    /// that combines, an emoji sequence and CJK come out as Swift breaks them.
    func testATextsLinesAreItsClustersWhateverItsBytes() {
        let texts = ["", "\n", "\n\n", "plain", "a line\r\nthe next\r\n", "e\u{301}t\u{E9}\nna\u{EF}ve",
                     "\u{1F469}\u{200D}\u{1F4BB} code\n\u{4E2D}\u{6587} text\n", "tab\tand ~ del\u{7F}\n\r", String(repeating: "x", count: 5_000)]
        for text in texts {
            let buffer = TextBuffer(text: text)
            // Split at each "\n" byte (a CR LF's "\n" too, which Swift's characters would not split at).
            let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(Substring($0)) }
            XCTAssertEqual(buffer.text, text)
            XCTAssertEqual(buffer.lineCount, lines.count, text.debugDescription)
            XCTAssertEqual(buffer.utf16Count, text.utf16.count, text.debugDescription)
            for (index, line) in lines.enumerated() {
                XCTAssertEqual(buffer.lineLength(index), Array(line).count, "line \(index) of \(text.debugDescription)")
                XCTAssertEqual(buffer.line(index), line)
            }
        }
    }

    func testDeleteRemovesWholeGraphemeClusters() {
        var buffer = TextBuffer(text: "cafe\u{301}👨‍👩‍👧🇺🇸x")
        XCTAssertEqual(buffer.lineLength(0), 7, "c a f é family flag x")
        buffer.moveToLineEnd()
        XCTAssertTrue(buffer.deleteBackward())
        assertBytes(buffer, "cafe\u{301}👨‍👩‍👧🇺🇸")
        buffer.deleteBackward()
        assertBytes(buffer, "cafe\u{301}👨‍👩‍👧")
        buffer.deleteBackward()
        assertBytes(buffer, "cafe\u{301}")
        buffer.deleteBackward()
        assertBytes(buffer, "caf")
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 3))

        var flags = TextBuffer(text: "🇺🇸🇫🇷")
        XCTAssertTrue(flags.deleteForward())
        assertBytes(flags, "🇫🇷")
    }

    func testMovesStepOverClusters() {
        var buffer = TextBuffer(text: "e\u{301}👨‍👩‍👧🇺🇸")
        buffer.moveRight()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 1))
        buffer.moveRight()
        buffer.moveRight()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 3))
        buffer.moveRight()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 3), "the end of the text")
        buffer.insert("!")
        assertBytes(buffer, "e\u{301}👨‍👩‍👧🇺🇸!")
    }

    func testTypedCombiningMarkJoinsThePreviousCharacter() {
        var buffer = TextBuffer(text: "")
        buffer.insert("e")
        buffer.insert("\u{301}")
        XCTAssertEqual(buffer.lineLength(0), 1)
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 1))
        buffer.insert("x")
        assertBytes(buffer, "e\u{301}x")
        buffer.moveLeft()
        buffer.deleteBackward()
        assertBytes(buffer, "x")
    }

    func testCursorColumnsCountWideCharacters() {
        var buffer = TextBuffer(text: "a你好b🎉c")
        buffer.setViewport(width: 80, height: 5)
        var columns: [Int] = []
        for _ in 0..<6 {
            columns.append(buffer.cursorPlacement().column)
            buffer.moveRight()
        }
        columns.append(buffer.cursorPlacement().column)
        XCTAssertEqual(columns, [0, 1, 3, 5, 6, 8, 9])
        XCTAssertEqual(buffer.cursorInView(), Point(x: 9, y: 0))
    }

    // MARK: - Soft wrap

    func testWrapsAtSpacesAndHardBreaksLongWords() {
        var buffer = TextBuffer(text: "hello world again\nabcdefghijklmnopq\nabcdefghijklmno\n\tindented")
        buffer.setViewport(width: 10, height: 5)
        XCTAssertEqual(buffer.wrappedRows(ofLine: 0), ["hello ", "world ", "again"])
        XCTAssertEqual(buffer.wrappedRows(ofLine: 1), ["abcdefghij", "klmnopq"])
        XCTAssertEqual(buffer.wrappedRows(ofLine: 2), ["abcdefghij", "klmno"])
        XCTAssertEqual(buffer.wrappedRows(ofLine: 3), ["\t", "indented"], "a tab takes 4 columns and may end a row")
        XCTAssertEqual(buffer.visibleRows().map(\.text).prefix(1), ["hello "])
    }

    func testFullLastRowGetsAnEmptyRowForTheCursor() {
        var buffer = TextBuffer(text: "abcdefghij")
        buffer.setViewport(width: 5, height: 5)
        XCTAssertEqual(buffer.wrappedRows(ofLine: 0), ["abcde", "fghij", ""])
        buffer.moveToLineEnd()
        XCTAssertEqual(buffer.cursorInView(), Point(x: 0, y: 2))
        buffer.moveLeft()
        XCTAssertEqual(buffer.cursorInView(), Point(x: 4, y: 1))
    }

    func testWideCharacterNeverStraddlesTheEdge() {
        var buffer = TextBuffer(text: "abcd你好世界")
        buffer.setViewport(width: 5, height: 5)
        XCTAssertEqual(buffer.wrappedRows(ofLine: 0), ["abcd", "你好", "世界"])
        buffer.moveCursor(to: P(line: 0, offset: 4))
        XCTAssertEqual(buffer.cursorInView(), Point(x: 0, y: 1), "the cursor before 你 is at the start of its row")
        buffer.moveCursor(to: P(line: 0, offset: 5))
        XCTAssertEqual(buffer.cursorInView(), Point(x: 2, y: 1))

        var narrow = TextBuffer(text: "你好")
        narrow.setViewport(width: 1, height: 5)
        XCTAssertEqual(narrow.wrappedRows(ofLine: 0), ["你", "好", ""], "too wide for the view: one per row")
    }

    func testWidthChangeRewraps() {
        var buffer = TextBuffer(text: "one two three four")
        buffer.setViewport(width: 8, height: 5)
        XCTAssertEqual(buffer.wrappedRows(ofLine: 0), ["one two ", "three ", "four"])
        buffer.setViewport(width: 40, height: 5)
        XCTAssertEqual(buffer.wrappedRows(ofLine: 0), ["one two three four"])
    }

    // MARK: - Vertical moves

    func testUpAndDownByVisualRowKeepThePreferredColumn() {
        var buffer = TextBuffer(text: "hello world again\nxy\nlong line here")
        buffer.setViewport(width: 10, height: 10)
        buffer.moveCursor(to: P(line: 0, offset: 4))  // hell|o
        buffer.moveDown()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 10), "worl|d, the second row of the line")
        buffer.moveDown()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 16), "agai|n")
        buffer.moveDown()
        XCTAssertEqual(buffer.cursor, P(line: 1, offset: 2), "the end of the short line")
        buffer.moveDown()
        XCTAssertEqual(buffer.cursor, P(line: 2, offset: 4), "back at column 4")
        buffer.moveUp()
        buffer.moveUp()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 16))

        // Column 9 in "world " (a row that wraps) stops before the row's last cluster.
        buffer.moveCursor(to: P(line: 2, offset: 9))
        buffer.moveUp()
        XCTAssertEqual(buffer.cursor, P(line: 1, offset: 2))
        buffer.moveUp()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 17), "the end of \"again\", the line's last row")
        XCTAssertEqual(buffer.cursorPlacement().row, TextBuffer.Row(line: 0, row: 2))
        buffer.moveUp()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 11), "world| (before the trailing space)")
    }

    func testVerticalMovesOverWideCharacters() {
        var buffer = TextBuffer(text: "abc\n你好世界")
        buffer.setViewport(width: 20, height: 5)
        buffer.moveCursor(to: P(line: 0, offset: 3))  // column 3
        buffer.moveDown()
        XCTAssertEqual(buffer.cursor, P(line: 1, offset: 1), "column 3 is inside 好: stop before it")
        buffer.moveDown()
        XCTAssertEqual(buffer.cursor, P(line: 1, offset: 4), "down on the last row goes to the end")
        buffer.moveUp()
        buffer.moveUp()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 0), "up on the first row goes to the start")
    }

    func testWordMoves() {
        var buffer = TextBuffer(text: "foo bar_baz, qux\n  next")
        buffer.moveWordRight()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 3))
        buffer.moveWordRight()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 11), "_ is part of a word")
        buffer.moveWordRight()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 16))
        buffer.moveWordRight()
        XCTAssertEqual(buffer.cursor, P(line: 1, offset: 6), "across the line end")
        buffer.moveWordLeft()
        XCTAssertEqual(buffer.cursor, P(line: 1, offset: 2))
        buffer.moveWordLeft()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 13))
        buffer.moveToDocumentEnd()
        XCTAssertEqual(buffer.cursor, P(line: 1, offset: 6))
        buffer.moveToDocumentStart()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 0))
        buffer.moveWordLeft()
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 0))
    }

    // MARK: - Scrolling

    func testScrollingKeepsTheCursorVisible() {
        var buffer = TextBuffer(text: (0..<100).map { "line \($0)" }.joined(separator: "\n"))
        buffer.setViewport(width: 20, height: 5)
        for _ in 0..<10 { buffer.moveDown() }
        XCTAssertEqual(buffer.cursor.line, 10)
        XCTAssertEqual(buffer.scroll, TextBuffer.Row(line: 6, row: 0))
        XCTAssertEqual(buffer.cursorInView(), Point(x: 0, y: 4))
        for _ in 0..<5 { buffer.moveUp() }
        XCTAssertEqual(buffer.scroll, TextBuffer.Row(line: 5, row: 0))
        XCTAssertEqual(buffer.cursorInView(), Point(x: 0, y: 0))
        buffer.pageDown()
        XCTAssertEqual(buffer.cursor.line, 9, "a page is the height less one row")
        XCTAssertEqual(buffer.scroll.line, 9, "the view scrolls with it")
        buffer.moveToDocumentEnd()
        XCTAssertEqual(buffer.scroll, TextBuffer.Row(line: 95, row: 0))
        XCTAssertEqual(buffer.visibleRows().map(\.text), ["line 95", "line 96", "line 97", "line 98", "line 99"])
        buffer.pageUp()
        XCTAssertEqual(buffer.cursor, P(line: 95, offset: 7))
        XCTAssertEqual(buffer.scroll.line, 91)
    }

    func testScrollAnchorIsAWrappedRow() {
        var buffer = TextBuffer(text: String(repeating: "word ", count: 20) + "end\nlast")
        buffer.setViewport(width: 10, height: 3)
        XCTAssertEqual(buffer.wrappedRows(ofLine: 0).count, 11)
        buffer.moveToDocumentEnd()
        XCTAssertEqual(buffer.scroll, TextBuffer.Row(line: 0, row: 9))
        XCTAssertEqual(buffer.visibleRows().map(\.text), ["word word ", "end", "last"])
        XCTAssertEqual(buffer.cursorInView(), Point(x: 4, y: 2))
        // Joining the last line leaves one row fewer below the view's top: it moves up to stay full.
        buffer.moveToLineStart()
        buffer.deleteBackward()
        XCTAssertEqual(buffer.lineCount, 1)
        XCTAssertEqual(buffer.scroll, TextBuffer.Row(line: 0, row: 8))
        XCTAssertEqual(buffer.visibleRows().map(\.text), ["word word ", "word word ", "endlast"])
        XCTAssertEqual(buffer.cursorInView(), Point(x: 3, y: 2))
    }

    func testManyRandomMovesNeverLoseTheCursor() {
        var buffer = TextBuffer(text: (0..<300).map { i in String(repeating: "ab 你好 ", count: i % 9) }.joined(separator: "\n"))
        buffer.setViewport(width: 13, height: 7)
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<2_000 {
            switch Int.random(in: 0..<8, using: &generator) {
            case 0: buffer.moveUp()
            case 1: buffer.moveDown()
            case 2: buffer.pageDown()
            case 3: buffer.pageUp()
            case 4: buffer.moveLeft()
            case 5: buffer.moveRight()
            case 6: buffer.insert("x")
            default: buffer.deleteBackward()
            }
            guard let point = buffer.cursorInView() else { return XCTFail("cursor \(buffer.cursor) out of view at \(buffer.scroll)") }
            XCTAssertTrue((0..<7).contains(point.y) && (0..<13).contains(point.x), "\(point)")
        }
    }

    // MARK: - Undo

    func testTypingIsUndoneAWordAtATime() {
        var buffer = TextBuffer()
        type("hello world", into: &buffer)
        XCTAssertTrue(buffer.undo())
        assertBytes(buffer, "hello ")
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 6))
        XCTAssertTrue(buffer.undo())
        assertBytes(buffer, "")
        XCTAssertFalse(buffer.undo())
        XCTAssertTrue(buffer.redo())
        assertBytes(buffer, "hello ")
        XCTAssertTrue(buffer.redo())
        assertBytes(buffer, "hello world")
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 11))
        XCTAssertFalse(buffer.redo())
    }

    func testNewlinesMovesAndDeletesStartNewSteps() {
        var buffer = TextBuffer()
        type("ab\ncd", into: &buffer)
        buffer.undo()
        assertBytes(buffer, "ab\n")
        buffer.undo()
        assertBytes(buffer, "ab")
        buffer.undo()
        assertBytes(buffer, "")

        type("abc", into: &buffer)
        buffer.moveLeft()
        buffer.moveRight()
        type("d", into: &buffer)
        buffer.undo()
        assertBytes(buffer, "abc")

        type("d", into: &buffer)
        buffer.deleteBackward()
        buffer.deleteBackward()
        buffer.deleteBackward()
        assertBytes(buffer, "a")
        buffer.undo()
        assertBytes(buffer, "abcd")
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 4), "undo puts the cursor back")
        buffer.undo()
        assertBytes(buffer, "abc")
    }

    func testRedoIsClearedByANewEdit() {
        var buffer = TextBuffer()
        type("hello world", into: &buffer)
        buffer.undo()
        XCTAssertTrue(buffer.canRedo)
        buffer.insert("X")
        XCTAssertFalse(buffer.canRedo)
        XCTAssertFalse(buffer.redo())
        assertBytes(buffer, "hello X")
    }

    func testPasteIsOneUndoStep() {
        var buffer = TextBuffer(text: "start end")
        buffer.moveCursor(to: P(line: 0, offset: 6))
        buffer.insert("one\ntwo\nthree ")
        assertBytes(buffer, "start one\ntwo\nthree end")
        XCTAssertEqual(buffer.cursor, P(line: 2, offset: 6))
        buffer.insert("x")
        buffer.undo()
        buffer.undo()
        assertBytes(buffer, "start end")
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 6))
        buffer.redo()
        assertBytes(buffer, "start one\ntwo\nthree end")
        XCTAssertEqual(buffer.cursor, P(line: 2, offset: 6))
    }

    func testKillToEndOfLine() {
        var buffer = TextBuffer(text: "abc\ndef")
        buffer.moveCursor(to: P(line: 0, offset: 1))
        XCTAssertTrue(buffer.killToEndOfLine())
        assertBytes(buffer, "a\ndef")
        XCTAssertTrue(buffer.killToEndOfLine())
        assertBytes(buffer, "adef")
        XCTAssertTrue(buffer.killToEndOfLine())
        assertBytes(buffer, "a")
        XCTAssertFalse(buffer.killToEndOfLine())
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 1))
        buffer.undo()
        buffer.undo()
        buffer.undo()
        assertBytes(buffer, "abc\ndef")
    }

    func testJoiningLinesWithBackspaceAndDelete() {
        var buffer = TextBuffer(text: "ab\ncd")
        buffer.moveCursor(to: P(line: 1, offset: 0))
        buffer.deleteBackward()
        assertBytes(buffer, "abcd")
        XCTAssertEqual(buffer.cursor, P(line: 0, offset: 2))
        buffer.insertNewline()
        buffer.moveLeft()
        buffer.deleteForward()
        assertBytes(buffer, "abcd")
        XCTAssertFalse(TextBuffer(text: "").deleteBackwardCopy())
    }

    func testModifiedRelativeToTheSavedState() {
        var buffer = TextBuffer(text: "note")
        XCTAssertFalse(buffer.isModified)
        buffer.moveToLineEnd()
        type("s", into: &buffer)
        XCTAssertTrue(buffer.isModified)
        buffer.undo()
        XCTAssertFalse(buffer.isModified, "undone back to what was opened")
        type("ab", into: &buffer)
        buffer.markSaved()
        XCTAssertFalse(buffer.isModified)
        type("c", into: &buffer)
        XCTAssertTrue(buffer.isModified)
        buffer.undo()
        assertBytes(buffer, "noteab")
        XCTAssertFalse(buffer.isModified, "saving ends the typing run, so undo returns to the saved text")
        buffer.undo()
        XCTAssertTrue(buffer.isModified)
    }

    // MARK: - Large notes

    func testOneMebibyteNoteOfTwentyThousandLines() {
        let lines = (0..<20_000).map { i in "\(i): Grüße 你好 🎉 the quick brown fox jumps over" }
        let text = lines.joined(separator: "\n")
        XCTAssertGreaterThan(text.utf8.count, 1 << 20)
        var buffer = TextBuffer(text: text)
        XCTAssertEqual(buffer.lineCount, 20_000)
        assertBytes(buffer, text)

        buffer.setViewport(width: 120, height: 34)
        buffer.moveCursor(to: P(line: 10_000, offset: 7))
        buffer.insert("X")
        buffer.insertNewline()
        var expected = lines
        var line = Array(expected[10_000])
        line.insert("X", at: 7)
        expected[10_000] = String(line[..<8])
        expected.insert(String(line[8...]), at: 10_001)
        assertBytes(buffer, expected.joined(separator: "\n"))
        XCTAssertEqual(buffer.cursor, P(line: 10_001, offset: 0))
        XCTAssertNotNil(buffer.cursorInView())
        buffer.undo()
        buffer.undo()
        assertBytes(buffer, text)
        buffer.moveToDocumentEnd()
        XCTAssertEqual(buffer.scroll.line, 20_000 - 34)

        // The same megabyte pasted into an empty note, as one undo step.
        var pasted = TextBuffer()
        pasted.setViewport(width: 120, height: 34)
        pasted.insert(text)
        assertBytes(pasted, text)
        XCTAssertEqual(pasted.cursor, P(line: 19_999, offset: lines[19_999].count))
        XCTAssertNotNil(pasted.cursorInView())
        pasted.undo()
        assertBytes(pasted, "")
    }

    func testTextRoundTripsExactly() {
        for text in ["", "\n", "a\r\nb\r\n", "trailing\n\n", "e\u{301}\n\u{301}lone mark", "\t tab\u{7}bell"] {
            assertBytes(TextBuffer(text: text), text)
        }
        XCTAssertEqual(TextBuffer(text: "a\r\nb\r\n").lineCount, 3, "lines end at LF; the CR stays in its line")
        XCTAssertEqual(TextBuffer(text: "x"), TextBuffer(text: "x"))
    }
}

private extension TextBuffer {
    func deleteBackwardCopy() -> Bool {
        var copy = self
        return copy.deleteBackward()
    }
}
