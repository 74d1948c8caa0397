/// A surface of terminal cells that widgets draw into.
///
/// Implementations provide two primitives, one cell and a filled rectangle; text layout
/// (widths, clipping, wide characters at edges) lives once in the extension, so the in-memory
/// ``GridCanvas`` that tests read and the ncurses ``CursesCanvas`` lay text out identically.
@MainActor
public protocol Canvas: AnyObject {
    /// The drawable size; cells outside it are ignored.
    var size: Size { get }
    /// The styles widgets use on this canvas (chosen for its color depth).
    var theme: Theme { get }
    /// Where the terminal cursor is shown after the frame; `nil` hides it.
    var cursor: Point? { get set }
    /// How many colors the canvas shows; pictures (``CellImage``) are drawn for it.
    var colorDepth: ColorDepth { get }

    /// Puts one cluster whose `width` columns are known to lie inside the canvas.
    func setCell(x: Int, y: Int, cluster: CellCluster, style: Style)

    /// Fills `rect`, clipped to the canvas, with blanks in `style`.
    func fill(_ rect: Rect, style: Style)
}

extension Canvas {
    /// The whole canvas.
    public var bounds: Rect { Rect(origin: Point(x: 0, y: 0), size: size) }

    /// Draws `text` on one row starting at `point`, clipped to `clip` and the canvas.
    ///
    /// A 2-column character that would be cut by the clip's right edge is not drawn half: its
    /// visible cell is left blank in `style`, as is one cut by the left edge.
    ///
    /// - Returns: the column just after the text, or the clip's right edge if it was cut.
    @discardableResult
    public func put<S: StringProtocol>(_ text: S, at point: Point, style: Style, clip: Rect? = nil) -> Int {
        let area = clip.map { $0.intersection(bounds) } ?? bounds
        guard point.y >= area.minY, point.y < area.maxY, !area.isEmpty else {
            return point.x + TextWidth.of(text)
        }
        var x = point.x
        let blank = CellCluster(text: " ", width: 1)
        TextWidth.forEachCluster(in: text) { cluster in
            let end = x + cluster.width
            if x >= area.maxX { return false }
            if x < area.minX {
                for column in max(x, area.minX)..<min(max(end, area.minX), area.maxX) {
                    setCell(x: column, y: point.y, cluster: blank, style: style)
                }
            } else if end > area.maxX {
                for column in x..<area.maxX { setCell(x: column, y: point.y, cluster: blank, style: style) }
                x = area.maxX
                return false
            } else {
                setCell(x: x, y: point.y, cluster: cluster, style: style)
            }
            x = end
            return true
        }
        return min(x, max(area.maxX, point.x))
    }

    /// Draws `text` aligned within the one-row `rect`, truncated with "…" if it is too wide.
    @discardableResult
    public func put(_ text: String, in rect: Rect, alignment: TextWidth.Alignment, style: Style) -> Int {
        guard !rect.isEmpty else { return rect.x }
        let cut = TextWidth.truncate(text, to: rect.width)
        let width = TextWidth.of(cut)
        let x: Int
        switch alignment {
        case .left: x = rect.x
        case .right: x = rect.maxX - width
        case .center: x = rect.x + (rect.width - width) / 2
        }
        return put(cut, at: Point(x: x, y: rect.y), style: style, clip: rect)
    }

    /// Draws a rounded box around the edge of `rect`, with an optional title in its top border.
    public func drawBox(_ rect: Rect, style: Style, title: String? = nil, titleStyle: Style? = nil) {
        guard rect.width >= 2, rect.height >= 2 else { return }
        let inner = rect.width - 2
        let horizontal = String(repeating: "─", count: inner)
        put("╭" + horizontal + "╮", at: rect.origin, style: style, clip: rect)
        put("╰" + horizontal + "╯", at: Point(x: rect.x, y: rect.maxY - 1), style: style, clip: rect)
        for y in (rect.y + 1)..<(rect.maxY - 1) {
            put("│", at: Point(x: rect.x, y: y), style: style)
            put("│", at: Point(x: rect.maxX - 1, y: y), style: style)
        }
        if let title, inner >= 5 {
            let text = TextWidth.truncate(title, to: inner - 4)
            let x = put(" ", at: Point(x: rect.x + 2, y: rect.y), style: style)
            let end = put(text, at: Point(x: x, y: rect.y), style: titleStyle ?? style)
            put(" ", at: Point(x: end, y: rect.y), style: style)
        }
    }
}
