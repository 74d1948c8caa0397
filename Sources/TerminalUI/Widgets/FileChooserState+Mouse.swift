// The mouse in the file chooser: the wheel scrolls the folder's rows, a click selects one.

extension FileChooserState {
    /// Applies a mouse key to the list; returns the row a left click landed on (selected now),
    /// for the chooser to tell a double click, which opens it like Enter.
    mutating func handleMouse(_ key: Key) -> Int? {
        if let rows = key.wheelRows {
            _ = list.scroll(by: rows, count: entries.count)
            return nil
        }
        guard case .mouse(let x, let y) = key, let position = list.position(at: Point(x: x, y: y), count: entries.count) else {
            return nil
        }
        moveSelection(to: position)
        // Enter on the row, not on what was typed in the path field.
        if !input.text.isEmpty { return nil }
        return position
    }
}
