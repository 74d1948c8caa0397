// Cursor moves: by cluster, word, line, visual row and page. None of them records an undo step.

extension TextBuffer {
    /// Puts the cursor at `position`, clamped to the text.
    public mutating func moveCursor(to position: Position) {
        let line = min(max(0, position.line), lines.count - 1)
        setCursor(Position(line: line, offset: min(max(0, position.offset), lines[line].count)))
    }

    public mutating func moveLeft() {
        if cursor.offset > 0 {
            setCursor(Position(line: cursor.line, offset: cursor.offset - 1))
        } else if cursor.line > 0 {
            setCursor(Position(line: cursor.line - 1, offset: lines[cursor.line - 1].count))
        } else {
            setCursor(cursor)
        }
    }

    public mutating func moveRight() {
        if cursor.offset < lines[cursor.line].count {
            setCursor(Position(line: cursor.line, offset: cursor.offset + 1))
        } else if cursor.line + 1 < lines.count {
            setCursor(Position(line: cursor.line + 1, offset: 0))
        } else {
            setCursor(cursor)
        }
    }

    /// Home, Ctrl-A: the start of the line.
    public mutating func moveToLineStart() { setCursor(Position(line: cursor.line, offset: 0)) }

    /// End, Ctrl-E: the end of the line.
    public mutating func moveToLineEnd() { setCursor(Position(line: cursor.line, offset: lines[cursor.line].count)) }

    /// Ctrl-Home: the start of the text.
    public mutating func moveToDocumentStart() { setCursor(Position(line: 0, offset: 0)) }

    /// Ctrl-End: the end of the text.
    public mutating func moveToDocumentEnd() { setCursor(Position(line: lines.count - 1, offset: lines[lines.count - 1].count)) }

    /// To the start of this word, or of the previous one (across lines).
    public mutating func moveWordLeft() {
        var line = cursor.line, offset = cursor.offset
        while true {
            if offset == 0 {
                if line == 0 { break }
                line -= 1
                offset = lines[line].count
                continue
            }
            if Self.isWordCharacter(lines[line][offset - 1]) { break }
            offset -= 1
        }
        while offset > 0, Self.isWordCharacter(lines[line][offset - 1]) { offset -= 1 }
        setCursor(Position(line: line, offset: offset))
    }

    /// To the end of this word, or of the next one (across lines).
    public mutating func moveWordRight() {
        var line = cursor.line, offset = cursor.offset
        while true {
            if offset == lines[line].count {
                if line + 1 == lines.count { break }
                line += 1
                offset = 0
                continue
            }
            if Self.isWordCharacter(lines[line][offset]) { break }
            offset += 1
        }
        while offset < lines[line].count, Self.isWordCharacter(lines[line][offset]) { offset += 1 }
        setCursor(Position(line: line, offset: offset))
    }

    /// One visual row up, at the preferred column; on the first row, to the start of the text.
    public mutating func moveUp() { moveVertically(by: -1) }

    /// One visual row down, at the preferred column; on the last row, to the end of the text.
    public mutating func moveDown() { moveVertically(by: 1) }

    /// A page up: the view height less one row, the view scrolling by as much.
    public mutating func pageUp() { moveVertically(by: -max(1, viewHeight - 1), scrollsView: true) }

    /// A page down: the view height less one row, the view scrolling by as much.
    public mutating func pageDown() { moveVertically(by: max(1, viewHeight - 1), scrollsView: true) }

    private mutating func moveVertically(by count: Int, scrollsView: Bool = false) {
        let (row, x) = cursorPlacement()
        let (target, moved) = step(row, by: count)
        guard moved > 0 else {
            if count < 0 { moveToDocumentStart() } else { moveToDocumentEnd() }
            return
        }
        let column = preferredColumn ?? x
        let newCursor = Position(line: target.line, offset: offset(forColumn: column, in: target))
        if scrollsView { scroll = step(scroll, by: count < 0 ? -moved : moved).row }
        setCursor(newCursor)
        preferredColumn = column
    }

    private mutating func setCursor(_ position: Position) {
        cursor = position
        anchor = nil
        preferredColumn = nil
        coalescing = nil
        revealCursor()
    }

    static func isWordCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }
}
