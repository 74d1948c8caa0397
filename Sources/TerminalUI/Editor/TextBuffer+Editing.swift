// Editing and undo: every change goes through `replace`, which records the step that undoes it.

extension TextBuffer {
    /// Inserts `text` at the cursor and moves the cursor after it.
    ///
    /// `text` may hold newlines (a paste); a single typed character may join the previous undo
    /// step (see the type's discussion), anything longer is a step of its own.
    public mutating func insert(_ text: String) {
        guard !text.isEmpty else { return }
        let line = lines[cursor.line]
        let offset = cursor.offset
        var characters = text.makeIterator()
        let single = characters.next()
        let isOneCharacter = characters.next() == nil && single != "\n" && single != "\r\n"
        let kind: ChangeKind = isOneCharacter ? .typing : .other
        // A word character typed after anything else (or at the line start) begins a new word: a new undo step.
        let startsWord = isOneCharacter && Self.isWordCharacter(single!) && (offset == 0 || !Self.isWordCharacter(line[offset - 1]))

        // Fast path: a printable ASCII character next to ASCII can merge with neither neighbour.
        if isOneCharacter, let c = single, let ascii = c.asciiValue, ascii >= 0x20, ascii != 0x7F,
           offset == 0 || line[offset - 1].unicodeScalars.last!.isASCII,
           offset == line.count || line[offset].unicodeScalars.first!.isASCII {
            var newLine = line
            newLine.insert(c, at: offset)
            replace(lines: cursor.line..<(cursor.line + 1), with: [newLine],
                    cursor: Position(line: cursor.line, offset: offset + 1), kind: kind, startsStep: startsWord)
            return
        }

        let pieces = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(Substring($0)) }
        let left = String(line[..<offset])
        let right = line[offset...]
        var newLines: [[Character]]
        if pieces.count == 1 {
            newLines = [Array(left + pieces[0] + String(right))]
        } else {
            newLines = [Array(left + pieces[0])]
            for piece in pieces.dropFirst().dropLast() { newLines.append(Array(piece)) }
            newLines.append(Array(pieces[pieces.count - 1] + String(right)))
        }
        // Counted from the end: a combining mark typed after "e" joins it into one cluster.
        let newCursor = Position(line: cursor.line + newLines.count - 1, offset: max(0, newLines[newLines.count - 1].count - right.count))
        replace(lines: cursor.line..<(cursor.line + 1), with: newLines, cursor: newCursor, kind: kind, startsStep: startsWord)
    }

    /// Splits the line at the cursor.
    public mutating func insertNewline() { insert("\n") }

    /// Deletes the cluster before the cursor, or joins the line to the one above at its start.
    ///
    /// - Returns: whether anything was deleted.
    @discardableResult
    public mutating func deleteBackward() -> Bool {
        let offset = cursor.offset
        if offset > 0 {
            var newLine = lines[cursor.line]
            newLine.remove(at: offset - 1)
            replace(lines: cursor.line..<(cursor.line + 1), with: [newLine],
                    cursor: Position(line: cursor.line, offset: offset - 1), kind: .deleteBackward)
            return true
        }
        guard cursor.line > 0 else { return false }
        joinLine(cursor.line - 1)
        return true
    }

    /// Deletes the cluster at the cursor, or joins the next line at the end of this one.
    ///
    /// - Returns: whether anything was deleted.
    @discardableResult
    public mutating func deleteForward() -> Bool {
        let offset = cursor.offset
        if offset < lines[cursor.line].count {
            var newLine = lines[cursor.line]
            newLine.remove(at: offset)
            replace(lines: cursor.line..<(cursor.line + 1), with: [newLine], cursor: cursor, kind: .deleteForward)
            return true
        }
        guard cursor.line + 1 < lines.count else { return false }
        joinLine(cursor.line)
        return true
    }

    /// Ctrl-K: deletes from the cursor to the end of the line, or at the end joins the next line.
    ///
    /// - Returns: whether anything was deleted.
    @discardableResult
    public mutating func killToEndOfLine() -> Bool {
        let line = lines[cursor.line]
        if cursor.offset < line.count {
            replace(lines: cursor.line..<(cursor.line + 1), with: [Array(line[..<cursor.offset])], cursor: cursor, kind: .other)
            return true
        }
        guard cursor.line + 1 < lines.count else { return false }
        joinLine(cursor.line)
        return true
    }

    /// Joins line `index + 1` onto line `index`, the cursor at the join.
    private mutating func joinLine(_ index: Int) {
        let upper = lines[index], lower = lines[index + 1]
        // Re-segmented: the clusters either side of the join may become one.
        let joined = Array(String(upper) + String(lower))
        replace(lines: index..<(index + 2), with: [joined],
                cursor: Position(line: index, offset: max(0, joined.count - lower.count)), kind: .other)
    }

    /// Undoes the last step, putting back its text and the cursor it started from.
    ///
    /// - Returns: whether there was a step to undo.
    @discardableResult
    public mutating func undo() -> Bool {
        guard let change = undoStack.popLast() else { return false }
        redoStack.append(apply(change))
        return true
    }

    /// Redoes the last undone step.
    ///
    /// - Returns: whether there was a step to redo.
    @discardableResult
    public mutating func redo() -> Bool {
        guard let change = redoStack.popLast() else { return false }
        undoStack.append(apply(change))
        return true
    }

    /// Puts a recorded change's lines back and returns the change that reverses it.
    private mutating func apply(_ change: Change) -> Change {
        let range = change.firstLine..<(change.firstLine + change.replacedCount)
        let reverse = Change(
            firstLine: change.firstLine, lines: Array(lines[range]), replacedCount: change.lines.count,
            cursorBefore: change.cursorAfter, cursorAfter: change.cursorBefore, version: change.version)
        recordEdit(replacing: range, with: change.lines, cursor: change.cursorBefore, continuesStep: false)
        setLines(range, to: change.lines)
        invalidateLayouts(range, newCount: change.lines.count)
        cursor = change.cursorBefore
        anchor = nil
        preferredColumn = nil
        coalescing = nil
        revealCursor()
        return reverse
    }

    /// Replaces `range` of lines, records the change for undo (joining the last step when it
    /// continues the same run), and moves the cursor. (Internal: `TextBuffer+Replace.swift` too.)
    mutating func replace(
        lines range: Range<Int>, with newLines: [[Character]], cursor newCursor: Position, kind: ChangeKind, startsStep: Bool = false
    ) {
        redoStack.removeAll()
        let continues = canCoalesce(kind, at: range, newCount: newLines.count, startsStep: startsStep)
        recordEdit(replacing: range, with: newLines, cursor: newCursor, continuesStep: continues)
        if continues {
            undoStack[undoStack.count - 1].cursorAfter = newCursor
            undoStack[undoStack.count - 1].version = nextVersion
        } else {
            undoStack.append(Change(
                firstLine: range.lowerBound, lines: Array(lines[range]), replacedCount: newLines.count,
                cursorBefore: cursor, cursorAfter: newCursor, version: nextVersion))
            if undoStack.count > Self.undoLimit {
                floorVersion = undoStack.removeFirst().version
            }
        }
        nextVersion += 1
        coalescing = kind == .other ? nil : kind
        setLines(range, to: newLines)
        invalidateLayouts(range, newCount: newLines.count)
        cursor = newCursor
        anchor = nil
        preferredColumn = nil
        revealCursor()
    }

    private func canCoalesce(_ kind: ChangeKind, at range: Range<Int>, newCount: Int, startsStep: Bool) -> Bool {
        guard kind != .other, coalescing == kind, let last = undoStack.last,
              range.count == 1, newCount == 1, last.replacedCount == 1, last.lines.count == 1,
              last.firstLine == range.lowerBound, last.cursorAfter == cursor else { return false }
        return !startsStep
    }

    private mutating func invalidateLayouts(_ range: Range<Int>, newCount: Int) {
        if newCount == range.count {
            for line in range { layouts[line] = nil }
        } else {
            layouts.removeAll(keepingCapacity: true)
        }
        if scroll.line >= lines.count { scroll = Row(line: lines.count - 1, row: 0) }
    }
}

extension TextBuffer {
    /// What a recorded change may join.
    enum ChangeKind: Sendable {
        case typing, deleteBackward, deleteForward, other
    }

    /// One undo step: the lines to put back and how many lines they replace.
    struct Change: Sendable {
        var firstLine: Int
        var lines: [[Character]]
        var replacedCount: Int
        var cursorBefore: Position
        var cursorAfter: Position
        /// Names the state after the change, for ``TextBuffer/isModified``.
        var version: Int
    }
}
