import CCmarkGFM
#if canImport(Glibc)
import Glibc
#endif

/// The runs a block's rows start with: a quote's bar, a list item's marker (its first row) or
/// the indent under it (the others).
struct Prefix {
    var runs: [RenderedRun] = []
    var width = 0

    static let empty = Prefix()

    func adding(_ text: String, _ style: RenderedStyle, width cells: Int) -> Prefix {
        Prefix(runs: runs + [RenderedRun(text, style: style)], width: width + cells)
    }
}

/// Lays a note out, block by block, from cmark-gfm's tree. Each block gets the prefix of its
/// first row and of the rest; blocks in a container are a blank row apart (not the items of a
/// tight list).
struct RenderLayout {
    /// The right edge rows fill to (narrower inside a callout's box, whose right edge is past it).
    var width: Int
    let options: RenderOptions
    var note: RenderedNote
    /// The source line of the block being laid out.
    var sourceLine = 0
    private var footnoteRuleDrawn = false
    /// Footnotes by label, numbered as first referred to; cmark-gfm puts the definitions at the
    /// end in that same order (and gives no label for a definition).
    var footnoteNumbers: [String: Int] = [:]
    /// Between a `<mark>` and its `</mark>` (a highlight, ObsidianSource.swift).
    var highlighting = false
    /// Embeds drawn so far (``RenderOptions/embedBudget``).
    var embedsDrawn = 0
    private var footnotesDefined = 0
    /// How many bullet lists the block being laid out is in.
    private var listDepth = 0

    init(width: Int, options: RenderOptions) {
        self.width = width
        self.options = options
        note = RenderedNote(width: width)
    }

    // MARK: Widths

    func cells(_ character: Character) -> Int {
        // ASCII is one cell, controls too (drawn as U+FFFD).
        if character.isASCII { return 1 }
        var total = 0
        for scalar in character.unicodeScalars {
            let w = options.cellWidth(scalar)
            total += w < 0 ? 1 : w
        }
        return total
    }

    func cells<S: StringProtocol>(_ text: S) -> Int {
        var total = 0
        for character in text { total += cells(character) }
        return total
    }

    // MARK: Rows

    mutating func emit(_ runs: [RenderedRun], width: Int, scrolls: Bool = false, picture: Int? = nil) {
        note.lines.append(RenderedLine(runs: runs, width: width, scrolls: scrolls, picture: picture, sourceLine: sourceLine))
    }

    mutating func blankRow(_ prefix: Prefix) {
        // A quote's bar (and a callout's) goes on through the blank rows between its paragraphs.
        let runs = prefix.runs.filter { $0.style.contains(.quote) || $0.style.contains(.callout) }
        emit(runs.isEmpty ? [] : prefix.runs, width: runs.isEmpty ? 0 : prefix.width)
    }

    /// `count` of `piece`, for rules and box edges.
    static func repeated(_ piece: String, _ count: Int) -> String { String(repeating: piece, count: max(0, count)) }

    // MARK: Blocks

    mutating func document(_ document: OpaquePointer) {
        blocks(childrenOf: document, first: .empty, rest: .empty, tight: false)
        while let last = note.lines.last, last.runs.isEmpty, last.picture == nil { note.lines.removeLast() }
    }

    mutating func blocks(childrenOf parent: OpaquePointer, first: Prefix, rest: Prefix, tight: Bool) {
        var child = cmark_node_first_child(parent)
        var isFirst = true
        var previous: cmark_node_type?
        while let node = child {
            let type = cmark_node_get_type(node)
            // Footnotes (together at the end) are listed without blank rows between them.
            let footnotes = type == BC_CMARK_NODE_FOOTNOTE_DEFINITION && previous == BC_CMARK_NODE_FOOTNOTE_DEFINITION
            previous = type
            if !isFirst, !tight, !footnotes { blankRow(rest) }
            block(node, first: isFirst ? first : rest, rest: rest)
            isFirst = false
            child = cmark_node_next(node)
        }
        // An empty list item still shows its marker.
        if isFirst, !first.runs.isEmpty { emit(first.runs, width: first.width) }
    }

    mutating func block(_ node: OpaquePointer, first: Prefix, rest: Prefix) {
        let line = Int(cmark_node_get_start_line(node)) - 1
        if line >= 0 { sourceLine = line }
        let type = cmark_node_get_type(node)
        switch type {
        case BC_CMARK_NODE_PARAGRAPH:
            paragraph(inlines(of: node, style: []), first: first, rest: rest)
        case BC_CMARK_NODE_HEADING:
            heading(node, first: first, rest: rest)
        case BC_CMARK_NODE_THEMATIC_BREAK:
            emit(first.runs + [RenderedRun(Self.repeated("─", width - first.width), style: .border)], width: width)
        case BC_CMARK_NODE_BLOCK_QUOTE:
            if let callout = Callout(quote: node) {
                self.callout(callout, node, first: first, rest: rest)
                return
            }
            blocks(childrenOf: node, first: first.adding("│ ", [.quote, .border], width: 2),
                   rest: rest.adding("│ ", [.quote, .border], width: 2), tight: false)
        case BC_CMARK_NODE_LIST:
            list(node, first: first, rest: rest)
        case BC_CMARK_NODE_CODE_BLOCK:
            let info = cmark_node_get_fence_info(node).map { String(cString: $0) } ?? ""
            codeBox(literal(node), info: info.split(separator: " ").first.map(String.init) ?? "", first: first, rest: rest)
        case BC_CMARK_NODE_HTML_BLOCK:
            // Shown as the text it is: raw HTML never does anything in a terminal.
            verbatim(literal(node), style: [.code, .muted], first: first, rest: rest)
        case BC_CMARK_NODE_FOOTNOTE_DEFINITION:
            if !footnoteRuleDrawn {
                footnoteRuleDrawn = true
                emit(first.runs + [RenderedRun(Self.repeated("─", min(12, width - first.width)), style: .border)], width: min(width, first.width + 12))
            }
            footnotesDefined += 1
            let mark = "[\(footnotesDefined)] "
            let markWidth = cells(mark)
            blocks(childrenOf: node, first: first.adding(mark, .muted, width: markWidth),
                   rest: rest.adding(Self.repeated(" ", markWidth), [], width: markWidth), tight: true)
        default:
            if let name = cmark_node_get_type_string(node), strcmp(name, "table") == 0 {
                table(node, first: first, rest: rest)
            } else if cmark_node_first_child(node) != nil {
                blocks(childrenOf: node, first: first, rest: rest, tight: false)
            }
        }
    }

    func literal(_ node: OpaquePointer) -> String {
        cmark_node_get_literal(node).map { String(cString: $0) } ?? ""
    }

    private mutating func heading(_ node: OpaquePointer, first: Prefix, rest: Prefix) {
        let level = Int(cmark_node_get_heading_level(node))
        let before = note.lines.count
        paragraph(inlines(of: node, style: .heading), first: first, rest: rest)
        guard level <= 2 else { return }
        // The two top levels are underlined, as glow and man pages set them apart.
        let textWidth = note.lines[before...].map { $0.width - rest.width }.max() ?? 0
        emit(rest.runs + [RenderedRun(Self.repeated(level == 1 ? "━" : "─", textWidth), style: [.heading, .border])],
             width: rest.width + textWidth)
    }

    private mutating func list(_ node: OpaquePointer, first: Prefix, rest: Prefix) {
        let tight = cmark_node_get_list_tight(node) != 0
        let ordered = cmark_node_get_list_type(node) == CMARK_ORDERED_LIST
        let start = Int(cmark_node_get_list_start(node))
        var count = 0
        var item = cmark_node_first_child(node)
        while let node = item { count += 1; item = cmark_node_next(node) }
        let numberWidth = String(start + max(0, count - 1)).count
        // Nested bullet lists take the next bullet, as most renderers do.
        let bullet = ["•", "◦", "▪"][listDepth % 3]
        if !ordered { listDepth += 1 }
        defer { if !ordered { listDepth -= 1 } }
        item = cmark_node_first_child(node)
        var index = 0
        while let node = item {
            if index > 0, !tight { blankRow(rest) }
            var marker: String
            var style: RenderedStyle = .marker
            if ordered {
                let number = String(start + index)
                marker = Self.repeated(" ", numberWidth - number.count) + number + ". "
            } else {
                marker = bullet + " "
            }
            if let name = cmark_node_get_type_string(node), strcmp(name, "tasklist") == 0 {
                let checked = cmark_gfm_extensions_get_tasklist_item_checked(node)
                marker = (ordered ? marker : "") + (checked ? "☑ " : "☐ ")
                if checked { style.insert(.done) }
            }
            let markerWidth = cells(marker)
            let base = index == 0 ? first : rest
            blocks(childrenOf: node, first: base.adding(marker, style, width: markerWidth),
                   rest: rest.adding(Self.repeated(" ", markerWidth), [], width: markerWidth), tight: tight)
            index += 1
            item = cmark_node_next(node)
        }
    }

    /// Fenced or indented code: in a box with the language in its top edge. Lines longer than
    /// the box are cut into rows (code keeps its spaces, so it is never wrapped at words).
    private mutating func codeBox(_ code: String, info: String, first: Prefix, rest: Prefix) {
        var lines = code.split(separator: "\n", omittingEmptySubsequences: false).map { $0.replacingOccurrences(of: "\t", with: "    ") }
        if lines.last == "" { lines.removeLast() }
        let room = max(1, width - max(first.width, rest.width) - 4)
        let label = info.isEmpty ? "" : " " + info + " "
        let widest = lines.map { cells($0) }.max() ?? 0
        let inner = min(room, max(widest, cells(label) + 1, 1))
        let labelCut = cells(label) + 1 <= inner + 2 ? label : ""
        emit(first.runs + [RenderedRun("╭─" + labelCut + Self.repeated("─", inner + 1 - cells(labelCut)) + "╮", style: .border)],
             width: first.width + inner + 4)
        for line in lines {
            for chunk in cut(line, into: inner) {
                let pad = Self.repeated(" ", inner - cells(chunk))
                emit(rest.runs + [RenderedRun("│ ", style: .border), RenderedRun(chunk + pad, style: .codeBlock), RenderedRun(" │", style: .border)],
                     width: rest.width + inner + 4)
            }
        }
        emit(rest.runs + [RenderedRun("╰" + Self.repeated("─", inner + 2) + "╯", style: .border)], width: rest.width + inner + 4)
    }

    /// Text kept as written (HTML blocks), cut into rows of the width.
    mutating func verbatim(_ text: String, style: RenderedStyle, first: Prefix, rest: Prefix) {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        var isFirst = true
        for line in lines {
            for chunk in cut(String(line), into: max(1, width - rest.width)) {
                let prefix = isFirst ? first : rest
                isFirst = false
                emit(prefix.runs + [RenderedRun(chunk, style: style)], width: prefix.width + cells(chunk))
            }
        }
    }

    /// `text` in pieces of at most `columns` cells (one piece for an empty line).
    func cut(_ text: String, into columns: Int) -> [String] {
        var pieces: [String] = []
        var piece = ""
        var used = 0
        for character in text {
            let w = cells(character)
            if used + w > columns, !piece.isEmpty {
                pieces.append(piece)
                piece = ""
                used = 0
            }
            piece.append(character)
            used += w
        }
        pieces.append(piece)
        return pieces
    }

    /// A `.txt` note: each line wrapped at words, blank lines kept.
    mutating func plain(_ text: String) {
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            sourceLine = number
            number += 1
            if line.isEmpty {
                emit([], width: 0)
            } else {
                paragraph([InlineAtom(text: String(line), style: [])], first: .empty, rest: .empty)
            }
        }
        while let last = note.lines.last, last.runs.isEmpty { note.lines.removeLast() }
    }
}
