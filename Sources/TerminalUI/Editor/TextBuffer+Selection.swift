// The selection and edits of a span: the text between ``TextBuffer/anchor`` and the cursor,
// replaced or removed as one undo step, and the clipboard's line when nothing is selected.

extension TextBuffer {
    /// The selected span, start first; `nil` when nothing is selected (no anchor, or the
    /// cursor back on it).
    public var selection: Range<Position>? {
        guard let anchor, anchor != cursor else { return nil }
        return Swift.min(anchor, cursor)..<Swift.max(anchor, cursor)
    }

    /// The selected text, `nil` when nothing is selected.
    public var selectedText: String? { selection.map(text(in:)) }

    /// Carries out `move` keeping the selection's start where it was (or at the cursor, for a
    /// new selection): Shift with any move key.
    public mutating func extendSelection(_ move: (inout TextBuffer) -> Void) {
        let start = anchor ?? cursor
        move(&self)
        anchor = start
    }

    /// Selects from `start` to `end` (clamped to the text), the cursor at `end`.
    public mutating func select(from start: Position, to end: Position) {
        moveCursor(to: end)
        anchor = clamped(start)
    }

    /// Selects the whole text, the cursor at its end.
    public mutating func selectAll() {
        select(from: Position(line: 0, offset: 0), to: Position(line: lines.count - 1, offset: lines[lines.count - 1].count))
    }

    /// Drops the selection; the cursor stays.
    public mutating func clearSelection() { anchor = nil }

    /// The text of `range`, lines joined with "\n".
    public func text(in range: Range<Position>) -> String {
        let low = clamped(range.lowerBound), high = clamped(range.upperBound)
        guard low < high else { return "" }
        if low.line == high.line { return String(lines[low.line][low.offset..<high.offset]) }
        var result = String(lines[low.line][low.offset...])
        for line in (low.line + 1)..<high.line {
            result.append("\n")
            result.append(contentsOf: String(lines[line]))
        }
        result.append("\n")
        result.append(contentsOf: String(lines[high.line][..<high.offset]))
        return result
    }

    /// Replaces `range` with `text` (which may hold newlines) as one undo step; the cursor
    /// goes after the new text.
    public mutating func replace(_ range: Range<Position>, with text: String) {
        replace(range, with: text, kind: .other)
    }

    /// The same, recorded as `kind` so that a run of word deletes joins one undo step.
    mutating func replace(_ range: Range<Position>, with text: String, kind: ChangeKind) {
        let low = clamped(range.lowerBound), high = clamped(range.upperBound)
        let left = String(lines[low.line][..<low.offset])
        let rightCount = lines[high.line].count - high.offset
        let right = String(lines[high.line][high.offset...])
        let pieces = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(Substring($0)) }
        var newLines: [[Character]]
        if pieces.count <= 1 {
            newLines = [Array(left + (pieces.first ?? "") + right)]
        } else {
            newLines = [Array(left + pieces[0])]
            for piece in pieces.dropFirst().dropLast() { newLines.append(Array(piece)) }
            newLines.append(Array(pieces[pieces.count - 1] + right))
        }
        // Counted from the end: text joined to its neighbours may merge clusters at the seams.
        let newCursor = Position(line: low.line + newLines.count - 1, offset: Swift.max(0, newLines[newLines.count - 1].count - rightCount))
        replace(lines: low.line..<(high.line + 1), with: newLines, cursor: newCursor, kind: kind)
    }

    /// Removes the selected text; returns whether there was any.
    @discardableResult
    public mutating func deleteSelection() -> Bool {
        guard let selection else { return false }
        replace(selection, with: "")
        return true
    }

    /// What copy takes: the selection, or with nothing selected the cursor's line and its
    /// line break (as micro and nano copy a line).
    public var copiedText: String { selectedText ?? String(lines[cursor.line]) + "\n" }

    /// Cut: removes the selection, or the cursor's whole line; returns what was removed.
    @discardableResult
    public mutating func cut() -> String {
        let removed = copiedText
        if let selection {
            replace(selection, with: "")
        } else if cursor.line + 1 < lines.count {
            replace(lines: cursor.line..<(cursor.line + 1), with: [], cursor: Position(line: cursor.line, offset: 0), kind: .other)
        } else if cursor.line > 0 {
            // The last line: its line break is the one before it.
            replace(Position(line: cursor.line - 1, offset: lines[cursor.line - 1].count)..<Position(line: cursor.line, offset: lines[cursor.line].count), with: "")
            moveToLineStart()
        } else {
            replace(Position(line: 0, offset: 0)..<Position(line: 0, offset: lines[0].count), with: "")
        }
        return removed
    }

    /// `position` moved inside the text.
    func clamped(_ position: Position) -> Position {
        let line = Swift.min(Swift.max(0, position.line), lines.count - 1)
        return Position(line: line, offset: Swift.min(Swift.max(0, position.offset), lines[line].count))
    }
}
