// Replacing the whole text with another version of it (a merge), as one undo step.

extension TextBuffer {
    /// Replaces the text with `text` as one undo step that touches only the lines between the
    /// common head and tail (their layout stays cached, and Ctrl-Z puts the old text back).
    ///
    /// The cursor keeps its line when that line is in the head, follows it when it is in the
    /// tail, and goes to the start of the changed lines otherwise.
    public mutating func replaceText(with text: String) {
        var newLines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array(Substring($0)) }
        if newLines.isEmpty { newLines = [[]] }
        var head = 0
        while head < lines.count, head < newLines.count, Self.same(lines[head], newLines[head]) { head += 1 }
        if head == lines.count, head == newLines.count { return }
        var tail = 0
        while tail < lines.count - head, tail < newLines.count - head, Self.same(lines[lines.count - 1 - tail], newLines[newLines.count - 1 - tail]) {
            tail += 1
        }
        let range = head..<(lines.count - tail)
        let replacement = Array(newLines[head..<(newLines.count - tail)])
        var newCursor: Position
        if cursor.line < head {
            newCursor = cursor
        } else if cursor.line >= lines.count - tail {
            newCursor = Position(line: cursor.line + newLines.count - lines.count, offset: cursor.offset)
        } else {
            newCursor = Position(line: min(head, newLines.count - 1), offset: 0)
        }
        newCursor.offset = min(newCursor.offset, newLines[newCursor.line].count)
        replace(lines: range, with: replacement, cursor: newCursor, kind: .other)
    }

    /// Byte-for-byte equal lines (`Character ==` calls "é" and "e\u{301}" equal; a file does not).
    private static func same(_ a: [Character], _ b: [Character]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { $0.unicodeScalars.elementsEqual($1.unicodeScalars) }
    }
}
