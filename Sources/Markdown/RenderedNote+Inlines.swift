import CCmarkGFM
#if canImport(Glibc)
import Glibc
#endif

/// A piece of a paragraph before it is wrapped: text in one style, a hard line break, or a
/// club photo (index into ``RenderedNote/pictures`` once placed; here the link's index).
struct InlineAtom {
    enum Kind: Equatable {
        case text
        case hardBreak
        /// A photo to draw, by its link's index.
        case picture(Int)
        /// Another note's text to draw here (`![[Note]]`), by its link's index.
        case embed(Int)
    }

    var text: String
    var style: RenderedStyle
    var link: Int?
    var kind: Kind = .text
}

extension RenderLayout {
    // MARK: Collecting

    /// The inline content of `node` as atoms, wiki links found in its plain text.
    mutating func inlines(of node: OpaquePointer, style: RenderedStyle) -> [InlineAtom] {
        var atoms: [InlineAtom] = []
        collect(node, style: style, link: nil, into: &atoms)
        return markTags(in: findWikiLinks(in: atoms))
    }

    private mutating func collect(_ parent: OpaquePointer, style: RenderedStyle, link: Int?, into atoms: inout [InlineAtom]) {
        var child = cmark_node_first_child(parent)
        while let node = child {
            child = cmark_node_next(node)
            // `==x==` came as `<mark>x</mark>` (ObsidianSource): what is between is highlighted.
            let style = highlighting ? style.union(.highlight) : style
            switch cmark_node_get_type(node) {
            case BC_CMARK_NODE_TEXT:
                atoms.append(InlineAtom(text: literal(node), style: style, link: link))
            case BC_CMARK_NODE_SOFTBREAK:
                atoms.append(InlineAtom(text: " ", style: style, link: link))
            case BC_CMARK_NODE_LINEBREAK:
                atoms.append(InlineAtom(text: "", style: style, link: link, kind: .hardBreak))
            case BC_CMARK_NODE_CODE:
                atoms.append(InlineAtom(text: literal(node), style: style.union(.code), link: link))
            case BC_CMARK_NODE_HTML_INLINE where Self.isMark(literal(node)):
                highlighting = !literal(node).hasPrefix("</")
            case BC_CMARK_NODE_HTML_INLINE:
                // Raw HTML is shown as the text it is, never interpreted.
                atoms.append(InlineAtom(text: literal(node), style: style.union(.muted), link: link))
            case BC_CMARK_NODE_EMPH:
                collect(node, style: style.union(.emphasis), link: link, into: &atoms)
            case BC_CMARK_NODE_STRONG:
                collect(node, style: style.union(.strong), link: link, into: &atoms)
            case BC_CMARK_NODE_FOOTNOTE_REFERENCE:
                let label = literal(node)
                let number = footnoteNumbers[label] ?? footnoteNumbers.count + 1
                footnoteNumbers[label] = number
                atoms.append(InlineAtom(text: "[\(number)]", style: style.union(.muted), link: link))
            case BC_CMARK_NODE_LINK:
                let index = addLink(node, isImage: false)
                collect(node, style: style.union(.link), link: index, into: &atoms)
                // A web address shows where it goes unless the text already says so.
                let entry = note.links[index]
                switch entry.target {
                case .web(let address), .elsewhere(let address):
                    if entry.link.text != address, !address.hasPrefix("mailto:") || entry.link.text != String(address.dropFirst(7)) {
                        atoms.append(InlineAtom(text: " ", style: style, link: nil))
                        atoms.append(InlineAtom(text: "⟨" + address + "⟩", style: style.union(.muted), link: index))
                    }
                default:
                    break
                }
            case BC_CMARK_NODE_IMAGE:
                let index = addLink(node, isImage: true)
                image(index, style: style, into: &atoms)
            default:
                if let name = cmark_node_get_type_string(node), strcmp(name, "strikethrough") == 0 {
                    collect(node, style: style.union(.strikethrough), link: link, into: &atoms)
                } else {
                    collect(node, style: style, link: link, into: &atoms)
                }
            }
        }
    }

    /// A club photo becomes a picture where the caller draws them (``RenderOptions/pictureRows``);
    /// any other image, and a club photo where none are drawn, shows its alt text (pictures from
    /// other hosts are never fetched).
    private func image(_ index: Int, style: RenderedStyle, into atoms: inout [InlineAtom]) {
        let entry = note.links[index]
        if case .photo = entry.target, options.pictureRows > 0 {
            atoms.append(InlineAtom(text: entry.link.text, style: style, link: index, kind: .picture(index)))
        } else {
            var alt = entry.link.syntax == .markdown ? NoteLinks.pictureSize(inAlt: entry.link.text).alt : entry.link.text
            if alt.isEmpty, case .photo(let path) = entry.target { alt = path.split(separator: "/").last.map(String.init) ?? path }
            atoms.append(InlineAtom(text: "[" + (alt.isEmpty ? "image" : alt) + "]", style: style.union([.muted, .link]), link: index))
        }
    }

    private mutating func addLink(_ node: OpaquePointer, isImage: Bool) -> Int {
        let destination = cmark_node_get_url(node).map { String(cString: $0) } ?? ""
        let first = Int(cmark_node_get_start_line(node)) - 1
        let link: NoteLink
        if first >= 0 {
            let from = max(0, Int(cmark_node_get_start_column(node)) - 1)
            let to = Int(cmark_node_get_end_line(node)) - 1 == first ? Int(cmark_node_get_end_column(node)) : Int.max
            link = NoteLink(destination: destination, text: LinkWalker.plainText(of: node), isImage: isImage, syntax: .markdown,
                            line: first, bytes: from..<max(from, to), fragment: NoteLink.fragment(ofDestination: destination))
        } else {
            link = NoteLink(destination: destination, text: LinkWalker.plainText(of: node), isImage: isImage, syntax: .autolink,
                            line: -1, bytes: 0..<0)
        }
        note.links.append(RenderedLink(link: link, target: link.target(inFolder: options.folder)))
        return note.links.count - 1
    }

    /// `[[Title]]` and `![[photo.jpg]]` in the text atoms (cmark splits text at brackets, so
    /// neighbours in one style are joined first). Code and link text are left alone. The
    /// links found have no source position (`line == -1`): ``NoteLinks/scan(_:)`` has those.
    private mutating func findWikiLinks(in atoms: [InlineAtom]) -> [InlineAtom] {
        var joined: [InlineAtom] = []
        for atom in atoms {
            if var last = joined.last, last.kind == .text, atom.kind == .text, last.link == nil, atom.link == nil,
               last.style == atom.style, !atom.style.contains(.code) {
                last.text += atom.text
                joined[joined.count - 1] = last
            } else {
                joined.append(atom)
            }
        }
        var result: [InlineAtom] = []
        for atom in joined {
            guard atom.kind == .text, atom.link == nil, !atom.style.contains(.code), atom.text.contains("[[") else {
                result.append(atom)
                continue
            }
            var text = atom.text
            let utf8 = Array(text.utf8)
            let found = text.withUTF8 { NoteLinks.wikiLinks(in: $0, line: -1, excluding: []) }
            var at = 0
            for var link in found {
                if link.bytes.lowerBound > at {
                    result.append(InlineAtom(text: String(decoding: utf8[at..<link.bytes.lowerBound], as: UTF8.self), style: atom.style))
                }
                at = link.bytes.upperBound
                link.bytes = 0..<0
                note.links.append(RenderedLink(link: link, target: link.target(inFolder: options.folder)))
                let index = note.links.count - 1
                if link.isImage, isEmbed(note.links[index].target) {
                    result.append(InlineAtom(text: link.text, style: atom.style, link: index, kind: .embed(index)))
                } else if link.isImage {
                    image(index, style: atom.style, into: &result)
                } else {
                    // `[[Trip#Day 2]]` reads as Obsidian shows it: "Trip › Day 2".
                    let shown = link.text == link.destination && !link.destination.isEmpty ? link.fragment.map { link.text + " › " + $0 } ?? link.text : link.text
                    result.append(InlineAtom(text: shown, style: atom.style.union(.link), link: index))
                }
            }
            if at < utf8.count { result.append(InlineAtom(text: String(decoding: utf8[at...], as: UTF8.self), style: atom.style)) }
        }
        return result
    }

    // MARK: Wrapping

    /// Wraps `atoms` at spaces into rows `width` cells wide, the first row after `first`, the
    /// others after `rest`. A word longer than a row is cut. A photo takes rows of its own.
    mutating func paragraph(_ atoms: [InlineAtom], first: Prefix, rest: Prefix) {
        var filler = LineFiller(limit: width, first: first, rest: rest)
        var word: [(text: String, style: RenderedStyle, link: Int?, cells: Int)] = []
        var wordCells = 0
        var space: (RenderedStyle, Int?)?
        func flushWord(_ filler: inout LineFiller, _ layout: RenderLayout) {
            guard !word.isEmpty else { return }
            filler.place(word, cells: wordCells, after: space, layout: layout)
            word.removeAll(keepingCapacity: true)
            wordCells = 0
            space = nil
        }
        for atom in atoms {
            switch atom.kind {
            case .hardBreak:
                flushWord(&filler, self)
                space = nil
                filler.newLine()
            case .picture(let index):
                flushWord(&filler, self)
                space = nil
                if filler.hasContent { filler.newLine() }
                for row in filler.take() { emit(row.runs, width: row.width) }
                picture(index, prefix: rest)
                filler.restart()
            case .embed(let index):
                flushWord(&filler, self)
                space = nil
                if filler.hasContent { filler.newLine() }
                for row in filler.take() { emit(row.runs, width: row.width) }
                embed(index, prefix: rest)
                filler.restart()
            case .text:
                var piece = ""
                var pieceCells = 0
                for character in atom.text {
                    if character == " " || character == "\t" || character == "\n" {
                        if !piece.isEmpty {
                            word.append((piece, atom.style, atom.link, pieceCells))
                            wordCells += pieceCells
                            piece = ""
                            pieceCells = 0
                        }
                        flushWord(&filler, self)
                        if filler.hasContent { space = (atom.style, atom.link) }
                    } else {
                        piece.append(character)
                        pieceCells += cells(character)
                    }
                }
                if !piece.isEmpty {
                    word.append((piece, atom.style, atom.link, pieceCells))
                    wordCells += pieceCells
                }
            }
        }
        flushWord(&filler, self)
        filler.finish()
        for row in filler.take() { emit(row.runs, width: row.width) }
    }

    /// A photo's slot: rows the app draws the picture over (as many as its size asks, else
    /// ``RenderOptions/pictureRows``), its name on the first as a stand-in, then the alt text
    /// as a caption under it. A picture the caller cannot draw is one row: its name and why.
    private mutating func picture(_ index: Int, prefix: Prefix) {
        guard case .photo(let path) = note.links[index].target else { return }
        let link = note.links[index].link
        let (alt, size) = link.syntax == .markdown ? NoteLinks.pictureSize(inAlt: link.text) : (link.text, link.size)
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let known = options.knownPictures[path.lowercased()]
        if case .undrawn(let why)? = known {
            let text = "▣ " + name + (why.isEmpty ? "" : " · " + why)
            emit(prefix.runs + [RenderedRun(text, style: .muted, link: index)], width: prefix.width + cells(text))
            if !alt.isEmpty, alt != name {
                emit(prefix.runs + [RenderedRun(alt, style: [.muted, .emphasis], link: index)], width: prefix.width + cells(alt))
            }
            return
        }
        var ratio: (width: Int, height: Int)?
        if case .size(let width, let height)? = known { ratio = (width, height) }
        let slot = NoteLinks.pictureSlot(size: size, known: ratio, available: max(1, width - prefix.width), defaultRows: options.pictureRows,
                                         cell: (options.cellPixelWidth, options.cellPixelHeight))
        let rows = slot.rows
        let pictureIndex = note.pictures.count
        note.pictures.append(RenderedPicture(path: path, alt: alt, link: index, line: note.lines.count, rows: rows, columns: slot.columns))
        for row in 0..<rows {
            let runs = row == 0 ? prefix.runs + [RenderedRun("▣ " + name, style: .muted, link: index)] : prefix.runs
            emit(runs, width: row == 0 ? prefix.width + 2 + cells(name) : prefix.width, picture: pictureIndex)
        }
        if !alt.isEmpty, alt != name {
            emit(prefix.runs + [RenderedRun(alt, style: [.muted, .emphasis], link: index)], width: prefix.width + cells(alt))
        }
    }
}

/// Fills rows word by word: a word goes on the row if it fits after its space, else starts the
/// next row; a word wider than a whole row is cut across rows.
struct LineFiller {
    let limit: Int
    let first: Prefix
    let rest: Prefix
    private var rows: [(runs: [RenderedRun], width: Int)] = []
    private var runs: [RenderedRun]
    private var column: Int
    /// Whether the row has anything past its prefix.
    private(set) var hasContent = false
    /// Whether any row (or a picture) was made, so an empty paragraph still makes one row.
    private var madeAny = false

    init(limit: Int, first: Prefix, rest: Prefix) {
        self.limit = limit
        self.first = first
        self.rest = rest
        runs = first.runs
        column = first.width
    }

    mutating func place(_ word: [(text: String, style: RenderedStyle, link: Int?, cells: Int)], cells: Int,
                        after space: (RenderedStyle, Int?)?, layout: RenderLayout) {
        if hasContent {
            if let space, column + 1 + cells <= limit {
                append(" ", space.0, space.1, 1)
            } else if space != nil || column + cells > limit {
                newLine()
            }
        }
        if column + cells <= limit {
            for piece in word { append(piece.text, piece.style, piece.link, piece.cells) }
            return
        }
        // Too wide for any row: cut it, character by character.
        for piece in word {
            for character in piece.text {
                let w = layout.cells(character)
                if column + w > limit, hasContent { newLine() }
                append(String(character), piece.style, piece.link, w)
            }
        }
    }

    private mutating func append(_ text: String, _ style: RenderedStyle, _ link: Int?, _ cells: Int) {
        if let last = runs.last, last.style == style, last.link == link, runs.count > 0, hasContent {
            runs[runs.count - 1].text += text
        } else {
            runs.append(RenderedRun(text, style: style, link: link))
        }
        column += cells
        hasContent = true
    }

    mutating func newLine() {
        rows.append((runs, column))
        madeAny = true
        runs = rest.runs
        column = rest.width
        hasContent = false
    }

    /// After a picture: the rows go on under it, after the rest prefix.
    mutating func restart() {
        madeAny = true
        runs = rest.runs
        column = rest.width
        hasContent = false
    }

    mutating func finish() {
        if hasContent || !madeAny { newLine() }
    }

    mutating func take() -> [(runs: [RenderedRun], width: Int)] {
        defer { rows.removeAll() }
        return rows
    }
}
