/// A column of a ``ListView``.
public struct ListColumn: Hashable, Sendable {
    /// How wide a column is.
    public enum Width: Hashable, Sendable {
        /// Exactly this many columns.
        case fixed(Int)
        /// An equal share of what the fixed columns leave, but at least `minimum`.
        case flexible(minimum: Int)
    }

    public var title: String
    public var width: Width
    public var alignment: TextWidth.Alignment
    /// Drawn in the muted style (sizes, dates) rather than as the row's main text.
    public var isSecondary: Bool

    public init(_ title: String, width: Width = .flexible(minimum: 10), alignment: TextWidth.Alignment = .left, isSecondary: Bool = false) {
        self.title = title
        self.width = width
        self.alignment = alignment
        self.isSecondary = isSecondary
    }
}

/// A scrolling list with columns, a selection bar and a `/` filter line.
///
/// Only the rows on screen are drawn, so a frame costs the same for 20 rows or 10,000. The
/// list's lasting state (selection, offset, filter) is the caller's ``ListState``; keys go to
/// ``ListState/handle(_:rows:bindings:)``.
public struct ListView: Sendable {
    public var columns: [ListColumn]
    public var rows: any ListRows
    /// Shown when there are no rows at all.
    public var emptyHint: String
    /// Whether the list has the keyboard; an unfocused list shows a quieter selection.
    public var isFocused: Bool
    public var showsHeader: Bool

    public init(columns: [ListColumn], rows: any ListRows, emptyHint: String = "Nothing here yet", isFocused: Bool = true, showsHeader: Bool = true) {
        self.columns = columns
        self.rows = rows
        self.emptyHint = emptyHint
        self.isFocused = isFocused
        self.showsHeader = showsHeader
    }

    /// Gap between columns.
    static let gap = 2

    /// The x range of each column inside `area` (which has a one-cell margin on the left).
    public func columnFrames(in area: Rect) -> [Rect] {
        let inner = area.inset(left: 1, right: 1)
        let gaps = ListView.gap * max(0, columns.count - 1)
        var fixedTotal = 0, flexibleCount = 0, flexibleMinimum = 0
        for column in columns {
            switch column.width {
            case .fixed(let w): fixedTotal += w
            case .flexible(let minimum):
                flexibleCount += 1
                flexibleMinimum += minimum
            }
        }
        let spare = max(flexibleMinimum, inner.width - gaps - fixedTotal)
        var x = inner.x
        var flexibleIndex = 0
        return columns.map { column in
            let w: Int
            switch column.width {
            case .fixed(let fixed): w = fixed
            case .flexible(let minimum):
                // Spread the remainder over the first flexible columns so widths add up exactly.
                let share = spare / flexibleCount + (flexibleIndex < spare % flexibleCount ? 1 : 0)
                w = max(minimum, share)
                flexibleIndex += 1
            }
            let frame = Rect(x: x, y: area.y, width: w, height: 1).intersection(Rect(x: inner.x, y: area.y, width: inner.width, height: 1))
            x += w + ListView.gap
            return frame
        }
    }

    @MainActor
    public func render(into canvas: any Canvas, area: Rect, state: inout ListState) {
        let area = area.intersection(canvas.bounds)
        let theme = canvas.theme
        canvas.fill(area, style: theme.text)
        state.rowsFrame = .zero
        guard !area.isEmpty else { return }

        var body = area
        var header = Rect.zero
        if showsHeader { (header, body) = body.splitTop(1) }
        var filterLine = Rect.zero
        if state.isFiltering { (body, filterLine) = body.splitBottom(1) }

        let visible: [Int]? = state.filter.isEmpty ? nil : state.visibleIndices(in: rows)
        let count = visible?.count ?? rows.count
        state.pageSize = max(1, body.height)
        state.clamp(count: count, height: body.height)

        let hasScrollbar = count > body.height && body.height > 0
        let rowsArea = hasScrollbar ? body.inset(right: 1) : body
        state.rowsFrame = body
        state.rowPitch = 1
        let frames = columnFrames(in: rowsArea)

        if !header.isEmpty {
            for (column, frame) in zip(columns, frames) {
                canvas.put(column.title, in: frame.row(0).with(y: header.y), alignment: column.alignment, style: theme.header)
            }
        }

        if count == 0 {
            let hint = rows.count == 0 ? emptyHint : "No matches for “\(state.filter)”"
            if !body.isEmpty {
                canvas.put(hint, in: body.row(body.height / 2 - (body.height > 2 ? 1 : 0)), alignment: .center, style: theme.muted)
            }
        }

        let end = min(count, state.offset + body.height)
        if state.offset < end {
            for position in state.offset..<end {
                let rowIndex = visible?[position] ?? position
                let y = body.y + position - state.offset
                let isSelected = position == state.selected
                let selectionStyle = isFocused ? theme.selection : theme.selectionUnfocused
                if isSelected { canvas.fill(rowsArea.row(y - rowsArea.y), style: selectionStyle) }
                let cells = rows.row(rowIndex).cells
                for (index, (column, frame)) in zip(columns, frames).enumerated() where index < cells.count {
                    let style = isSelected ? selectionStyle : (column.isSecondary ? theme.muted : theme.text)
                    canvas.put(cells[index], in: frame.with(y: y), alignment: column.alignment, style: style)
                }
            }
        }

        if hasScrollbar { drawScrollbar(canvas, x: body.maxX - 1, top: body.y, height: body.height, offset: state.offset, count: count) }
        if !filterLine.isEmpty { drawFilterLine(canvas, filterLine, state: state, matches: count) }
    }

    @MainActor
    private func drawScrollbar(_ canvas: any Canvas, x: Int, top: Int, height: Int, offset: Int, count: Int) {
        let thumb = max(1, height * height / count)
        let travel = height - thumb
        let thumbTop = count > height ? (offset * travel + (count - height) / 2) / (count - height) : 0
        for i in 0..<height {
            let onThumb = i >= thumbTop && i < thumbTop + thumb
            canvas.put(onThumb ? "┃" : "│", at: Point(x: x, y: top + i), style: onThumb ? canvas.theme.text : canvas.theme.muted)
        }
    }

    /// Draws the filter line (`/text`, then "N of M") in `line`; lists that lay out their own
    /// rows (the photos with thumbnails) use it too.
    @MainActor
    public func drawFilterLine(_ canvas: any Canvas, _ line: Rect, state: ListState, matches: Int) {
        let theme = canvas.theme
        let counter = "\(matches) of \(rows.count)"
        let counterWidth = TextWidth.of(counter)
        var x = canvas.put(" /", at: line.origin, style: theme.accent, clip: line) + 1
        let textRoom = Rect(x: x, y: line.y, width: line.maxX - x - counterWidth - 2, height: 1)
        // Show the end of a long filter, where the typing happens.
        var shown = state.filter
        while TextWidth.of(shown) > max(0, textRoom.width - 1), !shown.isEmpty { shown.removeFirst() }
        x = canvas.put(shown, at: textRoom.origin, style: theme.text, clip: textRoom)
        if state.isEditingFilter, textRoom.contains(Point(x: x, y: line.y)) { canvas.cursor = Point(x: x, y: line.y) }
        if textRoom.width > 0 {
            canvas.put(counter, in: Rect(x: line.maxX - counterWidth - 1, y: line.y, width: counterWidth, height: 1), alignment: .right, style: theme.muted)
        }
    }
}

extension Rect {
    /// This rectangle moved to row `y`.
    func with(y newY: Int) -> Rect { Rect(x: x, y: newY, width: width, height: height) }
}
