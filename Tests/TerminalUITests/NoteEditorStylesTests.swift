import Foundation
import TerminalUI
import TestSupport
import XCTest

/// The editor's per-line style hook: styles land on the right cells (wide characters, tabs and
/// wrapped rows included), overlay in order, and every depth has a syntax style per construct.
@MainActor
final class NoteEditorStylesTests: XCTestCase {
    private func render(_ body: String, width: Int = 40, styles: @escaping @MainActor @Sendable (Int, [Character]) -> [LineStyle]) -> GridCanvas {
        var state = NoteEditorState(title: "t", body: body, isNew: false)
        let canvas = GridCanvas(width: width, height: 8)
        NoteEditor(lineStyles: styles).render(into: canvas, area: canvas.bounds, state: &state)
        return canvas
    }

    /// The body's first row is the third of the editor (title, rule).
    private let bodyRow = 2

    func testAStyleCoversItsClustersOnly() async {
        let bold = Style(attributes: .bold)
        let canvas = render("ab 你好 cd", styles: { line, _ in line == 0 ? [LineStyle(3..<5, bold)] : [] })
        XCTAssertEqual(canvas.line(bodyRow).trimmingCharacters(in: .whitespaces), "ab 你好 cd")
        XCTAssertEqual(canvas.style(x: 2, y: bodyRow), canvas.theme.text, "the space before is plain")
        XCTAssertEqual(canvas.style(x: 3, y: bodyRow), canvas.theme.text.overlaid(with: bold), "你 (two columns) is bold")
        XCTAssertEqual(canvas.style(x: 5, y: bodyRow), canvas.theme.text.overlaid(with: bold), "好 is bold")
        XCTAssertEqual(canvas.style(x: 8, y: bodyRow), canvas.theme.text, "after the wide characters, plain again")
    }

    func testTabsAndWrappedRowsKeepTheirColumns() async {
        let red = Style(foreground: .red)
        // "\tx": the tab takes four columns, so x is at column 4; "yyyy…" wraps at 10 columns.
        let canvas = render("\tx\nyyyyyyyyyyzz", width: 10, styles: { line, chars in
            line == 0 ? [LineStyle(1..<2, red)] : [LineStyle((chars.count - 2)..<chars.count, red)]
        })
        XCTAssertEqual(canvas.style(x: 4, y: bodyRow).foreground, canvas.theme.text.overlaid(with: red).foreground)
        XCTAssertEqual(canvas.style(x: 3, y: bodyRow), canvas.theme.text)
        // Line 1 wraps: its last two clusters "zz" are on the second row.
        XCTAssertEqual(canvas.line(bodyRow + 2).trimmingCharacters(in: .whitespaces), "zz")
        XCTAssertEqual(canvas.style(x: 0, y: bodyRow + 2).foreground, canvas.theme.text.overlaid(with: red).foreground)
        XCTAssertEqual(canvas.style(x: 9, y: bodyRow + 1), canvas.theme.text)
    }

    func testLaterStylesOverlayEarlierOnes() async {
        let heading = Style(foreground: .blue, attributes: .bold)
        let emphasis = Style(attributes: .italic)
        let selection = Style(foreground: .white, background: .blue)
        let canvas = render("# a *b* c", styles: { _, _ in
            [LineStyle(0..<9, heading), LineStyle(4..<7, emphasis), LineStyle(5..<6, selection)]
        })
        let text = canvas.theme.text
        XCTAssertEqual(canvas.style(x: 0, y: bodyRow), text.overlaid(with: heading))
        XCTAssertEqual(canvas.style(x: 4, y: bodyRow), text.overlaid(with: heading).overlaid(with: emphasis), "emphasis keeps the heading's color")
        XCTAssertEqual(canvas.style(x: 5, y: bodyRow), text.overlaid(with: heading).overlaid(with: emphasis).overlaid(with: selection),
                       "the selection wins over syntax")
    }

    func testEveryDepthStylesEveryConstructAndNoColorUsesAttributesOnly() async {
        let constructs: [KeyPath<SyntaxStyles, Style>] = [
            \.heading, \.emphasis, \.strong, \.strikethrough, \.code, \.codeBlock, \.link, \.listMarker, \.taskBox,
            \.blockQuote, \.table, \.tableHeader, \.thematicBreak,
        ]
        for depth in ColorDepth.allCases {
            let syntax = Theme.standard(for: depth).syntax
            for path in constructs where path != \SyntaxStyles.table {
                XCTAssertNotEqual(syntax[keyPath: path], .plain, "\(depth): \(path) has a style")
            }
            if depth == .none {
                for path in constructs {
                    XCTAssertEqual(syntax[keyPath: path].foreground, .default, "NO_COLOR: no color for \(path)")
                    XCTAssertEqual(syntax[keyPath: path].background, .default)
                }
            } else {
                XCTAssertNotEqual(syntax.heading.foreground, .default, "\(depth): headings have a color")
            }
        }
        if case .indexed = Theme.standard(for: .indexed256).syntax.heading.foreground {} else {
            XCTFail("256 colors: the heading's color is a palette index")
        }
    }
}
