import CCmarkGFM

/// What a stretch of Markdown source is, as the parser saw it: each gets a style of its own
/// from the theme.
public enum MarkdownElement: UInt8, Hashable, Sendable, CaseIterable {
    /// An ATX (`# …`) or setext heading, its whole lines.
    case heading
    /// `*em*` or `_em_`, its delimiters included.
    case emphasis
    /// `**strong**`.
    case strong
    /// `~~struck~~` (GFM).
    case strikethrough
    /// `` `code` ``, its backticks included.
    case code
    /// A fenced or indented code block, its fences and info string included.
    case codeBlock
    /// `[text](url)`, `<url>`, a bare GFM autolink, or an image `![alt](src)`.
    case link
    /// A list item's `-`, `*`, `+`, `1.` or `1)`.
    case listMarker
    /// A GFM task item's `[ ]` or `[x]`.
    case taskBox
    /// A block quote, its `>` markers and text.
    case blockQuote
    /// A GFM table's rows (the delimiter row included).
    case table
    /// A GFM table's header row.
    case tableHeader
    /// `---`, `***` or `___`.
    case thematicBreak
    /// A line of the YAML front matter at the top (``NoteFrontMatter``), its fences included.
    case frontMatter
}

/// One styled stretch of one line: the line (from 0) and a range of UTF-8 byte offsets in it.
public struct MarkdownSpan: Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var bytes: Range<Int>
    public var element: MarkdownElement

    public init(line: Int, bytes: Range<Int>, element: MarkdownElement) {
        self.line = line
        self.bytes = bytes
        self.element = element
    }

    public var description: String { "\(element) \(line):\(bytes.lowerBound)..<\(bytes.upperBound)" }
}

/// The spans of a whole Markdown text, by line.
///
/// Within a line, spans come in the parse tree's order, outer before inner (a heading before
/// the emphasis in it), so drawing them in order lets the inner one win.
public struct MarkdownHighlights: Sendable {
    /// Spans per line; a line with none has an empty array.
    public private(set) var lines: [[MarkdownSpan]]

    public init(lineCount: Int) {
        lines = Array(repeating: [], count: max(1, lineCount))
    }

    /// The spans of line `index` (none past the end).
    public func spans(ofLine index: Int) -> [MarkdownSpan] {
        index >= 0 && index < lines.count ? lines[index] : []
    }

    /// Every span, line by line (for tests and tools).
    public var all: [MarkdownSpan] { lines.flatMap { $0 } }

    mutating func add(_ span: MarkdownSpan) {
        guard span.line >= 0, span.line < lines.count, !span.bytes.isEmpty else { return }
        lines[span.line].append(span)
    }
}

/// Markdown highlighting from cmark-gfm's parse tree (never from patterns): every construct's
/// place comes from cmark's source positions (`CMARK_OPT_SOURCEPOS`), turned into spans of
/// lines.
///
/// The text is parsed as one document with GFM's table, strikethrough, autolink and task list
/// extensions. Parsing 1 MiB takes tens of milliseconds, so a big note is parsed off the UI queue
/// (the app's `MarkdownHighlighter` does that); this type is pure and safe from any thread.
public enum MarkdownParser {
    /// The GFM extensions attached to every parser.
    static let extensionNames = ["table", "strikethrough", "autolink", "tasklist"]

    /// Registers cmark-gfm's core extensions once per process. The registry is a C global
    /// without a lock; a `static let` initializer runs exactly once (swift_once), and after it
    /// the registry is only read.
    private static let registered: Bool = {
        cmark_gfm_core_extensions_ensure_registered()
        return true
    }()

    /// The spans of `text`.
    public static func highlights(of text: String) -> MarkdownHighlights {
        var text = text
        return text.withUTF8 { highlights(ofUTF8: $0) }
    }

    /// The spans of UTF-8 `bytes` (lines split at "\n", as the editor splits them).
    public static func highlights(ofUTF8 bytes: UnsafeBufferPointer<UInt8>) -> MarkdownHighlights {
        // Where each line starts, to turn cmark's 1-based (line, byte column) into line offsets.
        var lineStarts = [0]
        for i in 0..<bytes.count where bytes[i] == 0x0A { lineStarts.append(i + 1) }
        let lineLengths = lineStarts.indices.map { i in
            (i + 1 < lineStarts.count ? lineStarts[i + 1] - 1 : bytes.count) - lineStarts[i]
        }
        var walker = TreeWalker(bytes: bytes, lineStarts: lineStarts, lineLengths: lineLengths)
        withDocument(ofUTF8: bytes) { walker.walk($0) }
        var result = walker.result
        if let fence = NoteFrontMatter.fence(in: bytes) {
            for line in 0..<fence.bodyLine where line < lineLengths.count {
                result.add(MarkdownSpan(line: line, bytes: 0..<lineLengths[line], element: .frontMatter))
            }
        }
        return result
    }

    /// Parses UTF-8 `bytes` with the GFM extensions and `options` (source positions by
    /// default), hands the document to `body` and frees it after. Every reader of the tree
    /// (highlights, links, the rendered view, the web page) parses through here, so they all see
    /// the same document. Nothing happens if cmark cannot allocate a parser.
    ///
    /// YAML front matter at the top (``NoteFrontMatter``) is fed as that many empty lines: never
    /// a rule and a heading, and every line after it keeps its number.
    static func withDocument(ofUTF8 bytes: UnsafeBufferPointer<UInt8>, options: Int32 = BC_CMARK_OPT_SOURCEPOS, _ body: (OpaquePointer) -> Void) {
        _ = registered
        guard let parser = cmark_parser_new(options) else { return }
        defer { cmark_parser_free(parser) }
        for name in extensionNames {
            if let ext = cmark_find_syntax_extension(name) { cmark_parser_attach_syntax_extension(parser, ext) }
        }
        var rest = bytes
        if let fence = NoteFrontMatter.fence(in: bytes) {
            let blank = [CChar](repeating: 0x0A, count: fence.bodyLine)
            cmark_parser_feed(parser, blank, blank.count)
            rest = UnsafeBufferPointer(rebasing: bytes[fence.bodyOffset...])
        }
        if let base = rest.baseAddress {
            base.withMemoryRebound(to: CChar.self, capacity: rest.count) { cmark_parser_feed(parser, $0, rest.count) }
        }
        guard let document = cmark_parser_finish(parser) else { return }
        defer { cmark_node_free(document) }
        body(document)
    }
}
