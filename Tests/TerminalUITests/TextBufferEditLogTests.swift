import TestSupport
import XCTest
@testable import TerminalUI

/// The editor's record of its own edits (TextBuffer+EditLog.swift): a live note's document takes
/// each key's change from it, so the record must turn the text before into the text after,
/// exactly, for every kind of edit, and place an ambiguous insert where it was typed.
final class TextBufferEditLogTests: XCTestCase {
    /// Applies the edits `buffer` made since `count` to `before`.
    private func replayed(_ buffer: TextBuffer, since count: Int, onto before: String, file: StaticString = #filePath, line: UInt = #line) -> String? {
        guard let edits = buffer.edits(since: count) else {
            XCTFail("the log no longer holds edit \(count) (at \(buffer.editCount))", file: file, line: line)
            return nil
        }
        return TextEdit.applying(edits, to: before)
    }

    func testEachKindOfEditReplaysOntoTheTextBefore() {
        var buffer = TextBuffer(text: "# Plan\n\nfirst line\nsecond line\nlast")
        buffer.moveCursor(to: .init(line: 2, offset: 5))
        let steps: [(String, (inout TextBuffer) -> Void)] = [
            ("type", { $0.insert("X") }),
            ("newline", { $0.insertNewline() }),
            ("paste of lines", { $0.insert("one\ntwo\nthree") }),
            ("backspace", { _ = $0.deleteBackward() }),
            ("backspace at a line start", { $0.moveToLineStart(); _ = $0.deleteBackward() }),
            ("delete at a line end", { $0.moveToLineEnd(); _ = $0.deleteForward() }),
            ("kill to the line end", { $0.moveToLineStart(); _ = $0.killToEndOfLine() }),
            ("cut a line", { $0.moveToDocumentStart(); _ = $0.cut() }),
            ("cut the last line", { $0.moveToDocumentEnd(); _ = $0.cut() }),
            ("undo", { _ = $0.undo() }),
            ("redo", { _ = $0.redo() }),
            ("replace a selection", { $0.select(from: .init(line: 0, offset: 0), to: .init(line: 1, offset: 2)); $0.replace($0.selection!, with: "é\nß") }),
            ("a merge's text", { $0.replaceText(with: "# Plan\nmerged\n" + $0.text + "\ntheirs") }),
            ("another member's edit", { $0.applyShared(3..<5, with: "ray\n") }),
            ("emoji", { $0.moveToDocumentEnd(); $0.insert("👩‍👩‍👧"); $0.insert("🇫🇷") }),
            ("combining mark joins a cluster", { $0.insert("e"); $0.insert("\u{301}") }),
            ("a list item", { $0.insert("\n- item"); _ = $0.insertNewlineInList() }),
            ("delete a word", { _ = $0.deleteWordBackward() }),
        ]
        for (name, step) in steps {
            let before = buffer.text, count = buffer.editCount
            step(&buffer)
            XCTAssertEqual(replayed(buffer, since: count, onto: before), buffer.text, name)
            XCTAssertEqual(buffer.utf16Count, buffer.text.utf16.count, name)
        }
    }

    /// Thousands of edits drawn from seeds, replayed in runs of up to the log's length.
    func testGeneratedEditsReplayExactly() {
        let alphabet = ["a", "b", " ", "\n", "é", "e\u{301}", "😀", "\u{301}", "\r", "x\ny", "- ", "\t"]
        for seed in 1...20 {
            var random = SeededGenerator(seed: UInt64(seed))
            var buffer = TextBuffer(text: seed.isMultiple(of: 2) ? "" : "start\nof the\n\ntext")
            for _ in 0..<40 {
                let before = buffer.text, count = buffer.editCount
                for _ in 0..<Int.random(in: 1...20, using: &random) {
                    switch Int.random(in: 0..<14, using: &random) {
                    case 0...4: buffer.insert(alphabet.randomElement(using: &random)!)
                    case 5: _ = buffer.deleteBackward()
                    case 6: _ = buffer.deleteForward()
                    case 7: _ = buffer.undo()
                    case 8: _ = buffer.redo()
                    case 9: _ = buffer.cut()
                    case 10:
                        // Another member's edit, at cluster boundaries (as their editor makes them).
                        let total = buffer.utf16Count
                        let one = Int.random(in: 0...total, using: &random), other = Int.random(in: 0...total, using: &random)
                        let low = buffer.utf16Offset(of: buffer.position(ofUTF16: min(one, other)))
                        let high = buffer.utf16Offset(of: buffer.position(ofUTF16: max(one, other)))
                        buffer.applyShared(low..<high, with: alphabet.randomElement(using: &random)!)
                    case 11: buffer.moveCursor(to: buffer.position(ofUTF16: Int.random(in: 0...buffer.utf16Count, using: &random)))
                    case 12: _ = buffer.insertNewlineInList()
                    default: _ = buffer.killToEndOfLine()
                    }
                }
                XCTAssertEqual(replayed(buffer, since: count, onto: before), buffer.text, "seed \(seed)")
                XCTAssertEqual(buffer.utf16Count, buffer.text.utf16.count, "seed \(seed)")
            }
        }
    }

    /// "a" typed between the two "a"s of "aa" is an insert at 1, not at 2: the texts read the
    /// same, but another member's insert at 2 would land on the other side of it.
    func testAnAmbiguousInsertIsPlacedWhereItWasTyped() {
        var buffer = TextBuffer(text: "aa")
        buffer.moveCursor(to: .init(line: 0, offset: 1))
        buffer.insert("a")
        XCTAssertEqual(buffer.edits(since: 0).map(Array.init), [TextEdit(range: 1..<1, text: "a")])
        buffer.moveCursor(to: .init(line: 0, offset: 1))
        _ = buffer.deleteForward()
        XCTAssertEqual(buffer.edits(since: 1)?.first?.range, 1..<2)
    }

    /// 😀 and 😁 share their first UTF-16 unit: the edit replaces the whole pair, never half
    /// of one (half a pair does not survive as a String).
    func testAnEmojiReplacedByAnotherIsReplacedWhole() {
        var buffer = TextBuffer(text: "a😀b")
        buffer.select(from: .init(line: 0, offset: 1), to: .init(line: 0, offset: 2))
        buffer.replace(buffer.selection!, with: "😁")
        XCTAssertEqual(buffer.edits(since: 0).map(Array.init), [TextEdit(range: 1..<3, text: "😁")])
    }

    /// A typed run joins the editor's undo step, and says so; a word after a space begins one.
    func testATypedRunContinuesItsStep() {
        var buffer = TextBuffer()
        for character in "ab c" { buffer.insert(String(character)) }
        XCTAssertEqual(buffer.edits(since: 0)?.map(\.continuesStep), [false, true, true, false])
    }

    /// A reader that fell behind further than the log keeps is told so (it then compares texts).
    func testAReaderTooFarBehindIsToldSo() {
        var buffer = TextBuffer()
        for _ in 0..<(TextBuffer.editLogLimit + 1) { buffer.insert("a") }
        XCTAssertNil(buffer.edits(since: 0))
        XCTAssertEqual(buffer.edits(since: 1)?.count, TextBuffer.editLogLimit)
        XCTAssertNil(buffer.edits(since: buffer.editCount + 1))
        XCTAssertNotEqual(TextBuffer(text: "a").lineage, TextBuffer(text: "a").lineage)
    }
}
