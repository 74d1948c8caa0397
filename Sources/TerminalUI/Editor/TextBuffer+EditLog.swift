// The buffer's edits as operations on its text, for a live note's shared document: the exact
// change each key made, so the document never recovers it by diffing the whole text.

/// One change of a ``TextBuffer``'s text: UTF-16 ``range`` of the text as it was, replaced by
/// ``text``.
public struct TextEdit: Sendable, Equatable {
    public var range: Range<Int>
    public var text: String
    /// Another writer's edit, taken in with ``TextBuffer/applyShared(_:with:)``: it is in their
    /// shared document already.
    public var isShared: Bool
    /// The edit joined the editor's last undo step (a typed run, a run of Backspaces): the shared
    /// document joins it to its own last step too, so one undo takes the run back.
    public var continuesStep: Bool

    public init(range: Range<Int>, text: String, isShared: Bool = false, continuesStep: Bool = false) {
        self.range = range
        self.text = text
        self.isShared = isShared
        self.continuesStep = continuesStep
    }

    /// `edit` applied to `text` (a test's model of the buffer; linear in the text).
    public static func applying(_ edits: some Sequence<TextEdit>, to text: String) -> String {
        var units = Array(text.utf16)
        for edit in edits { units.replaceSubrange(edit.range, with: Array(edit.text.utf16)) }
        return String(decoding: units, as: UTF16.self)
    }
}

extension TextBuffer {
    /// How many edits are kept for ``edits(since:)``: a reader that falls further behind (it
    /// never should: a live note reads them after every key) compares whole texts once.
    static let editLogLimit = 64

    /// The edits made since ``editCount`` was `count`, in order; nil when they are no longer all
    /// kept. Each edit's range is in the text as the edit before it left it.
    public func edits(since count: Int) -> ArraySlice<TextEdit>? {
        guard count <= editCount else { return nil }
        let first = editCount - recentEdits.count
        guard count >= first else { return nil }
        return recentEdits[(count - first)...]
    }

    /// Records that `range` of lines, starting at UTF-16 offset `start`, became `newLines`: the
    /// smallest replacement of text that does it (their common ends kept), placed at `cursor` (the
    /// cursor after the edit) where the text alone is ambiguous ("a" typed into "aa").
    ///
    /// Called before `lines` changes. Linear in the lines replaced, not in the text.
    mutating func recordEdit(replacing range: Range<Int>, with newLines: [[Character]], cursor newCursor: Position, continuesStep: Bool) {
        var start = lineStart(range.lowerBound)
        var old = Self.units(of: lines[range]), new = Self.units(of: newLines[...])
        // A line removed or added whole takes a line break with it: the one after it, or for the
        // last line the one before.
        var breakBefore = 0
        if newLines.isEmpty, !range.isEmpty {
            if range.upperBound < lines.count { old.append(0x0A) } else if range.lowerBound > 0 { old.insert(0x0A, at: 0); start -= 1 }
        } else if range.isEmpty, !newLines.isEmpty {
            if range.lowerBound < lines.count {
                new.append(0x0A)
            } else if range.lowerBound > 0 {
                new.insert(0x0A, at: 0)
                start -= 1
                breakBefore = 1
            }
        }
        var head = 0
        while head < old.count, head < new.count, old[head] == new[head] { head += 1 }
        // Where the cursor ends, in `new`: the inserted text ends there, so the common start may
        // not reach past it less what was inserted.
        if newCursor.line >= range.lowerBound, newCursor.line < range.lowerBound + newLines.count {
            var at = breakBefore
            for line in newLines[..<(newCursor.line - range.lowerBound)] { at += Self.units(of: line) + 1 }
            for character in newLines[newCursor.line - range.lowerBound].prefix(newCursor.offset) { at += character.utf16.count }
            head = Swift.min(head, Swift.max(0, at - Swift.max(0, new.count - old.count)))
        }
        var tail = 0
        while tail < old.count - head, tail < new.count - head, old[old.count - 1 - tail] == new[new.count - 1 - tail] { tail += 1 }
        // Never half a surrogate pair: an emoji's first unit shared with another's is kept whole.
        if head > 0, UTF16.isLeadSurrogate(new[head - 1]) { head -= 1 }
        if tail > 0, UTF16.isTrailSurrogate(new[new.count - tail]) { tail -= 1 }
        guard head < old.count - tail || head < new.count - tail else { return }
        log(TextEdit(
            range: (start + head)..<(start + old.count - tail),
            text: String(decoding: new[head..<(new.count - tail)], as: UTF16.self),
            continuesStep: continuesStep))
    }

    /// Appends `edit` to the log, dropping the oldest past ``editLogLimit``.
    mutating func log(_ edit: TextEdit) {
        if recentEdits.count == Self.editLogLimit { recentEdits.removeFirst() }
        recentEdits.append(edit)
        editCount += 1
    }

    /// Replaces `range` of `lines` (and of their UTF-16 counts) with `newLines`.
    mutating func setLines(_ range: Range<Int>, to newLines: [[Character]]) {
        lines.replaceSubrange(range, with: newLines)
        lineUnits.replaceSubrange(range, with: newLines.map(Self.units(of:)))
    }

    /// The UTF-16 offset where line `index` begins: a sum over the lines' kept counts.
    func lineStart(_ index: Int) -> Int {
        var offset = index
        for line in 0..<index { offset += lineUnits[line] }
        return offset
    }

    static func units(of line: [Character]) -> Int {
        line.reduce(0) { $0 + $1.utf16.count }
    }

    /// The lines joined with "\n", as UTF-16.
    static func units(of lines: some Collection<[Character]>) -> [UInt16] {
        var units: [UInt16] = []
        for (i, line) in lines.enumerated() {
            if i > 0 { units.append(0x0A) }
            for character in line { units.append(contentsOf: character.utf16) }
        }
        return units
    }
}
