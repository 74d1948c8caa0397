// Markdown lists as plain text rules, no parser needed: Enter continues a list item (and ends
// the list on an empty one), Tab and Shift-Tab indent and outdent it, and the task box under
// the cursor toggles between "[ ]" and "[x]".

extension TextBuffer {
    /// A list item's prefix: `- `, `* `, `+ `, `1. ` or `1) `, after an indent, maybe with a
    /// task box (`[ ] `, `[x] `).
    public struct ListItem: Hashable, Sendable {
        /// The blanks before the marker.
        public var indent: String
        /// The bullet (`-`, `*`, `+`), or `nil` for a numbered item.
        public var bullet: Character?
        /// A numbered item's number and delimiter (`.` or `)`).
        public var number: Int?
        public var delimiter: Character?
        /// Where the task box's "[" is, when the item has one.
        public var boxOffset: Int?
        /// Whether the box is ticked.
        public var isDone: Bool
        /// Where the item's own text starts.
        public var contentStart: Int

        /// The prefix of the item after this one: the same indent and bullet, the next number,
        /// an empty box when this one has a box.
        public var nextPrefix: String {
            let marker = number.map { "\($0 + 1)\(delimiter ?? ".") " } ?? "\(bullet ?? "-") "
            return indent + marker + (boxOffset == nil ? "" : "[ ] ")
        }
    }

    /// The list item `line` starts with, if it is one.
    public static func listItem<C: BidirectionalCollection>(in line: C) -> ListItem? where C.Element == Character, C.Index == Int {
        var i = line.startIndex
        while i < line.endIndex, line[i] == " " || line[i] == "\t" { i += 1 }
        let indent = String(line[line.startIndex..<i])
        var item = ListItem(indent: indent, bullet: nil, number: nil, delimiter: nil, boxOffset: nil, isDone: false, contentStart: 0)
        guard i < line.endIndex else { return nil }
        if line[i] == "-" || line[i] == "*" || line[i] == "+" {
            item.bullet = line[i]
            i += 1
        } else {
            var digits = ""
            while i < line.endIndex, let d = line[i].wholeNumberValue, line[i].isASCII, digits.count < 9 {
                digits.append(Character(String(d)))
                i += 1
            }
            guard !digits.isEmpty, i < line.endIndex, line[i] == "." || line[i] == ")" else { return nil }
            item.number = Int(digits)
            item.delimiter = line[i]
            i += 1
        }
        // The marker needs a blank after it ("-x" is text), or the line's end ("-" alone).
        if i < line.endIndex {
            guard line[i] == " " else { return nil }
            i += 1
        }
        if i + 3 <= line.endIndex, line[i] == "[", line[i + 2] == "]",
           line[i + 1] == " " || line[i + 1] == "x" || line[i + 1] == "X",
           i + 3 == line.endIndex || line[i + 3] == " " {
            item.boxOffset = i
            item.isDone = line[i + 1] != " "
            i = Swift.min(line.endIndex, i + 4)
        }
        item.contentStart = i
        return item
    }

    /// Enter on a list item, after its marker: a new item below with the next marker, or on
    /// an empty item, the marker removed (the list ends). Returns false where Enter is a plain
    /// newline (not a list item, the cursor inside the marker, a selection).
    public mutating func insertNewlineInList() -> Bool {
        guard selection == nil, let item = Self.listItem(in: lines[cursor.line]), cursor.offset >= item.contentStart else { return false }
        if item.contentStart >= lines[cursor.line].count {
            replace(lines: cursor.line..<(cursor.line + 1), with: [[]], cursor: Position(line: cursor.line, offset: 0), kind: .other)
        } else {
            replace(cursor..<cursor, with: "\n" + item.nextPrefix)
        }
        return true
    }

    /// Tab on a list item: the whole item moves right by ``tabWidth`` blanks, the cursor with
    /// its text. Returns false on a line that is not a list item.
    public mutating func indentListItem() -> Bool {
        guard Self.listItem(in: lines[cursor.line]) != nil else { return false }
        let blanks = Array(repeating: Character(" "), count: Self.tabWidth)
        replace(lines: cursor.line..<(cursor.line + 1), with: [blanks + lines[cursor.line]],
                cursor: Position(line: cursor.line, offset: cursor.offset + blanks.count), kind: .other)
        return true
    }

    /// Whether Shift-Tab would outdent here: the cursor's line is an indented list item.
    public var canOutdentListItem: Bool {
        Self.listItem(in: lines[cursor.line]).map { !$0.indent.isEmpty } ?? false
    }

    /// Shift-Tab on an indented list item: up to ``tabWidth`` blanks (or one tab) go from its
    /// start. Returns false on a line that is not a list item or has no indent.
    public mutating func outdentListItem() -> Bool {
        let line = lines[cursor.line]
        guard canOutdentListItem else { return false }
        var count = 0
        if line[0] == "\t" {
            count = 1
        } else {
            while count < Self.tabWidth, count < line.count, line[count] == " " { count += 1 }
        }
        replace(lines: cursor.line..<(cursor.line + 1), with: [Array(line[count...])],
                cursor: Position(line: cursor.line, offset: Swift.max(0, cursor.offset - count)), kind: .other)
        return true
    }

    /// Ticks or clears the task box of the list item under the cursor (`- [ ]` ↔ `- [x]`); a
    /// list item without a box gets an empty one. Returns false on a line that is not a list item.
    public mutating func toggleTask() -> Bool {
        let line = lines[cursor.line]
        guard let item = Self.listItem(in: line) else { return false }
        var newLine = line
        var offset = cursor.offset
        if let box = item.boxOffset {
            newLine[box + 1] = item.isDone ? " " : "x"
        } else {
            let at = item.contentStart
            newLine.insert(contentsOf: Array("[ ] "), at: at)
            if offset >= at { offset += 4 }
        }
        replace(lines: cursor.line..<(cursor.line + 1), with: [newLine], cursor: Position(line: cursor.line, offset: offset), kind: .other)
        return true
    }
}
