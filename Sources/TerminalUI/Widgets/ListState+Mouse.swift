// The mouse on a list: which row a click hit, and the wheel scrolling the rows.

extension ListState {
    /// The position (among the rows that pass the filter) drawn at `point` in the last frame,
    /// or `nil` for a point outside the rows or below the last one. A gap between tall rows
    /// counts as the row above it.
    public func position(at point: Point, count: Int) -> Int? {
        guard rowsFrame.contains(point) else { return nil }
        let position = offset + (point.y - rowsFrame.y) / max(1, rowPitch)
        return position < count ? position : nil
    }

    /// The row (an index into `rows`) drawn at `point` in the last frame.
    public func row(at point: Point, in rows: some ListRows) -> Int? {
        if filter.isEmpty { return position(at: point, count: rows.count) }
        let visible = visibleIndices(in: rows)
        return position(at: point, count: visible.count).map { visible[$0] }
    }

    /// Scrolls the view by `rows` (negative: up) as a wheel does, leaving the selection where
    /// it is while it stays in view and otherwise taking it to the nearest row in view (so the
    /// next frame, which keeps the selection visible, does not scroll back).
    ///
    /// Returns ``ListOutcome/moved`` when anything changed.
    public mutating func scroll(by rows: Int, count: Int) -> ListOutcome {
        let height = max(1, pageSize)
        let newOffset = max(0, min(offset + rows, count - height))
        guard newOffset != offset else { return .ignored }
        offset = newOffset
        if selected < offset { selected = offset }
        if selected >= offset + height { selected = max(0, min(count - 1, offset + height - 1)) }
        return .moved
    }

    /// Selects the position at `point`; returns the row (an index into `rows`) it selected.
    public mutating func click(at point: Point, rows: some ListRows) -> Int? {
        let count = filter.isEmpty ? rows.count : visibleIndices(in: rows).count
        guard let position = position(at: point, count: count) else { return nil }
        selected = position
        return selectedRow(in: rows)
    }
}
