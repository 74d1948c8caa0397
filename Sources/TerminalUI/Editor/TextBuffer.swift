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
/// "hello " and "world". A run of Backspaces, Ctrl-Ws and Ctrl-Us (or of Deletes and Alt-Ds)
/// within a line is one step. A newline, a paste (any multi-character ``insert(_:)``), Ctrl-K,
/// joining lines, replacing a span (TextBuffer+Selection.swift), a cursor move, an undo or
/// ``markSaved()`` ends the run. A new change clears the redo history.
///
/// **Selection.** ``anchor`` and the cursor bound it; see TextBuffer+Selection.swift.
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
        /// The `Character` offsets of the line the row shows, `start..<end`.
        public var start: Int
        public var end: Int
    }

    /// The columns a tab takes.
    public static let tabWidth = 4

    // The state below is internal rather than private only because the editing, moving and
    // layout extensions live in their own files; nothing outside this type touches it.

    /// The text, one array of clusters per line (in chunks: ``LineStore``).
    var lines: LineStore
    /// Each line's length in UTF-16 units, kept with `lines` (``setLines(_:to:)``): a live note
    /// places edits by UTF-16 offset, found by summing these rather than walking the text.
    var lineUnits: [Int]
    /// The last edits made (at most ``editLogLimit``), for ``edits(since:)``.
    var recentEdits: [TextEdit] = []
    /// How many edits this buffer has made since it was created (TextBuffer+EditLog.swift).
    public internal(set) var editCount = 0
    /// Tells this buffer's edits from another's: a reader of ``edits(since:)`` that finds a new
    /// lineage (the note reloaded, a merge's text put in) compares whole texts once.
    public let lineage = UInt64.random(in: 1...UInt64.max)
    /// Where the cursor is.
    public internal(set) var cursor = Position(line: 0, offset: 0)
    /// Where the selection began: the text between it and the cursor is selected (Shift + a
    /// move, a drag). A plain move, an edit, an undo clear it (TextBuffer+Selection.swift).
    public internal(set) var anchor: Position?
    /// The first row shown.
    public internal(set) var scroll = Row(line: 0, row: 0)
    /// The column text wraps at; set with ``setViewport(width:height:)``.
    public internal(set) var wrapWidth = 80
    /// The rows shown, for scrolling and page moves; set with ``setViewport(width:height:)``.
    public internal(set) var viewHeight = 24
    /// Whether long lines wrap (the default) or run on past the view's right edge, which then
    /// scrolls sideways to keep the cursor in view (``firstColumn``).
    public internal(set) var softWrap = true
    /// With ``softWrap`` off, the first display column shown; 0 otherwise.
    public internal(set) var firstColumn = 0
    /// The view's width in columns, as ``setViewport(width:height:softWrap:)`` was given it.
    var viewWidth = 80

    /// The display column vertical moves aim for, kept over a run of them.
    var preferredColumn: Int?
    var layouts: [Int: LineLayout] = [:]

    var undoStack: [Change] = []
    var redoStack: [Change] = []
    /// The kind of the last change while the next one may still join it.
    var coalescing: ChangeKind?
    var nextVersion = 1
    /// The state at the bottom of the undo stack (its oldest entries are dropped past ``undoLimit``).
    var floorVersion = 0
    private var savedVersion = 0

    /// How many undo steps are kept.
    public static let undoLimit = 2_000

    /// A buffer holding `text`, the cursor at its start, unmodified.
    public init(text: String = "") {
        var text = text
        var lines: [[Character]] = []
        var lineUnits: [Int] = []
        text.withUTF8 { bytes in
            var start = 0
            func take(_ end: Int) {
                let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if let ascii = Self.asciiLine(line) {
                    lines.append(ascii)
                    lineUnits.append(line.count)
                } else {
                    let string = String(decoding: line, as: UTF8.self)
                    lines.append(Array(string))
                    lineUnits.append(string.utf16.count)
                }
                start = end + 1
            }
            var at = 0
            while at < bytes.count {
                if bytes[at] == 0x0A { take(at) }
                at += 1
            }
            take(bytes.count)
        }
        self.lines = LineStore(lines)
        self.lineUnits = lineUnits
    }

    /// Each ASCII character as a `Character`, to copy rather than make.
    private static let asciiCharacters: [Character] = (0..<128).map { Character(Unicode.Scalar(UInt8($0))) }

    /// A line of ASCII bytes as its characters, one a byte (no two ASCII characters make one
    /// cluster but CR LF, which a line never holds); nil when the line has any other byte.
    /// Breaking a 1 MiB note into clusters the general way took 90 ms of its open (perf).
    private static func asciiLine(_ bytes: UnsafeBufferPointer<UInt8>) -> [Character]? {
        for byte in bytes where byte >= 0x80 { return nil }
        return asciiCharacters.withUnsafeBufferPointer { table in
            Array(unsafeUninitializedCapacity: bytes.count) { buffer, count in
                for (index, byte) in bytes.enumerated() { (buffer.baseAddress! + index).initialize(to: table[Int(byte)]) }
                count = bytes.count
            }
        }
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
}
