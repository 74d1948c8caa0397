/// An in-memory ``Canvas``: the screen as a grid of cells, for snapshot tests and benchmarks.
///
/// A 2-column character is stored in its first cell; the next cell is a continuation that
/// ``dump()`` prints as nothing, so each dumped line reads as the terminal would show it.
@MainActor
public final class GridCanvas: Canvas {
    /// One cell: its text (empty for the second half of a wide character) and style.
    public struct Cell: Hashable, Sendable {
        public var text: String
        public var width: Int
        public var style: Style

        public static let blank = Cell(text: " ", width: 1, style: .plain)
        public var isContinuation: Bool { width == 0 }
    }

    public let size: Size
    public var theme: Theme
    public var cursor: Point?
    /// The depth pictures are drawn for; 256 colors by default, like the default theme.
    public var colorDepth: ColorDepth
    private var cells: [Cell]

    /// A blank canvas; the theme defaults to the 256-color one, as most terminals have.
    public init(width: Int, height: Int, theme: Theme = .standard(for: .indexed256), colorDepth: ColorDepth = .indexed256) {
        size = Size(width: max(0, width), height: max(0, height))
        self.theme = theme
        self.colorDepth = colorDepth
        cells = Array(repeating: .blank, count: size.width * size.height)
    }

    /// Blanks every cell and hides the cursor, as a new frame does.
    public func clear() {
        for i in cells.indices { cells[i] = .blank }
        cursor = nil
    }

    public func setCell(x: Int, y: Int, cluster: CellCluster, style: Style) {
        guard y >= 0, y < size.height, x >= 0, x + cluster.width <= size.width else { return }
        let row = y * size.width
        breakWideCharacter(at: x, row: row)
        cells[row + x] = Cell(text: cluster.text, width: cluster.width, style: style)
        if cluster.width == 2 {
            breakWideCharacter(at: x + 1, row: row)
            cells[row + x + 1] = Cell(text: "", width: 0, style: style)
        }
    }

    public func fill(_ rect: Rect, style: Style) {
        let r = rect.intersection(bounds)
        guard !r.isEmpty else { return }
        let blank = Cell(text: " ", width: 1, style: style)
        for y in r.minY..<r.maxY {
            let row = y * size.width
            breakWideCharacter(at: r.minX, row: row)
            if r.maxX < size.width { breakWideCharacter(at: r.maxX - 1, row: row) }
            for x in r.minX..<r.maxX { cells[row + x] = blank }
        }
    }

    /// Overwriting either half of a wide character blanks the other half, as terminals do.
    private func breakWideCharacter(at x: Int, row: Int) {
        let cell = cells[row + x]
        if cell.width == 2, x + 1 < size.width {
            cells[row + x + 1] = Cell(text: " ", width: 1, style: cells[row + x + 1].style)
        } else if cell.width == 0, x > 0 {
            cells[row + x - 1] = Cell(text: " ", width: 1, style: cells[row + x - 1].style)
        }
    }

    /// The cell at a position (for tests).
    public func cell(x: Int, y: Int) -> Cell {
        precondition(x >= 0 && x < size.width && y >= 0 && y < size.height, "cell (\(x), \(y)) is outside \(size)")
        return cells[y * size.width + x]
    }

    /// The style at a position (for tests).
    public func style(x: Int, y: Int) -> Style { cell(x: x, y: y).style }

    /// One row as text, trailing spaces trimmed.
    public func line(_ y: Int) -> String {
        var text = ""
        for x in 0..<size.width { text += cells[y * size.width + x].text }
        while text.last == " " { text.removeLast() }
        return text
    }

    /// The whole grid as text: one line per row, trailing spaces trimmed.
    public func dump() -> String {
        (0..<size.height).map(line).joined(separator: "\n")
    }

    /// Where `text` first appears, scanning rows from the top (for tests).
    public func position(of text: String) -> Point? {
        for y in 0..<size.height {
            if let x = column(of: text, inRow: y) { return Point(x: x, y: y) }
        }
        return nil
    }

    /// The column where `text` first appears on row `y`, counted in cells (for tests).
    public func column(of text: String, inRow y: Int) -> Int? {
        var columns: [Int] = []
        var joined = ""
        for x in 0..<size.width {
            let t = cells[y * size.width + x].text
            for _ in t.unicodeScalars { columns.append(x) }
            joined.unicodeScalars.append(contentsOf: t.unicodeScalars)
        }
        let scalars = Array(joined.unicodeScalars), needle = Array(text.unicodeScalars)
        guard !needle.isEmpty, needle.count <= scalars.count else { return nil }
        for start in 0...(scalars.count - needle.count) where Array(scalars[start..<(start + needle.count)]) == needle {
            return columns[start]
        }
        return nil
    }
}
