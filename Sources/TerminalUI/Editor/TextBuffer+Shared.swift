// Another writer's edits (a member typing in the same note), taken in without the undo history.

extension TextBuffer {
    /// The UTF-16 offset of `position` in ``text`` (lines joined with "\n").
    public func utf16Offset(of position: Position) -> Int {
        let position = clamped(position)
        var offset = lineStart(position.line)
        for character in lines[position.line][..<position.offset] { offset += character.utf16.count }
        return offset
    }

    /// The position at UTF-16 `offset` of ``text``; an offset inside a cluster goes to its start.
    public func position(ofUTF16 offset: Int) -> Position {
        var left = max(0, offset)
        for line in lines.indices {
            let count = lineUnits[line]
            if left <= count || line == lines.count - 1 {
                var column = 0
                for character in lines[line] {
                    let width = character.utf16.count
                    if left < width { break }
                    left -= width
                    column += 1
                }
                return Position(line: line, offset: column)
            }
            left -= count + 1
        }
        return Position(line: lines.count - 1, offset: lines[lines.count - 1].count)
    }

    /// Replaces UTF-16 `range` of ``text`` with `replacement`: another member's edit. The cursor
    /// and the selection keep their place in the text around it (one at the edit's start stays
    /// before what is inserted there). It is no undo step of this buffer's: the undo history is
    /// cleared (a live note's undo is the shared document's, which undoes this member's own edits),
    /// and the buffer counts as modified.
    public mutating func applyShared(_ range: Range<Int>, with replacement: String) {
        let total = utf16Count
        let low = min(max(0, range.lowerBound), total), high = min(max(low, range.upperBound), total)
        let first = position(ofUTF16: low).line
        let last = position(ofUTF16: high).line
        let firstStart = lineStart(first)
        var units = Array(lines[first...last].map { String($0) }.joined(separator: "\n").utf16)
        let cut = (low - firstStart)..<(high - firstStart)
        units.replaceSubrange(cut, with: Array(replacement.utf16))
        let joined = String(decoding: units, as: UTF16.self)
        var newLines = joined.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array(Substring($0)) }
        if newLines.isEmpty { newLines = [[]] }
        let shift = replacement.utf16.count - (high - low)
        func moved(_ position: Position) -> Int {
            let at = utf16Offset(of: position)
            if at <= low { return at }
            if at >= high { return at + shift }
            return low
        }
        let cursorAt = moved(cursor)
        let anchorAt = anchor.map(moved)
        log(TextEdit(range: low..<high, text: replacement, isShared: true))
        setLines(first..<(last + 1), to: newLines)
        layouts.removeAll(keepingCapacity: true)
        if scroll.line >= lines.count { scroll = Row(line: lines.count - 1, row: 0) }
        cursor = position(ofUTF16: cursorAt)
        anchor = anchorAt.map { position(ofUTF16: $0) }
        preferredColumn = nil
        undoStack.removeAll()
        redoStack.removeAll()
        coalescing = nil
        floorVersion = nextVersion
        nextVersion += 1
    }

    /// The length of ``text`` in UTF-16 units.
    public var utf16Count: Int {
        lineUnits.reduce(lines.count - 1, +)
    }
}
