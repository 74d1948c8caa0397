// Soft wrap and scrolling: lines are wrapped only when looked at, and the layout is cached per line.

extension TextBuffer {
    /// Sets the wrap width and the rows shown (the view does this before it draws), then
    /// scrolls to keep the cursor visible. With `softWrap` off a line is one row however long,
    /// and the view scrolls sideways instead (``firstColumn``).
    public mutating func setViewport(width: Int, height: Int, softWrap: Bool = true) {
        let width = max(1, width)
        viewWidth = width
        // Unwrapped, a line is laid out as one row: a width no line reaches.
        let layoutWidth = softWrap ? width : Self.unwrappedWidth
        if layoutWidth != wrapWidth || softWrap != self.softWrap {
            wrapWidth = layoutWidth
            self.softWrap = softWrap
            layouts.removeAll(keepingCapacity: true)
            preferredColumn = nil
        }
        viewHeight = max(1, height)
        revealCursor()
        revealCursorColumn()
    }

    /// The layout width of unwrapped lines: more columns than any line has.
    static let unwrappedWidth = Int(Int32.max)

    /// With soft wrap off, scrolls sideways as little as possible to show the cursor's column
    /// (a cell to its right too, where the next character goes); with it on, no sideways scroll.
    mutating func revealCursorColumn() {
        guard !softWrap else {
            firstColumn = 0
            return
        }
        let column = cursorPlacement().column
        if column < firstColumn {
            firstColumn = column
        } else if column >= firstColumn + viewWidth {
            firstColumn = column - viewWidth + 1
        }
    }

    /// The cursor's visual row and its display column in that row.
    public mutating func cursorPlacement() -> (row: Row, column: Int) {
        let layout = layout(ofLine: cursor.line)
        let row = layout.row(containing: cursor.offset)
        return (Row(line: cursor.line, row: row), layout.columns(from: layout.rowStarts[row], to: cursor.offset))
    }

    /// Where the cursor is in the view: `x` its display column, `y` its row below ``scroll``;
    /// `nil` when it is scrolled out of view (which only happens between an edit elsewhere and
    /// the next ``setViewport(width:height:)``).
    public mutating func cursorInView() -> Point? { pointInView(of: cursor) }

    /// Where `position` is in the view (as ``cursorInView()`` for the cursor); nil when scrolled out of it.
    public mutating func pointInView(of position: Position) -> Point? {
        let position = clamped(position)
        let layout = layout(ofLine: position.line)
        let rowIndex = layout.row(containing: position.offset)
        let row = Row(line: position.line, row: rowIndex)
        let column = layout.columns(from: layout.rowStarts[rowIndex], to: position.offset)
        guard row >= scroll else { return nil }
        var at = scroll
        var y = 0
        while at < row, y < viewHeight {
            at = step(at, by: 1).row
            y += 1
        }
        return at == row && y < viewHeight ? Point(x: column - firstColumn, y: y) : nil
    }

    /// The rows from ``scroll`` down, at most ``viewHeight`` of them.
    public mutating func visibleRows() -> [VisibleRow] {
        var result: [VisibleRow] = []
        result.reserveCapacity(viewHeight)
        var position = scroll
        while result.count < viewHeight {
            let layout = layout(ofLine: position.line)
            let start = layout.rowStarts[position.row], end = layout.rowEnd(position.row)
            var text = ""
            for c in lines[position.line][start..<end] {
                if c == "\t" {
                    text += String(repeating: " ", count: Self.tabWidth)
                } else {
                    text.append(c)
                }
            }
            result.append(VisibleRow(position: position, text: text, start: start, end: end))
            let (next, moved) = step(position, by: 1)
            if moved == 0 { break }
            position = next
        }
        return result
    }

    /// The texts of the rows line `index` wraps into (for tests and tools).
    public mutating func wrappedRows(ofLine index: Int) -> [String] {
        let layout = layout(ofLine: index)
        return layout.rowStarts.indices.map { String(lines[index][layout.rowStarts[$0]..<layout.rowEnd($0)]) }
    }

    /// Scrolls as little as possible to show the cursor, and back up when the view would end
    /// before the text does with rows above left unshown.
    mutating func revealCursor() {
        if scroll.line >= lines.count { scroll = Row(line: lines.count - 1, row: 0) }
        scroll.row = min(scroll.row, layout(ofLine: scroll.line).rowCount - 1)
        let (row, _) = cursorPlacement()
        if row < scroll {
            scroll = row
            return
        }
        var position = scroll
        var distance = 0
        while position < row, distance < viewHeight {
            position = step(position, by: 1).row
            distance += 1
        }
        if distance >= viewHeight {
            scroll = step(row, by: -(viewHeight - 1)).row
            return
        }
        // Rows below the scroll position (counting the cursor's): fill the view if text above allows.
        let below = step(scroll, by: viewHeight - 1).moved + 1
        if below < viewHeight { scroll = step(scroll, by: -(viewHeight - below)).row }
    }

    /// `position` moved `count` visual rows (negative: up), stopping at the ends of the text.
    mutating func step(_ position: Row, by count: Int) -> (row: Row, moved: Int) {
        var position = position
        var moved = 0
        while moved < abs(count) {
            if count > 0 {
                if position.row + 1 < layout(ofLine: position.line).rowCount {
                    position.row += 1
                } else if position.line + 1 < lines.count {
                    position = Row(line: position.line + 1, row: 0)
                } else {
                    break
                }
            } else {
                if position.row > 0 {
                    position.row -= 1
                } else if position.line > 0 {
                    position = Row(line: position.line - 1, row: layout(ofLine: position.line - 1).rowCount - 1)
                } else {
                    break
                }
            }
            moved += 1
        }
        return (position, moved)
    }

    /// The offset in visual row `row` whose display column is the last at or before `column`;
    /// a row that wraps ends before its last cluster (the position after it is the next row's start).
    mutating func offset(forColumn column: Int, in row: Row) -> Int {
        let layout = layout(ofLine: row.line)
        let start = layout.rowStarts[row.row]
        let end = layout.rowEnd(row.row)
        let last = row.row + 1 < layout.rowCount ? max(start, end - 1) : end
        var x = 0
        var offset = start
        while offset < last {
            let w = Int(layout.widths[offset])
            if x + w > column { break }
            x += w
            offset += 1
        }
        return offset
    }

    mutating func layout(ofLine index: Int) -> LineLayout {
        if let cached = layouts[index] { return cached }
        let layout = LineLayout(lines[index], width: wrapWidth)
        if layouts.count >= 4_096 { layouts.removeAll(keepingCapacity: true) }
        layouts[index] = layout
        return layout
    }

    /// The display columns of one cluster: as ``TextWidth`` and the canvas count it, except a tab.
    static func width(of c: Character) -> Int {
        if let ascii = c.asciiValue {
            return ascii == 0x09 ? tabWidth : 1  // other control characters are drawn as U+FFFD
        }
        return TextWidth.of(String(c))
    }
}

extension TextBuffer {
    /// How one line wraps at a width.
    struct LineLayout: Sendable {
        /// The display columns of each cluster.
        var widths: [UInt8]
        /// The offset each visual row starts at; the first is 0.
        var rowStarts: [Int]

        var rowCount: Int { rowStarts.count }

        func rowEnd(_ row: Int) -> Int { row + 1 < rowStarts.count ? rowStarts[row + 1] : widths.count }

        /// The row an offset is shown on: an offset where a row starts belongs to that row.
        func row(containing offset: Int) -> Int {
            var low = 0, high = rowStarts.count - 1
            while low < high {
                let mid = (low + high + 1) / 2
                if rowStarts[mid] <= offset { low = mid } else { high = mid - 1 }
            }
            return low
        }

        func columns(from start: Int, to end: Int) -> Int {
            var total = 0
            for i in start..<end { total += Int(widths[i]) }
            return total
        }

        init(_ characters: [Character], width: Int) {
            widths = []
            widths.reserveCapacity(characters.count)
            rowStarts = [0]
            var rowStart = 0
            var x = 0
            var lastBreak = -1  // the offset after the row's last space or tab
            for (i, c) in characters.enumerated() {
                let w = TextBuffer.width(of: c)
                widths.append(UInt8(min(w, 255)))
                while x + w > width, i > rowStart {
                    let breakAt = lastBreak > rowStart ? lastBreak : i
                    rowStarts.append(breakAt)
                    rowStart = breakAt
                    x = columns(from: breakAt, to: i)
                    lastBreak = -1
                }
                x += w
                if c == " " || c == "\t" { lastBreak = i + 1 }
            }
            // The cursor after a full last row needs a cell: give it a row of its own.
            if x >= width, !characters.isEmpty { rowStarts.append(characters.count) }
        }
    }
}
