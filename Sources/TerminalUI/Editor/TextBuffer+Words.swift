// Readline's deletes: the word before (Ctrl-W, Alt-Backspace), the word after (Alt-D) and to the
// line start (Ctrl-U). They are recorded as Backspace and Delete are, so a run of them (mixed
// with Backspaces, or Deletes) within a line is one undo step.

extension TextBuffer {
    /// Deletes back to the start of the word before the cursor (spaces and punctuation just
    /// before it go too); at the start of a line, joins it to the line above.
    @discardableResult
    public mutating func deleteWordBackward() -> Bool {
        if deleteSelection() { return true }
        guard cursor.offset > 0 else { return deleteBackward() }
        let line = lines[cursor.line]
        var start = cursor.offset
        while start > 0, !Self.isWordCharacter(line[start - 1]) { start -= 1 }
        while start > 0, Self.isWordCharacter(line[start - 1]) { start -= 1 }
        replace(Position(line: cursor.line, offset: start)..<cursor, with: "", kind: .deleteBackward)
        return true
    }

    /// Deletes to the end of the word after the cursor; at the end of a line, joins the next.
    @discardableResult
    public mutating func deleteWordForward() -> Bool {
        if deleteSelection() { return true }
        let line = lines[cursor.line]
        guard cursor.offset < line.count else { return deleteForward() }
        var end = cursor.offset
        while end < line.count, !Self.isWordCharacter(line[end]) { end += 1 }
        while end < line.count, Self.isWordCharacter(line[end]) { end += 1 }
        replace(cursor..<Position(line: cursor.line, offset: end), with: "", kind: .deleteForward)
        return true
    }

    /// Deletes from the start of the line to the cursor (nothing at the start of a line).
    @discardableResult
    public mutating func deleteToLineStart() -> Bool {
        if deleteSelection() { return true }
        guard cursor.offset > 0 else { return false }
        replace(Position(line: cursor.line, offset: 0)..<cursor, with: "", kind: .deleteBackward)
        return true
    }
}
