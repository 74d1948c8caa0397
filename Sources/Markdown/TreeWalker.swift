import CCmarkGFM
#if canImport(Glibc)
import Glibc
#endif

/// Walks a cmark-gfm document and turns its nodes' source positions into ``MarkdownSpan``s.
///
/// cmark reports positions as 1-based lines and 1-based, inclusive byte columns. Block nodes
/// cover whole stretches of lines; inline nodes carry positions too, except the links the GFM
/// autolink extension makes after parsing (they report line 0), which are found from the last
/// positioned node before them by their own text.
struct TreeWalker {
    let bytes: UnsafeBufferPointer<UInt8>
    let lineStarts: [Int]
    let lineLengths: [Int]
    private(set) var result: MarkdownHighlights
    /// The last node with a position, where an autolink without one is looked for.
    private var lastKnown: (line: Int, column: Int) = (0, 0)

    init(bytes: UnsafeBufferPointer<UInt8>, lineStarts: [Int], lineLengths: [Int]) {
        self.bytes = bytes
        self.lineStarts = lineStarts
        self.lineLengths = lineLengths
        result = MarkdownHighlights(lineCount: lineStarts.count)
    }

    mutating func walk(_ document: OpaquePointer) {
        guard let iterator = cmark_iter_new(document) else { return }
        defer { cmark_iter_free(iterator) }
        while true {
            let event = cmark_iter_next(iterator)
            if event == BC_CMARK_EVENT_DONE { break }
            guard event == BC_CMARK_EVENT_ENTER, let node = cmark_iter_get_node(iterator) else { continue }
            visit(node)
        }
    }

    private mutating func visit(_ node: OpaquePointer) {
        let type = cmark_node_get_type(node)
        let startLine = Int(cmark_node_get_start_line(node)) - 1
        let startColumn = Int(cmark_node_get_start_column(node)) - 1
        if startLine >= 0 { lastKnown = (startLine, max(0, startColumn)) }
        switch type {
        case BC_CMARK_NODE_HEADING: cover(node, .heading, toLineEnd: true)
        case BC_CMARK_NODE_CODE_BLOCK: cover(node, .codeBlock, toLineEnd: true)
        case BC_CMARK_NODE_THEMATIC_BREAK: cover(node, .thematicBreak, toLineEnd: true)
        case BC_CMARK_NODE_BLOCK_QUOTE: cover(node, .blockQuote)
        case BC_CMARK_NODE_EMPH: cover(node, .emphasis)
        case BC_CMARK_NODE_STRONG: cover(node, .strong)
        case BC_CMARK_NODE_CODE: cover(node, .code, widenOver: UInt8(ascii: "`"))
        case BC_CMARK_NODE_LINK, BC_CMARK_NODE_IMAGE:
            if startLine >= 0 { cover(node, .link) } else { findAutolink(node) }
        case BC_CMARK_NODE_ITEM where cmark_node_get_syntax_extension(node) == nil: marker(of: node)
        default:
            // Extension nodes have types assigned at registration: name them by their strings
            // (only those: most nodes are text, and naming each would cost a string apiece).
            guard cmark_node_get_syntax_extension(node) != nil, let name = cmark_node_get_type_string(node) else { return }
            if strcmp(name, "table") == 0 {
                cover(node, .table, toLineEnd: true)
            } else if strcmp(name, "table_header") == 0 {
                cover(node, .tableHeader, toLineEnd: true)
            } else if strcmp(name, "strikethrough") == 0 {
                cover(node, .strikethrough)
            } else if strcmp(name, "tasklist") == 0 {
                marker(of: node, isTask: true)
            }
        }
    }

    /// Spans for the node's source range: from its start column on its first line to its end
    /// column on its last, whole lines between. `toLineEnd` takes the last line to its end (an
    /// ATX heading's closing `#`s are outside its range); `widenOver` widens a one-line range
    /// over that delimiter on both sides (a code span's range is its content, not its backticks).
    private mutating func cover(_ node: OpaquePointer, _ element: MarkdownElement, toLineEnd: Bool = false, widenOver delimiter: UInt8? = nil) {
        let first = Int(cmark_node_get_start_line(node)) - 1
        var last = Int(cmark_node_get_end_line(node)) - 1
        guard first >= 0, first < lineLengths.count else { return }
        var endColumn = Int(cmark_node_get_end_column(node))  // inclusive 1-based = exclusive 0-based
        // A block that ends with a line break reports column 0 of the next line: end at the line before.
        if endColumn <= 0, last > first {
            last -= 1
            endColumn = lineLengths[last]
        }
        last = min(last, lineLengths.count - 1)
        var startColumn = max(0, Int(cmark_node_get_start_column(node)) - 1)
        if toLineEnd { endColumn = lineLengths[last] }
        if let delimiter, first == last {
            let base = lineStarts[first]
            while startColumn > 0, bytes[base + startColumn - 1] == delimiter { startColumn -= 1 }
            while endColumn < lineLengths[first], bytes[base + endColumn] == delimiter { endColumn += 1 }
        }
        for line in first...max(first, last) {
            let from = line == first ? startColumn : 0
            let to = line == last ? min(endColumn, lineLengths[line]) : lineLengths[line]
            if from < to { result.add(MarkdownSpan(line: line, bytes: from..<to, element: element)) }
        }
    }

    /// A list item's marker (`-`, `1.`), and a task item's box after it.
    private mutating func marker(of item: OpaquePointer, isTask: Bool = false) {
        let line = Int(cmark_node_get_start_line(item)) - 1
        let column = Int(cmark_node_get_start_column(item)) - 1
        guard line >= 0, line < lineLengths.count, column >= 0 else { return }
        let start = lineStarts[line], length = lineLengths[line]
        var end = column
        let first = end < length ? bytes[start + end] : 0
        if first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: "*") {
            end += 1
        } else {
            while end < length, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[start + end]) { end += 1 }
            if end < length, bytes[start + end] == UInt8(ascii: ".") || bytes[start + end] == UInt8(ascii: ")") { end += 1 }
        }
        guard end > column else { return }
        result.add(MarkdownSpan(line: line, bytes: column..<end, element: .listMarker))
        // The tasklist extension consumed "[ ]" or "[x]" between the marker and the item's text.
        guard isTask else { return }
        var open = end
        while open < length, bytes[start + open] == UInt8(ascii: " ") || bytes[start + open] == UInt8(ascii: "\t") { open += 1 }
        if open + 2 < length, bytes[start + open] == UInt8(ascii: "["), bytes[start + open + 2] == UInt8(ascii: "]") {
            result.add(MarkdownSpan(line: line, bytes: open..<(open + 3), element: .taskBox))
        }
    }

    /// A GFM autolink (`https://…`, `www.…`, an e-mail address): the extension makes it after
    /// parsing, without a position, so its text is looked for on the line of the last node that
    /// had one, from that node's column on.
    private mutating func findAutolink(_ link: OpaquePointer) {
        guard let child = cmark_node_first_child(link), let literal = cmark_node_get_literal(child) else { return }
        let needle = Array(String(cString: literal).utf8)
        let (line, column) = lastKnown
        guard !needle.isEmpty, line < lineLengths.count else { return }
        let start = lineStarts[line], length = lineLengths[line]
        var i = column
        while i + needle.count <= length {
            if bytes[start + i] == needle[0], (0..<needle.count).allSatisfy({ bytes[start + i + $0] == needle[$0] }) {
                result.add(MarkdownSpan(line: line, bytes: i..<(i + needle.count), element: .link))
                lastKnown = (line, i + needle.count)
                return
            }
            i += 1
        }
    }
}
