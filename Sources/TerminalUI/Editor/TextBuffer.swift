/// A multi-line text being edited: its lines, a cursor, soft-wrap layout, a scroll position and
/// undo history, as one value.
///
/// **Storage.** The text is an array of lines, each an array of `Character`s (grapheme
/// clusters), split at "\n" only (a CR stays in its line, so text round-trips byte for byte).
/// An edit replaces the few lines it touches, so typing into a 20,000-line note copies one line,
/// not the note.
///
/// **Cursor.** A ``Position``: a line and a `Character` offset in it. Backspace and Delete
/// remove whole clusters ("é" written as e + U+0301, a ZWJ family, a flag), and no move lands
/// inside one. Moves:
/// - left/right step one cluster and cross line ends;
/// - up/down step one *visual* row under soft wrap, keeping a preferred display column across
///   a run of vertical moves; up on the first row goes to the start of the text, down on the
///   last row to its end;
/// - Home/End (``moveToLineStart()``, ``moveToLineEnd()``) go to the ends of the *line*, not of
///   the wrapped row: predictable whatever the width;
/// - page up/down move by the view height less one row, scrolling the view with the cursor;
/// - word moves stop at the start (left) or end (right) of a word: letters, digits and "_".
///
/// **Layout.** Text wraps at ``wrapWidth`` columns (from ``TextWidth``, so CJK and most emoji
/// take 2): at the last space or tab of a row when there is one, else before the cluster that
/// does not fit, so a wide character never straddles the edge. A line that exactly fills its
/// last row gets one more, empty row, where the cursor at its end is shown. A tab is drawn as
/// ``tabWidth`` blanks. Only lines that are looked at are wrapped, and their layout is cached
/// until the line changes or the width does.
///
/// **Scrolling.** ``scroll`` is the first visible row as an anchor (a line and a wrapped row
/// within it), never an absolute row number, so no keystroke wraps the whole text: keeping the
/// cursor visible walks at most a screenful of rows from the anchor.
///
/// **Undo.** Each change records the lines it replaced and the cursor before and after, so
/// ``undo()`` and ``redo()`` restore both. Typing is coalesced into words: typed characters
/// join the previous step on the same line, except that a letter, digit or "_" typed after any
/// other character (a space, say) starts a new step; so typing "hello world" makes the steps
/// "hello " and "world". A run of Backspaces (or of Deletes) within a line is one step. A newline,
/// a paste (any multi-character ``insert(_:)``), Ctrl-K, joining lines, a cursor move, an undo or
/// ``markSaved()`` ends the run. A new change clears the redo history.
///
/// **Modified.** ``isModified`` compares the current undo state with the one at the last
/// ``markSaved()`` (or creation): undoing back to the saved state counts as unmodified.
///
/// Two buffers are equal (`==`) when their text (by `String`'s canonical equivalence) and cursor
/// are; history, scroll and layout are not compared.
public struct TextBuffer: Sendable, Equatable {
    /// A place in the text: a line (from 0) and a `Character` offset in it (`0...count`).
    public struct Position: Hashable, Sendable, Comparable, CustomStringConvertible {
        public var line: Int
        public var offset: Int

        public init(line: Int, offset: Int) {
            self.line = line
            self.offset = offset
        }

        public static func < (a: Position, b: Position) -> Bool {
            (a.line, a.offset) < (b.line, b.offset)
        }

        public var description: String { "\(line):\(offset)" }
    }

    /// A visual row: a line and one of the rows it wraps into (from 0).
    public struct Row: Hashable, Sendable, Comparable, CustomStringConvertible {
        public var line: Int
        public var row: Int

        public init(line: Int, row: Int) {
            self.line = line
            self.row = row
        }

        public static func < (a: Row, b: Row) -> Bool { (a.line, a.row) < (b.line, b.row) }

        public var description: String { "\(line).\(row)" }
    }

    /// One row of the view, ready to draw.
    public struct VisibleRow: Hashable, Sendable {
        /// Which line and wrapped row this is.
        public var position: Row
        /// The row's text, tabs expanded to blanks.
        public var text: String
    }

    /// The columns a tab takes.
    public static let tabWidth = 4

    private var lines: [[Character]]
    /// Where the cursor is.
    public private(set) var cursor = Position(line: 0, offset: 0)
    /// The first row shown.
    public private(set) var scroll = Row(line: 0, row: 0)
    /// The column text wraps at; set with ``setViewport(width:height:)``.
    public private(set) var wrapWidth = 80
    /// The rows shown, for scrolling and page moves; set with ``setViewport(width:height:)``.
    public private(set) var viewHeight = 24

    /// The display column vertical moves aim for, kept over a run of them.
    private var preferredColumn: Int?
    private var layouts: [Int: LineLayout] = [:]

    private var undoStack: [Change] = []
    private var redoStack: [Change] = []
    /// The kind of the last change while the next one may still join it.
    private var coalescing: ChangeKind?
    private var nextVersion = 1
    /// The state at the bottom of the undo stack (its oldest entries are dropped past ``undoLimit``).
    private var floorVersion = 0
    private var savedVersion = 0

    /// How many undo steps are kept.
    public static let undoLimit = 2_000

    /// A buffer holding `text`, the cursor at its start, unmodified.
    public init(text: String = "") {
        lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array(Substring($0)) }
        if lines.isEmpty { lines = [[]] }
    }

    public static func == (a: TextBuffer, b: TextBuffer) -> Bool {
        a.cursor == b.cursor && a.lines == b.lines
    }

    // MARK: - Reading

    /// The whole text, lines joined with "\n".
    public var text: String {
        var result = ""
        result.reserveCapacity(lines.reduce(lines.count) { $0 + $1.count })
        for (i, line) in lines.enumerated() {
            if i > 0 { result.append("\n") }
            for c in line { result.append(c) }
        }
        return result
    }

    /// How many lines there are (an empty text has one, empty).
    public var lineCount: Int { lines.count }

    /// The text of line `index`.
    public func line(_ index: Int) -> String { String(lines[index]) }

    /// How many `Character`s line `index` has.
    public func lineLength(_ index: Int) -> Int { lines[index].count }

    /// Whether the text is just one empty line.
    public var isEmpty: Bool { lines.count == 1 && lines[0].isEmpty }

    /// Whether the text differs from its state at the last ``markSaved()`` (or creation).
    public var isModified: Bool { currentVersion != savedVersion }

    public var canUndo: Bool { !undoStack.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }

    /// Takes the current text as the saved one, for ``isModified``.
    public mutating func markSaved() {
        savedVersion = currentVersion
        coalescing = nil
    }

    private var currentVersion: Int { undoStack.last?.version ?? floorVersion }

    // MARK: - Editing

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
        lines.replaceSubrange(range, with: change.lines)
        invalidateLayouts(range, newCount: change.lines.count)
        cursor = change.cursorBefore
        preferredColumn = nil
        coalescing = nil
        revealCursor()
        return reverse
    }

    /// Replaces `range` of lines, records the change for undo (joining the last step when it
    /// continues the same run), and moves the cursor.
    private mutating func replace(
        lines range: Range<Int>, with newLines: [[Character]], cursor newCursor: Position, kind: ChangeKind, startsStep: Bool = false
    ) {
        redoStack.removeAll()
        if canCoalesce(kind, at: range, newCount: newLines.count, startsStep: startsStep) {
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
        lines.replaceSubrange(range, with: newLines)
        invalidateLayouts(range, newCount: newLines.count)
        cursor = newCursor
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

    // MARK: - Moving

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
        preferredColumn = nil
        coalescing = nil
        revealCursor()
    }

    static func isWordCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

    // MARK: - Layout and scrolling

    /// Sets the wrap width and the rows shown (the view does this before it draws), then
    /// scrolls to keep the cursor visible.
    public mutating func setViewport(width: Int, height: Int) {
        let width = max(1, width)
        if width != wrapWidth {
            wrapWidth = width
            layouts.removeAll(keepingCapacity: true)
            preferredColumn = nil
        }
        viewHeight = max(1, height)
        revealCursor()
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
    public mutating func cursorInView() -> Point? {
        let (row, column) = cursorPlacement()
        guard row >= scroll else { return nil }
        var position = scroll
        var y = 0
        while position < row, y < viewHeight {
            position = step(position, by: 1).row
            y += 1
        }
        return position == row && y < viewHeight ? Point(x: column, y: y) : nil
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
            result.append(VisibleRow(position: position, text: text))
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
    private mutating func revealCursor() {
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
    private mutating func step(_ position: Row, by count: Int) -> (row: Row, moved: Int) {
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
    private mutating func offset(forColumn column: Int, in row: Row) -> Int {
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

    private mutating func layout(ofLine index: Int) -> LineLayout {
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
