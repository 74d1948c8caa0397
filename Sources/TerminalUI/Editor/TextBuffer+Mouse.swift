// The mouse in the text: a click puts the cursor on the character under it, the wheel scrolls.

extension TextBuffer {
    /// The position shown at `point` of the view (`x` a display column, `y` a row below
    /// ``scroll``), as the last ``setViewport(width:height:)`` laid it out.
    ///
    /// The right half of a wide character is that character; a column inside a tab's blanks is
    /// the tab; past the end of a row is the row's end (for a row that wraps, its last
    /// character, since the end is where the next row starts); below the text is its end.
    public mutating func position(atView point: Point) -> Position {
        guard point.y >= 0 else { return Position(line: scroll.line, offset: layout(ofLine: scroll.line).rowStarts[scroll.row]) }
        let (row, moved) = step(scroll, by: point.y)
        if moved < point.y {
            return Position(line: lines.count - 1, offset: lines[lines.count - 1].count)
        }
        // Unwrapped lines scrolled sideways: the view's column 0 is the text's ``firstColumn``.
        return Position(line: row.line, offset: offset(forColumn: max(0, point.x + firstColumn), in: row))
    }

    /// A click in the view: the cursor goes to ``position(atView:)``.
    public mutating func click(atView point: Point) {
        moveCursor(to: position(atView: point))
    }

    /// Scrolls the view by `rows` visual rows (negative: up) without moving the text, as a
    /// wheel does; the cursor stays where it is if it is still in view, and otherwise moves to
    /// the nearest row in view, at its display column, so the next frame does not scroll back
    /// to it.
    ///
    /// The view stops with the text's last row at its bottom, as when the cursor goes there.
    public mutating func scrollView(by rows: Int) {
        guard rows != 0 else { return }
        var target = step(scroll, by: rows).row
        if rows > 0 {
            // Not past the point where the last row is at the bottom of the view.
            let last = Row(line: lines.count - 1, row: layout(ofLine: lines.count - 1).rowCount - 1)
            let lowest = step(last, by: -(viewHeight - 1)).row
            if lowest < target { target = max(lowest, scroll) }
        }
        guard target != scroll else { return }
        scroll = target
        let (cursorRow, column) = cursorPlacement()
        let bottom = step(scroll, by: viewHeight - 1).row
        let goal: Row
        if cursorRow < scroll {
            goal = scroll
        } else if bottom < cursorRow {
            goal = bottom
        } else {
            return
        }
        let keep = preferredColumn ?? column
        cursor = Position(line: goal.line, offset: offset(forColumn: keep, in: goal))
        preferredColumn = keep
        coalescing = nil
    }
}
