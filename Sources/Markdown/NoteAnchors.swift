import CCmarkGFM
import Foundation

/// The places a link's ``NoteLink/fragment`` names in a note, as Obsidian finds them:
/// a heading by its text (`[[Trip#Day 2]]`; `[[Trip#Days#Day 2]]` names the last heading, "Day
/// 2"), compared without case and with runs of spaces as one; a block by the `^id` at the end
/// of its last line (`[[Trip#^plan]]` and a paragraph or list item ending in ` ^plan`). Code and
/// front matter hold no places.
public enum NoteAnchors {
    /// A heading of a note: its line (from 0), level (1…6) and text without its Markdown.
    public struct Heading: Hashable, Sendable {
        public var line: Int
        public var level: Int
        public var text: String
    }

    /// The headings of `text`, top to bottom.
    public static func headings(in text: String) -> [Heading] {
        var text = text
        return text.withUTF8 { bytes in
            var found: [Heading] = []
            // cmark ends a line at a lone CR too; a heading's line is counted in LFs, as the editor's.
            var last = 0
            for byte in bytes where byte == 0x0A { last += 1 }
            MarkdownParser.withDocument(ofUTF8: bytes) { document in
                guard let iterator = cmark_iter_new(document) else { return }
                defer { cmark_iter_free(iterator) }
                while true {
                    let event = cmark_iter_next(iterator)
                    if event == BC_CMARK_EVENT_DONE { break }
                    guard event == BC_CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator),
                          cmark_node_get_type(node) == BC_CMARK_NODE_HEADING else { continue }
                    found.append(Heading(line: min(last, Int(cmark_node_get_start_line(node)) - 1), level: Int(cmark_node_get_heading_level(node)),
                                         text: LinkWalker.plainText(of: node)))
                }
            }
            return found
        }
    }

    /// The line (from 0) `fragment` names in `text`: a heading's line, or the last line of the
    /// block a `^id` ends; nil when there is none such.
    public static func line(of fragment: String, in text: String) -> Int? {
        if fragment.hasPrefix("^") { return blockLine(id: String(fragment.dropFirst()), in: text) }
        return heading(fragment, in: text)?.line
    }

    /// The heading `fragment` names (the last of `A#B` parts), the first of several alike.
    public static func heading(_ fragment: String, in text: String) -> Heading? {
        let wanted = comparable(fragment.split(separator: "#").last.map(String.init) ?? fragment)
        guard !wanted.isEmpty else { return nil }
        return headings(in: text).first { comparable($0.text) == wanted }
    }

    /// The part of `text` that `fragment` names, as `![[Note#Heading]]` embeds it: a heading
    /// with everything under it up to the next heading of its level or above; a block's lines
    /// (the paragraph, or the one list item line, that ends in its `^id`). Nil when not found.
    public static func section(_ fragment: String, in text: String) -> String? {
        // By LF bytes, as cmark and the editor count lines ("\r\n" is one Character: never split at "\n").
        let lines = text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).map { Substring(String(decoding: $0, as: UTF8.self)) }
        if fragment.hasPrefix("^") {
            guard let last = blockLine(id: String(fragment.dropFirst()), in: text), lines.indices.contains(last) else { return nil }
            // A list item's line, else the paragraph the parser says holds the id's line.
            let first = isListItem(lines[last]) ? last : min(last, max(0, paragraphStart(holding: last, in: text) ?? last))
            return lines[first...last].joined(separator: "\n")
        }
        let all = headings(in: text)
        let wanted = comparable(fragment.split(separator: "#").last.map(String.init) ?? fragment)
        guard let index = all.firstIndex(where: { comparable($0.text) == wanted }) else { return nil }
        let start = all[index].line
        let end = all[(index + 1)...].first { $0.level <= all[index].level }?.line ?? lines.count
        guard start < end, end <= lines.count else { return nil }
        return lines[start..<end].joined(separator: "\n")
    }

    /// The line ending with ` ^id` (or holding only `^id`), outside code and front matter.
    public static func blockLine(id: String, in text: String) -> Int? {
        let wanted = id.lowercased()
        guard !wanted.isEmpty, wanted.utf8.allSatisfy(isIDByte) else { return nil }
        var text = text
        return text.withUTF8 { bytes in
            var lineStarts = [0]
            for i in 0..<bytes.count where bytes[i] == 0x0A { lineStarts.append(i + 1) }
            var walker = LinkWalker(lineCount: lineStarts.count)
            MarkdownParser.withDocument(ofUTF8: bytes) { walker.walk($0) }
            let bodyLine = NoteFrontMatter.fence(in: bytes)?.bodyLine ?? 0
            for line in lineStarts.indices where line >= bodyLine && !walker.codeLines.contains(line) {
                let end = line + 1 < lineStarts.count ? lineStarts[line + 1] - 1 : bytes.count
                if let found = trailingID(Array(bytes[lineStarts[line]..<end])), found.lowercased() == wanted { return line }
            }
            return nil
        }
    }

    /// The `^id` a line ends with (after a space, or alone), without its caret.
    static func trailingID(_ line: [UInt8]) -> String? {
        var end = line.count
        while end > 0, line[end - 1] == 0x20 || line[end - 1] == 0x09 || line[end - 1] == 0x0D { end -= 1 }
        var start = end
        while start > 0, isIDByte(line[start - 1]) { start -= 1 }
        guard start < end, start > 0, line[start - 1] == UInt8(ascii: "^") else { return nil }
        let caret = start - 1
        guard caret == 0 || line[caret - 1] == 0x20 || line[caret - 1] == 0x09 else { return nil }
        return String(decoding: line[start..<end], as: UTF8.self)
    }

    static func isIDByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "-")
    }

    /// The first line of the innermost paragraph that holds `line`.
    private static func paragraphStart(holding line: Int, in text: String) -> Int? {
        var text = text
        return text.withUTF8 { bytes in
            var start: Int?
            MarkdownParser.withDocument(ofUTF8: bytes) { document in
                guard let iterator = cmark_iter_new(document) else { return }
                defer { cmark_iter_free(iterator) }
                while true {
                    let event = cmark_iter_next(iterator)
                    if event == BC_CMARK_EVENT_DONE { break }
                    guard event == BC_CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator),
                          cmark_node_get_type(node) == BC_CMARK_NODE_PARAGRAPH else { continue }
                    let first = Int(cmark_node_get_start_line(node)) - 1, last = Int(cmark_node_get_end_line(node)) - 1
                    if first <= line, line <= last, first >= (start ?? -1) { start = first }
                }
            }
            return start
        }
    }

    private static func isListItem(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" || $0 == ">" }
        if trimmed.hasPrefix("- ") || trimmed.hasPrefix("* ") || trimmed.hasPrefix("+ ") { return true }
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        return !digits.isEmpty && (trimmed.dropFirst(digits.count).hasPrefix(". ") || trimmed.dropFirst(digits.count).hasPrefix(") "))
    }

    /// A heading's text as links name it: lower case, trimmed, runs of spaces as one, and the
    /// characters a link cannot hold (`# | ^ : % [ ]`, which Obsidian leaves out of the link it
    /// writes for a heading, "Day 2: Swim" → `[[Trip#Day 2 Swim]]`) as spaces.
    static func comparable(_ text: String) -> String {
        text.lowercased().split(whereSeparator: { " \t#|^:%[]".contains($0) }).joined(separator: " ")
    }
}
