import TerminalUI
import XCTest

@MainActor
final class CanvasTests: XCTestCase {
    func testWidths() async {
        XCTAssertEqual(TextWidth.of("abc"), 3)
        XCTAssertEqual(TextWidth.of("你好"), 4)
        XCTAssertEqual(TextWidth.of("🎉"), 2)
        XCTAssertEqual(TextWidth.of("e\u{301}"), 1)
        XCTAssertEqual(TextWidth.of("你好 Grüße 🎉"), 13)
        XCTAssertEqual(TextWidth.of("─│╭█░⠋"), 6, "box drawing, blocks and braille are narrow")
        XCTAssertEqual(TextWidth.truncate("你好世界", to: 5), "你好…")
        XCTAssertEqual(TextWidth.truncate("abc", to: 3), "abc")
        XCTAssertEqual(TextWidth.wrap("the quick brown fox", width: 9), ["the quick", "brown fox"])
        XCTAssertEqual(TextWidth.wrap("abcdefghij", width: 4), ["abcd", "efgh", "ij"])
    }

    func testWideCharacterCells() async {
        let canvas = GridCanvas(width: 10, height: 2)
        let end = canvas.put("a你b", at: Point(x: 0, y: 0), style: .plain)
        XCTAssertEqual(end, 4)
        XCTAssertEqual(canvas.cell(x: 1, y: 0).text, "你")
        XCTAssertTrue(canvas.cell(x: 2, y: 0).isContinuation)
        XCTAssertEqual(canvas.line(0), "a你b")
        // Overwriting the second half of a wide character blanks its first half.
        canvas.put("x", at: Point(x: 2, y: 0), style: .plain)
        XCTAssertEqual(canvas.line(0), "a xb")
    }

    func testWideCharacterAtTheRightEdgeIsNotDrawnHalf() async {
        let canvas = GridCanvas(width: 5, height: 1)
        canvas.put("abcd你", at: Point(x: 0, y: 0), style: .plain)
        XCTAssertEqual(canvas.line(0), "abcd")
        XCTAssertEqual(canvas.cell(x: 4, y: 0).text, " ")
        let clip = GridCanvas(width: 10, height: 1)
        clip.put("你好世界", at: Point(x: 0, y: 0), style: .plain, clip: Rect(x: 0, y: 0, width: 5, height: 1))
        XCTAssertEqual(clip.line(0), "你好")
        clip.put("你好", at: Point(x: -1, y: 0), style: .plain)
        XCTAssertEqual(clip.line(0), " 好", "a character cut by the left edge leaves a blank")
    }

    func testClippingAndFill() async {
        let canvas = GridCanvas(width: 6, height: 3)
        canvas.put("hello world", at: Point(x: 2, y: 1), style: .plain)
        XCTAssertEqual(canvas.line(1), "  hell")
        canvas.put("off", at: Point(x: 0, y: 5), style: .plain)
        canvas.put("off", at: Point(x: 0, y: -1), style: .plain)
        let red = Style(foreground: .red)
        canvas.fill(Rect(x: 4, y: 0, width: 10, height: 10), style: red)
        XCTAssertEqual(canvas.line(1), "  he")
        XCTAssertEqual(canvas.style(x: 5, y: 2), red)
        XCTAssertEqual(canvas.style(x: 3, y: 2), .plain)
    }

    func testTinyCanvasesDoNotCrash() async {
        for (w, h) in [(0, 0), (1, 1), (2, 1), (1, 5), (3, 2)] {
            let canvas = GridCanvas(width: w, height: h)
            let compositor = Compositor()
            let screen = Fixture.Screen()
            compositor.push(screen)
            compositor.push(DialogLayer(Modal(title: "T", body: ["b"], buttons: ["OK"], progress: 0.5)) { _ in })
            compositor.minimumSize = .zero
            compositor.render(into: canvas)
            compositor.showHelp()
            compositor.render(into: canvas)
            TabBar(titles: ["Notes", "PanoPhotos"], active: 0).render(into: canvas, area: canvas.bounds)
            StatusBar(backend: "embedded", isBusy: true, message: .error("x")).render(into: canvas, area: canvas.bounds)
            var input = TextInputState(text: "你好")
            TextInput(prompt: "P: ").render(into: canvas, area: canvas.bounds, state: &input)
            TooSmall().render(into: canvas, area: canvas.bounds)
            canvas.drawBox(canvas.bounds, style: .plain, title: "Title")
        }
    }

    func testTabBarHitTesting() async {
        let bar = TabBar(titles: ["Notes", "PanoPhotos"], active: 0)
        let area = Rect(x: 0, y: 0, width: 80, height: 1)
        XCTAssertEqual(bar.hitTest(Point(x: 2, y: 0), in: area), 0)
        XCTAssertEqual(bar.hitTest(Point(x: 10, y: 0), in: area), 1)
        XCTAssertNil(bar.hitTest(Point(x: 40, y: 0), in: area))
        XCTAssertNil(bar.hitTest(Point(x: 2, y: 1), in: area))
    }

    func testColorReduction() async {
        XCTAssertEqual(Color.rgb(255, 0, 0).reduced(to: .indexed256), .indexed(196))
        XCTAssertEqual(Color.rgb(128, 128, 128).reduced(to: .indexed256), .indexed(244))
        XCTAssertEqual(Color.rgb(0, 0, 0).reduced(to: .indexed256), .indexed(16))
        XCTAssertEqual(Color.rgb(220, 20, 30).reduced(to: .ansi8), .red)
        XCTAssertEqual(Color.indexed(12).reduced(to: .ansi8), .blue)
        XCTAssertEqual(Color.rgb(1, 2, 3).reduced(to: .truecolor), .rgb(1, 2, 3))
        XCTAssertNil(Color.red.reduced(to: .none))
        XCTAssertEqual(Color.default.reduced(to: .ansi8), .default)
    }

    func testColorDepthDetection() async {
        XCTAssertEqual(ColorDepth.detect(colors: 1 << 24, noColor: nil), .truecolor)
        XCTAssertEqual(ColorDepth.detect(colors: 256, noColor: nil), .indexed256)
        XCTAssertEqual(ColorDepth.detect(colors: 8, noColor: nil), .ansi8)
        XCTAssertEqual(ColorDepth.detect(colors: 0, noColor: nil), .none)
        XCTAssertEqual(ColorDepth.detect(colors: 256, noColor: "1"), .none, "NO_COLOR")
        XCTAssertEqual(ColorDepth.detect(colors: 256, noColor: ""), .indexed256, "an empty NO_COLOR does not count")
    }

    func testThemesFitTheirDepth() async {
        XCTAssertEqual(Theme.standard(for: .none), .monochrome)
        for depth in ColorDepth.allCases {
            let theme = Theme.standard(for: depth)
            XCTAssertEqual(theme, theme.reduced(to: depth), "\(depth) theme uses only colors the depth has")
            XCTAssertEqual(theme.text.background, .default, "the app sits on the terminal's own background")
        }
        XCTAssertNotEqual(Theme.monochrome.selection, Theme.monochrome.text, "selection shows without color")
    }
}
