@testable import ByteClubApp
import Markdown
import TerminalUI
import XCTest

/// A big note in the rendered view: the first frame is a window laid out at once, from a line
/// that starts a block (never inside fenced code), and the whole layout made off the UI queue
/// replaces it.
@MainActor
final class NoteViewLayoutsTests: XCTestCase {
    private func lines(_ text: String) -> LineStore {
        LineStore(text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0) })
    }

    func testAWindowStartsAtABlankLineOutsideCode() {
        let text = lines("intro\n\npara\n\n```\ncode\n\nmore code\n```\nafter\n\nlast\nx\nx\nx\nx\nx\nx\nx\nx")
        // Five lines of context above line 11 reach into the fence (line 6, blank, is code): the
        // window starts after the blank line before the fence, at its opening line.
        XCTAssertEqual(NoteViewLayouts.windowStart(text, before: 11), 4)
        XCTAssertEqual(NoteViewLayouts.windowStart(text, before: 16), 11)
        XCTAssertEqual(NoteViewLayouts.windowStart(text, before: 2), 0)
    }

    func testABigNoteShowsAWindowFirstThenTheWholeNote() async {
        let section = "## Part\n\nSome *words* here.\n\n```\nlet x = 1\n\nlet y = 2\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
        let text = lines(String(repeating: section, count: 250))
        XCTAssertGreaterThan(text.count, NoteViewLayouts.synchronousLineLimit)
        let layouts = NoteViewLayouts()
        let ready = expectation(description: "the whole layout")
        layouts.onReady = { ready.fulfill() }
        let first = layouts.layout(key: "k1", lines: text, startLine: 1_000, rows: 30, width: 80, options: RenderOptions())
        XCTAssertTrue(first.isWindow)
        let firstSource = try? XCTUnwrap(first.note.lines.first?.sourceLine)
        XCTAssertLessThanOrEqual(firstSource ?? .max, 995)
        XCTAssertTrue(first.note.lines.contains { $0.sourceLine >= 1_000 }, "the window reaches the start line")
        XCTAssertLessThan(first.note.lines.count, 2_000)
        await fulfillment(of: [ready], timeout: 30)
        let whole = layouts.layout(key: "k1", lines: text, startLine: 1_000, rows: 30, width: 80, options: RenderOptions())
        XCTAssertFalse(whole.isWindow)
        XCTAssertEqual(whole.note.plainText, RenderedNote.layout(NoteViewLayouts.join(text[...]), width: 80).plainText)
        // The window's rows are the whole layout's rows from the same source line on.
        let start = first.note.lines[0].sourceLine
        let offset = try? XCTUnwrap(whole.note.lines.firstIndex { $0.sourceLine >= start })
        XCTAssertEqual(whole.note.lines[(offset ?? 0)..<((offset ?? 0) + 20)].map(\.text), first.note.lines[0..<20].map(\.text))
    }
}
