import Markdown
import XCTest

/// Each construct's span, checked as the text it covers on its line (so a wrong column shows
/// as the wrong text, not as a number).
final class MarkdownSpansTests: XCTestCase {
    /// The texts `element` covers in `source`, as (line, text).
    private func covered(_ element: MarkdownElement, in source: String) -> [(Int, String)] {
        let lines = source.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.utf8) }
        return MarkdownParser.highlights(of: source).all.filter { $0.element == element }.map { span in
            (span.line, String(decoding: lines[span.line][span.bytes], as: UTF8.self))
        }
    }

    private func assertCovered(_ element: MarkdownElement, in source: String, _ expected: [(Int, String)], file: StaticString = #filePath, line: UInt = #line) {
        let got = covered(element, in: source)
        XCTAssertEqual(got.map(\.0), expected.map(\.0), "lines of \(element)", file: file, line: line)
        XCTAssertEqual(got.map(\.1), expected.map(\.1), "texts of \(element)", file: file, line: line)
    }

    func testHeadingsATXAndSetext() {
        let source = "# Title\n\ntext\n\nSub\n---\n\n  ### Deep #"
        assertCovered(.heading, in: source, [(0, "# Title"), (4, "Sub"), (5, "---"), (7, "### Deep #")])
    }

    func testEmphasisStrongAndStrikethrough() {
        let source = "a *em* b **strong** c ~~gone~~ _u_"
        assertCovered(.emphasis, in: source, [(0, "*em*"), (0, "_u_")])
        assertCovered(.strong, in: source, [(0, "**strong**")])
        assertCovered(.strikethrough, in: source, [(0, "~~gone~~")])
    }

    func testEmphasisInsideAHeadingComesAfterTheHeading() {
        let spans = MarkdownParser.highlights(of: "## A *b*").spans(ofLine: 0)
        XCTAssertEqual(spans.map(\.element), [.heading, .emphasis], "outer first, so the inner style is drawn over it")
    }

    func testEmphasisAcrossLines() {
        assertCovered(.emphasis, in: "one *two\nthree* four", [(0, "*two"), (1, "three*")])
    }

    func testInlineCodeAndFencedAndIndentedBlocks() {
        let source = "use `let x` here\n\n```swift\nlet y = 2\n```\n\n    indented\n"
        assertCovered(.code, in: source, [(0, "`let x`")])
        assertCovered(.codeBlock, in: source, [(2, "```swift"), (3, "let y = 2"), (4, "```"), (6, "indented")])
    }

    func testCodeBlockHidesWhatWouldBeMarkdown() {
        let source = "```\n# not a heading\n*not em*\n```"
        XCTAssertTrue(covered(.heading, in: source).isEmpty)
        XCTAssertTrue(covered(.emphasis, in: source).isEmpty)
        XCTAssertEqual(covered(.codeBlock, in: source).count, 4)
    }

    func testLinksAutolinksAndImages() {
        let source = "see [the site](http://a.example) or <http://b.example>\nbare https://c.example/x and ![pic](p.jpg)"
        assertCovered(.link, in: source, [
            (0, "[the site](http://a.example)"), (0, "<http://b.example>"),
            (1, "https://c.example/x"), (1, "![pic](p.jpg)"),
        ])
    }

    func testListMarkersAndTaskBoxes() {
        let source = "- one\n* two\n\n1. first\n2) second\n\n- [ ] todo\n- [x] done\n  + nested"
        assertCovered(.listMarker, in: source, [(0, "-"), (1, "*"), (3, "1."), (4, "2)"), (6, "-"), (7, "-"), (8, "+")])
        assertCovered(.taskBox, in: source, [(6, "[ ]"), (7, "[x]")])
    }

    func testBlockQuote() {
        assertCovered(.blockQuote, in: "> quoted\n> more\n\nafter", [(0, "> quoted"), (1, "> more")])
    }

    func testTableAndItsHeader() {
        let source = "| a | b |\n|---|---|\n| 1 | 2 |"
        assertCovered(.table, in: source, [(0, "| a | b |"), (1, "|---|---|"), (2, "| 1 | 2 |")])
        assertCovered(.tableHeader, in: source, [(0, "| a | b |")])
    }

    func testThematicBreaks() {
        assertCovered(.thematicBreak, in: "a\n\n---\n\n***\n\n_ _ _", [(2, "---"), (4, "***"), (6, "_ _ _")])
    }

    func testColumnsAreBytesOfUTF8() {
        // "Grüße" and "你好" take more bytes than characters: the span must still cover the emphasis.
        assertCovered(.emphasis, in: "Grüße 你好 *wörld*", [(0, "*wörld*")])
    }

    func testPlainTextAndEmptyTextHaveNoSpans() {
        XCTAssertTrue(MarkdownParser.highlights(of: "just words, no markup").all.isEmpty)
        XCTAssertTrue(MarkdownParser.highlights(of: "").all.isEmpty)
        XCTAssertEqual(MarkdownParser.highlights(of: "a\nb\n").lines.count, 3)
    }
}
