/// A picture drawn as terminal cells: a grid of symbols, each with a foreground and background.
///
/// Made from decoded pixels by ``render(_:columns:rows:depth:fit:renderer:)``, a pure function
/// that may run off the main actor (render a thumbnail once, keep the value, draw it each frame
/// with ``draw(into:at:clip:)``). Cells are assumed to be twice as tall as they are wide, so a
/// cell holds two square pixels stacked vertically.
public struct CellImage: Hashable, Sendable {
    /// One cell of the picture.
    public struct Cell: Hashable, Sendable {
        /// A narrow symbol: `▀` or another block element, a shade, or a space.
        public var symbol: Unicode.Scalar
        public var foreground: Color
        public var background: Color

        public init(symbol: Unicode.Scalar, foreground: Color, background: Color) {
            self.symbol = symbol
            self.foreground = foreground
            self.background = background
        }

        /// The style the cell is drawn in.
        public var style: Style { Style(foreground: foreground, background: background) }
    }

    /// How an image is shaped to the cells it is given.
    public enum Fit: Sendable, Hashable {
        /// The whole image, aspect ratio kept, as large as fits; the result may be smaller than
        /// the area on one side (draw it with ``CellImage/draw(into:centeredIn:)`` to center it).
        case fit
        /// The whole area, aspect ratio kept, cropping the image's overflow equally on both sides.
        case fill
    }

    /// Which code turns pixels into cells.
    public enum Renderer: String, Sendable, Hashable, CaseIterable {
        /// libchafa, choosing each cell's symbol (space, full, half, eighth or quadrant block) and colors.
        case chafa
        /// Our own: every cell is `▀`, foreground the upper pixel and background the lower.
        case halfBlock
    }

    public let width: Int
    public let height: Int
    /// Row by row, `width × height` of them.
    public let cells: [Cell]

    /// A grid of `width × height` cells, given row by row.
    public init(width: Int, height: Int, cells: [Cell]) {
        precondition(width >= 0 && height >= 0 && cells.count == width * height, "\(cells.count) cells for \(width)×\(height)")
        self.width = width
        self.height = height
        self.cells = cells
    }

    public var size: Size { Size(width: width, height: height) }

    /// The cell at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> Cell {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "cell (\(x), \(y)) is outside \(width)×\(height)")
        return cells[y * width + x]
    }

    /// `pixels` drawn in at most `columns × rows` cells for a terminal of `depth`.
    ///
    /// - truecolor: `.rgb` colors; 256 colors: `.indexed` (the 240 colors that no terminal theme
    ///   changes); 8 colors or none: a grayscale picture in shade symbols (` ░▒▓█`), light on dark,
    ///   in white on black for 8 colors and in the default colors without color.
    /// - `renderer` picks the back end; chafa falls back to the half-block renderer if it cannot
    ///   make a canvas. The size follows from `fit` and is the same for both back ends.
    public static func render(
        _ pixels: PixelImage, columns: Int, rows: Int, depth: ColorDepth, fit: Fit = .fit, renderer: Renderer = .chafa
    ) -> CellImage {
        guard columns > 0, rows > 0 else { return CellImage(width: 0, height: 0, cells: []) }
        let layout = Layout(imageWidth: pixels.width, imageHeight: pixels.height, columns: columns, rows: rows, fit: fit)
        switch renderer {
        case .chafa:
            if let image = renderWithChafa(pixels, layout: layout, depth: depth) { return image }
            return renderHalfBlocks(pixels, layout: layout, depth: depth)
        case .halfBlock:
            return renderHalfBlocks(pixels, layout: layout, depth: depth)
        }
    }

    /// The cells a `width × height` image takes in a `columns × rows` area under `fit`.
    public static func size(ofImageWidth width: Int, height: Int, columns: Int, rows: Int, fit: Fit = .fit) -> Size {
        guard width > 0, height > 0, columns > 0, rows > 0 else { return .zero }
        return Layout(imageWidth: width, imageHeight: height, columns: columns, rows: rows, fit: fit).cells
    }

    /// Where an image goes: the part of it shown and the cells it fills.
    struct Layout: Equatable {
        var source: PixelRegion
        var cells: Size

        init(imageWidth: Int, imageHeight: Int, columns: Int, rows: Int, fit: Fit) {
            let (w, h) = (Double(imageWidth), Double(imageHeight))
            // The area in square pixels: each cell is one wide and two tall.
            let (areaWidth, areaHeight) = (Double(columns), Double(2 * rows))
            switch fit {
            case .fit:
                let scale = min(areaWidth / w, areaHeight / h)
                source = PixelRegion(x: 0, y: 0, width: w, height: h)
                cells = Size(
                    width: max(1, min(columns, Int((w * scale).rounded()))),
                    height: max(1, min(rows, Int((h * scale / 2).rounded())))
                )
            case .fill:
                if w * areaHeight > h * areaWidth {
                    let shown = h * areaWidth / areaHeight
                    source = PixelRegion(x: (w - shown) / 2, y: 0, width: shown, height: h)
                } else {
                    let shown = w * areaHeight / areaWidth
                    source = PixelRegion(x: 0, y: (h - shown) / 2, width: w, height: shown)
                }
                cells = Size(width: columns, height: rows)
            }
        }
    }
}

// MARK: - Colors and shades

extension CellImage {
    /// The color a terminal of `depth` shows for an RGB pixel (only for color depths).
    static func color(_ r: UInt8, _ g: UInt8, _ b: UInt8, depth: ColorDepth) -> Color {
        depth == .truecolor ? .rgb(r, g, b) : .indexed(Color.nearestIndex256(r, g, b))
    }

    /// Shade symbols from dark to light, as white ink on a black ground shows them.
    static let shades: [Unicode.Scalar] = [" ", "░", "▒", "▓", "█"]

    /// Relative luminance, 0–255 (BT.709 weights, in sRGB as pixels come).
    static func luminance(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> Int {
        (54 * Int(r) + 183 * Int(g) + 19 * Int(b) + 128) >> 8
    }

    /// The shade symbol for a luminance.
    static func shade(forLuminance luminance: Int) -> Unicode.Scalar {
        shades[(max(0, min(255, luminance)) * (shades.count - 1) + 127) / 255]
    }

    /// A grayscale cell's colors: white on black where there are 8 colors, the terminal's own
    /// otherwise (which is light on dark for most, and all there is without color).
    static func grayscaleColors(depth: ColorDepth) -> (foreground: Color, background: Color) {
        depth == .ansi8 ? (.white, .black) : (.default, .default)
    }
}

// MARK: - Drawing

extension CellImage {
    /// Draws the cells with their top-left at `origin`, clipped to `clip` and the canvas.
    @MainActor
    public func draw(into canvas: any Canvas, at origin: Point, clip: Rect? = nil) {
        let area = clip.map { $0.intersection(canvas.bounds) } ?? canvas.bounds
        let visible = Rect(origin: origin, size: size).intersection(area)
        guard !visible.isEmpty else { return }
        for y in visible.minY..<visible.maxY {
            let row = (y - origin.y) * width - origin.x
            for x in visible.minX..<visible.maxX {
                let cell = cells[row + x]
                canvas.setCell(x: x, y: y, cluster: CellCluster(text: String(Character(cell.symbol)), width: 1), style: cell.style)
            }
        }
    }

    /// Draws the cells centered in `rect` (clipped to it), as ``Fit/fit`` leaves them to be.
    @MainActor
    public func draw(into canvas: any Canvas, centeredIn rect: Rect) {
        let origin = Point(x: rect.x + (rect.width - width) / 2, y: rect.y + (rect.height - height) / 2)
        draw(into: canvas, at: origin, clip: rect)
    }
}
