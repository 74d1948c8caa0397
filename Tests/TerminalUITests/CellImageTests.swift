import TerminalUI
import XCTest

/// Pictures to cells: exact results from the half-block renderer, robust ones from chafa.
final class CellImageTests: XCTestCase {
    typealias RGB = (UInt8, UInt8, UInt8)

    /// An RGB image from rows of pixels.
    static func image(_ rows: [[RGB]]) -> PixelImage {
        PixelImage(width: rows[0].count, height: rows.count, bytes: rows.flatMap { $0.flatMap { [$0.0, $0.1, $0.2] } })
    }

    /// A `width × height` image whose pixels come from `color(x, y)`.
    static func image(width: Int, height: Int, _ color: (Int, Int) -> RGB) -> PixelImage {
        image((0..<height).map { y in (0..<width).map { x in color(x, y) } })
    }

    static let red: RGB = (255, 0, 0), blue: RGB = (0, 0, 255)

    // MARK: Half-block renderer

    func testHalfBlockStripesInTruecolorAreExact() {
        // Rows alternate between two colors: every cell shows the first above the second.
        let a: RGB = (201, 33, 47), b: RGB = (18, 44, 213)
        let image = Self.image([[a, a], [b, b], [a, a], [b, b]])
        let cells = CellImage.render(image, columns: 2, rows: 2, depth: .truecolor, renderer: .halfBlock)
        XCTAssertEqual(cells.size, Size(width: 2, height: 2))
        for cell in cells.cells {
            XCTAssertEqual(cell, CellImage.Cell(symbol: "▀", foreground: .rgb(201, 33, 47), background: .rgb(18, 44, 213)))
        }
    }

    func testHalfBlockTopAndBottomHalves() {
        // 4×4 pixels, red above blue, in a 4×1 area: fitted to 2×1 cells of 2×2 pixels each.
        let image = Self.image(width: 4, height: 4) { _, y in y < 2 ? Self.red : Self.blue }
        let truecolor = CellImage.render(image, columns: 4, rows: 1, depth: .truecolor, renderer: .halfBlock)
        XCTAssertEqual(truecolor, CellImage(width: 2, height: 1, cells: Array(repeating: .init(symbol: "▀", foreground: .rgb(255, 0, 0), background: .rgb(0, 0, 255)), count: 2)))

        // 256 colors: the cube's pure red (16 + 36·5) and pure blue (16 + 5).
        let indexed = CellImage.render(image, columns: 4, rows: 1, depth: .indexed256, renderer: .halfBlock)
        XCTAssertEqual(indexed.cells, Array(repeating: .init(symbol: "▀", foreground: .indexed(196), background: .indexed(21)), count: 2))
    }

    func testHalfBlockIndexedPicksNearestPaletteEntries() {
        // A mid gray lands on the gray ramp (242 is 8 + 10·10 = 108), an orange in the cube.
        let image = Self.image([[(108, 108, 108)], [(255, 135, 0)]])
        let cells = CellImage.render(image, columns: 1, rows: 1, depth: .indexed256, renderer: .halfBlock)
        XCTAssertEqual(cells[0, 0], CellImage.Cell(symbol: "▀", foreground: .indexed(242), background: .indexed(16 + 36 * 5 + 6 * 2)))
    }

    func testGrayscaleFallbackUsesShadesByLuminance() {
        // Columns: black, dark gray, mid gray, light gray, white (both pixels of each cell alike).
        let levels: [UInt8] = [0, 64, 128, 192, 255]
        let image = Self.image(width: 5, height: 2) { x, _ in (levels[x], levels[x], levels[x]) }
        let ansi = CellImage.render(image, columns: 5, rows: 1, depth: .ansi8, renderer: .halfBlock)
        XCTAssertEqual(ansi.cells.map { String($0.symbol) }.joined(), " ░▒▓█")
        XCTAssertTrue(ansi.cells.allSatisfy { $0.foreground == .white && $0.background == .black }, "8 colors: white ink on black")

        let none = CellImage.render(image, columns: 5, rows: 1, depth: .none, renderer: .halfBlock)
        XCTAssertEqual(none.cells.map { String($0.symbol) }.joined(), " ░▒▓█")
        XCTAssertTrue(none.cells.allSatisfy { $0.style == .plain }, "no color: the terminal's own colors")

        // Pure red is dark (luminance 54 of 255) and blue darker (19): together the faintest shade.
        let redOverBlue = CellImage.render(Self.image([[Self.red], [Self.blue]]), columns: 1, rows: 1, depth: .ansi8, renderer: .halfBlock)
        XCTAssertEqual(redOverBlue[0, 0].symbol, "░")
    }

    func testDownscaleAveragesWholeBlocksExactly() {
        // 4×4 gray pixels into 2×1 cells: each output pixel is the mean of a 2×2 block.
        let values: [[UInt8]] = [
            [10, 30, 100, 200],
            [50, 70, 0, 40],
            [1, 2, 3, 4],
            [5, 8, 250, 251],
        ]
        let image = Self.image(values.map { $0.map { ($0, $0, 255 - $0) } })
        let cells = CellImage.render(image, columns: 2, rows: 1, depth: .truecolor, renderer: .halfBlock)
        XCTAssertEqual(cells.size, Size(width: 2, height: 1))
        // (10+30+50+70)/4 = 40, (100+200+0+40)/4 = 85, (1+2+5+8)/4 = 4, (3+4+250+251)/4 = 127
        XCTAssertEqual(cells[0, 0].foreground, .rgb(40, 40, 215))
        XCTAssertEqual(cells[1, 0].foreground, .rgb(85, 85, 170))
        XCTAssertEqual(cells[0, 0].background, .rgb(4, 4, 251))
        XCTAssertEqual(cells[1, 0].background, .rgb(127, 127, 128))
    }

    func testDownscaleWeighsPartlyCoveredPixels() {
        // 3 pixels into 2: each output covers one whole pixel and half of the middle one.
        let image = Self.image([[(30, 0, 0), (60, 0, 0), (90, 0, 0)], [(0, 30, 0), (0, 60, 0), (0, 90, 0)]])
        let cells = CellImage.render(image, columns: 2, rows: 1, depth: .truecolor, renderer: .halfBlock)
        XCTAssertEqual(cells.size, Size(width: 2, height: 1))
        // (30 + 60/2) / 1.5 = 40 and (60/2 + 90) / 1.5 = 80
        XCTAssertEqual(cells[0, 0].foreground, .rgb(40, 0, 0))
        XCTAssertEqual(cells[1, 0].foreground, .rgb(80, 0, 0))
        XCTAssertEqual(cells[0, 0].background, .rgb(0, 40, 0))
        XCTAssertEqual(cells[1, 0].background, .rgb(0, 80, 0))
    }

    func testRowStrideAndAlphaAreHonoured() {
        // Two pixels a row, RGBA, rows padded with junk; the alpha of 0 is ignored.
        let bytes: [UInt8] = [
            255, 0, 0, 0, 0, 255, 0, 255, 9, 9, 9,
            0, 0, 255, 255, 255, 255, 255, 0, 9, 9, 9,
        ]
        let image = PixelImage(width: 2, height: 2, format: .rgba, rowStride: 11, bytes: bytes)
        XCTAssertEqual(image.pixel(x: 1, y: 1).r, 255)
        for renderer in CellImage.Renderer.allCases {
            let cells = CellImage.render(image, columns: 2, rows: 1, depth: .truecolor, renderer: renderer)
            XCTAssertEqual(cells.size, Size(width: 2, height: 1), "\(renderer)")
            if renderer == .halfBlock {
                XCTAssertEqual(cells.cells, [
                    .init(symbol: "▀", foreground: .rgb(255, 0, 0), background: .rgb(0, 0, 255)),
                    .init(symbol: "▀", foreground: .rgb(0, 255, 0), background: .rgb(255, 255, 255)),
                ])
            }
            XCTAssertFalse(cells.cells.contains { $0.foreground == .default || $0.background == .default }, "\(renderer): nothing is transparent")
        }
    }

    // MARK: Fitting

    func testFitKeepsTheAspectRatio() {
        // Cells hold two square pixels stacked, so a 4×4 area is 4×8 pixels.
        XCTAssertEqual(CellImage.size(ofImageWidth: 8, height: 2, columns: 4, rows: 4), Size(width: 4, height: 1))
        XCTAssertEqual(CellImage.size(ofImageWidth: 2, height: 8, columns: 4, rows: 4), Size(width: 2, height: 4))
        XCTAssertEqual(CellImage.size(ofImageWidth: 256, height: 64, columns: 32, rows: 8), Size(width: 32, height: 4))
        XCTAssertEqual(CellImage.size(ofImageWidth: 640, height: 480, columns: 16, rows: 8), Size(width: 16, height: 6))
        XCTAssertEqual(CellImage.size(ofImageWidth: 1, height: 1000, columns: 16, rows: 8), Size(width: 1, height: 8), "never narrower than a cell")
        XCTAssertEqual(CellImage.size(ofImageWidth: 8, height: 2, columns: 4, rows: 4, fit: .fill), Size(width: 4, height: 4))
        XCTAssertEqual(CellImage.size(ofImageWidth: 8, height: 2, columns: 0, rows: 4), .zero)
    }

    func testFillCropsTheMiddle() {
        // 64×16 pixels into 2×1 cells (2×2 pixels of 8×8): the middle 16 columns are shown.
        let image = Self.image(width: 64, height: 16) { x, _ in (24..<32).contains(x) ? Self.red : (32..<40).contains(x) ? (0, 255, 0) : (0, 0, 0) }
        let cells = CellImage.render(image, columns: 2, rows: 1, depth: .truecolor, fit: .fill, renderer: .halfBlock)
        XCTAssertEqual(cells.cells, [
            .init(symbol: "▀", foreground: .rgb(255, 0, 0), background: .rgb(255, 0, 0)),
            .init(symbol: "▀", foreground: .rgb(0, 255, 0), background: .rgb(0, 255, 0)),
        ])
        let chafa = CellImage.render(image, columns: 2, rows: 1, depth: .truecolor, fit: .fill, renderer: .chafa)
        assertVisibleColors(chafa[0, 0], near: Self.red, tolerance: 2, "left cell")
        assertVisibleColors(chafa[1, 0], near: (0, 255, 0), tolerance: 2, "right cell")
    }

    @MainActor
    func testDrawCenteredPutsStyledCellsOnTheCanvas() {
        // A wide picture in a 6×4 area: 6×1 cells, one row down (the 3 spare rows split 1 above, 2 below).
        let image = Self.image(width: 12, height: 2) { x, _ in x < 6 ? Self.red : Self.blue }
        let cells = CellImage.render(image, columns: 6, rows: 4, depth: .truecolor, renderer: .halfBlock)
        XCTAssertEqual(cells.size, Size(width: 6, height: 1))

        let canvas = GridCanvas(width: 10, height: 6)
        cells.draw(into: canvas, centeredIn: Rect(x: 2, y: 1, width: 6, height: 4))
        XCTAssertEqual(canvas.dump(), "\n\n  ▀▀▀▀▀▀\n\n\n")
        XCTAssertEqual(canvas.style(x: 2, y: 2), Style(foreground: .rgb(255, 0, 0), background: .rgb(255, 0, 0)))
        XCTAssertEqual(canvas.style(x: 7, y: 2), Style(foreground: .rgb(0, 0, 255), background: .rgb(0, 0, 255)))
        XCTAssertEqual(canvas.style(x: 1, y: 2), .plain, "nothing outside the picture")
        XCTAssertEqual(canvas.style(x: 8, y: 2), .plain)

        // A tall picture is centered across: 2×4 cells in a 6-wide area start 2 columns in.
        let tall = CellImage.render(Self.image(width: 2, height: 8) { _, _ in Self.blue }, columns: 6, rows: 4, depth: .indexed256, renderer: .halfBlock)
        let canvas2 = GridCanvas(width: 6, height: 4)
        tall.draw(into: canvas2, centeredIn: canvas2.bounds)
        XCTAssertEqual(canvas2.dump(), "  ▀▀\n  ▀▀\n  ▀▀\n  ▀▀")
        XCTAssertEqual(canvas2.style(x: 3, y: 3), Style(foreground: .indexed(21), background: .indexed(21)))
    }

    @MainActor
    func testDrawClipsToTheRectAndTheCanvas() {
        let cells = CellImage(width: 3, height: 2, cells: (0..<6).map { i in
            CellImage.Cell(symbol: "▀", foreground: .indexed(UInt8(16 + i)), background: .indexed(UInt8(100 + i)))
        })
        let canvas = GridCanvas(width: 4, height: 3)
        cells.draw(into: canvas, at: Point(x: -1, y: 2))
        XCTAssertEqual(canvas.dump(), "\n\n▀▀", "only the top row's last two cells fit")
        XCTAssertEqual(canvas.style(x: 0, y: 2), Style(foreground: .indexed(17), background: .indexed(101)))
        XCTAssertEqual(canvas.style(x: 1, y: 2), Style(foreground: .indexed(18), background: .indexed(102)))

        let clipped = GridCanvas(width: 4, height: 3)
        cells.draw(into: clipped, at: Point(x: 0, y: 0), clip: Rect(x: 1, y: 1, width: 5, height: 5))
        XCTAssertEqual(clipped.dump(), "\n ▀▀\n")
        XCTAssertEqual(clipped.style(x: 1, y: 1), Style(foreground: .indexed(20), background: .indexed(104)))
    }

    // MARK: Chafa

    /// The colors covering most of a cell: the foreground if its symbol covers more than half,
    /// the background if less, both if exactly half.
    func visibleColors(_ cell: CellImage.Cell) -> [Color] {
        let eighths: Int
        switch cell.symbol.value {
        case 0x20: eighths = 0
        case 0x2588: eighths = 8
        case 0x2580, 0x2584, 0x258C, 0x2590: eighths = 4  // ▀ ▄ ▌ ▐
        case 0x2581...0x2587: eighths = Int(cell.symbol.value - 0x2580)  // ▁ … ▇, lower k eighths
        case 0x2589...0x258F: eighths = Int(0x2590 - cell.symbol.value)  // ▉ … ▏, left k eighths
        case 0x2594, 0x2595: eighths = 1  // ▔ ▕
        default:
            XCTFail("\(cell.symbol) is not a block symbol")
            return [cell.foreground, cell.background]
        }
        return eighths > 4 ? [cell.foreground] : eighths < 4 ? [cell.background] : [cell.foreground, cell.background]
    }

    /// The RGB a color stands for (xterm's palette for indexed colors).
    func rgb(_ color: Color) -> RGB? {
        switch color {
        case .rgb(let r, let g, let b): return (r, g, b)
        case .indexed(let i) where i >= 232: let v = UInt8(8 + 10 * (Int(i) - 232)); return (v, v, v)
        case .indexed(let i) where i >= 16:
            let levels: [UInt8] = [0, 95, 135, 175, 215, 255], c = Int(i) - 16
            return (levels[c / 36], levels[c / 6 % 6], levels[c % 6])
        default: return nil
        }
    }

    func assertVisibleColors(_ cell: CellImage.Cell, near expected: RGB, tolerance: Int = 12, _ message: String, line: UInt = #line) {
        for color in visibleColors(cell) {
            guard let got = rgb(color) else { return XCTFail("\(message): \(color) is not a picture color", line: line) }
            let off = max(abs(Int(got.0) - Int(expected.0)), abs(Int(got.1) - Int(expected.1)), abs(Int(got.2) - Int(expected.2)))
            XCTAssertLessThanOrEqual(off, tolerance, "\(message): \(cell) shows \(got), expected about \(expected)", line: line)
        }
    }

    func testChafaSolidColor() {
        let color: RGB = (120, 200, 60)
        let image = Self.image(width: 32, height: 32) { _, _ in color }
        let truecolor = CellImage.render(image, columns: 8, rows: 4, depth: .truecolor, renderer: .chafa)
        XCTAssertEqual(truecolor.size, Size(width: 8, height: 4))
        for (i, cell) in truecolor.cells.enumerated() { assertVisibleColors(cell, near: color, tolerance: 2, "cell \(i)") }

        // 256 colors: the nearest of chafa's 240 (the cube's (135, 215, 95) here), within a cube step.
        let indexed = CellImage.render(image, columns: 8, rows: 4, depth: .indexed256, renderer: .chafa)
        for (i, cell) in indexed.cells.enumerated() {
            assertVisibleColors(cell, near: color, tolerance: 40, "cell \(i)")
            for visible in visibleColors(cell) {
                guard case .indexed(let n) = visible else { return XCTFail("cell \(i): \(visible) is not indexed") }
                XCTAssertGreaterThanOrEqual(n, 16, "never a theme-dependent system color")
            }
        }
    }

    func testChafaTwoColorHalves() {
        // Left half red, right half blue, on whole cells: each cell shows mostly its side's color
        // (chafa may blend a sliver at the edge).
        let image = Self.image(width: 128, height: 128) { x, _ in x < 64 ? Self.red : Self.blue }
        let cells = CellImage.render(image, columns: 8, rows: 4, depth: .truecolor, renderer: .chafa)
        for y in 0..<4 {
            for x in 0..<8 { assertVisibleColors(cells[x, y], near: x < 4 ? Self.red : Self.blue, tolerance: 2, "cell (\(x), \(y))") }
        }
    }

    func testChafaSplitsACellIntoHalves() {
        // Each cell's upper half green, lower half magenta: a half block in those two colors.
        let green: RGB = (0, 200, 0), magenta: RGB = (200, 0, 200)
        let image = Self.image(width: 16, height: 32) { _, y in y % 8 < 4 ? green : magenta }
        let cells = CellImage.render(image, columns: 4, rows: 4, depth: .truecolor, renderer: .chafa)
        XCTAssertEqual(cells.size, Size(width: 4, height: 4))
        for (i, cell) in cells.cells.enumerated() {
            switch cell.symbol {
            case "▀":
                assertVisibleColors(CellImage.Cell(symbol: "█", foreground: cell.foreground, background: .default), near: green, tolerance: 2, "cell \(i) top")
                assertVisibleColors(CellImage.Cell(symbol: " ", foreground: .default, background: cell.background), near: magenta, tolerance: 2, "cell \(i) bottom")
            case "▄":
                assertVisibleColors(CellImage.Cell(symbol: " ", foreground: .default, background: cell.background), near: green, tolerance: 2, "cell \(i) top")
                assertVisibleColors(CellImage.Cell(symbol: "█", foreground: cell.foreground, background: .default), near: magenta, tolerance: 2, "cell \(i) bottom")
            default:
                XCTFail("cell \(i): \(cell.symbol) is not a half block")
            }
        }
    }

    func testChafaGrayscale() {
        let white = CellImage.render(Self.image(width: 16, height: 16) { _, _ in (255, 255, 255) }, columns: 4, rows: 2, depth: .ansi8, renderer: .chafa)
        let black = CellImage.render(Self.image(width: 16, height: 16) { _, _ in (0, 0, 0) }, columns: 4, rows: 2, depth: .ansi8, renderer: .chafa)
        XCTAssertEqual(Set(white.cells.map(\.symbol)), ["█"])
        XCTAssertEqual(Set(black.cells.map(\.symbol)), [" "])
        XCTAssertTrue(white.cells.allSatisfy { $0.foreground == .white && $0.background == .black })
        let none = CellImage.render(Self.image(width: 16, height: 16) { _, _ in (255, 255, 255) }, columns: 4, rows: 2, depth: .none, renderer: .chafa)
        XCTAssertTrue(none.cells.allSatisfy { $0.symbol == "█" && $0.style == .plain })
    }

    func testBothRenderersGiveTheSameSize() {
        let image = Self.image(width: 40, height: 30) { x, y in (UInt8(x * 6), UInt8(y * 8), 128) }
        for depth in ColorDepth.allCases {
            for fit in [CellImage.Fit.fit, .fill] {
                let sizes = CellImage.Renderer.allCases.map { CellImage.render(image, columns: 16, rows: 8, depth: depth, fit: fit, renderer: $0).size }
                XCTAssertEqual(sizes, Array(repeating: fit == .fit ? Size(width: 16, height: 6) : Size(width: 16, height: 8), count: 2), "\(depth) \(fit)")
            }
        }
    }
}
