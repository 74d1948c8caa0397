import CCmarkGFM
import Foundation

/// A block quote that opens with `[!kind]` (Obsidian's callout): `> [!warning]- Title`.
struct Callout {
    /// The kind as written, lower case ("note", "warning").
    var kind: String
    /// The title after the kind; empty when none was written.
    var title: String
    /// `-`: folded (only its title row is drawn); `+`: foldable, open.
    var folded: Bool
    var foldable: Bool

    /// The callout `quote` opens with, if it is one. Its first line is parsed as cmark split
    /// it (`[`, `!note`, `]` are separate text nodes), from the text of that line's nodes.
    init?(quote: OpaquePointer) {
        guard let paragraph = cmark_node_first_child(quote), cmark_node_get_type(paragraph) == BC_CMARK_NODE_PARAGRAPH else { return nil }
        var line = ""
        var node = cmark_node_first_child(paragraph)
        while let current = node {
            let type = cmark_node_get_type(current)
            if type == BC_CMARK_NODE_SOFTBREAK || type == BC_CMARK_NODE_LINEBREAK { break }
            if type == BC_CMARK_NODE_TEXT || type == BC_CMARK_NODE_CODE {
                line += cmark_node_get_literal(current).map { String(cString: $0) } ?? ""
            } else {
                line += LinkWalker.plainText(of: current)
            }
            node = cmark_node_next(current)
        }
        guard line.hasPrefix("[!"), let close = line.firstIndex(of: "]") else { return nil }
        let kind = line[line.index(line.startIndex, offsetBy: 2)..<close]
        guard !kind.isEmpty, kind.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else { return nil }
        var rest = line[line.index(after: close)...]
        folded = rest.first == "-"
        foldable = folded || rest.first == "+"
        if foldable { rest = rest.dropFirst() }
        self.kind = kind.lowercased()
        title = rest.trimmingCharacters(in: .whitespaces)
    }

    /// Takes the callout's first line (its kind and title) out of `quote`'s tree, so what is
    /// left is its body; a first paragraph left empty goes too.
    static func removeFirstLine(of quote: OpaquePointer) {
        guard let paragraph = cmark_node_first_child(quote) else { return }
        while let node = cmark_node_first_child(paragraph) {
            let type = cmark_node_get_type(node)
            cmark_node_unlink(node)
            cmark_node_free(node)
            if type == BC_CMARK_NODE_SOFTBREAK || type == BC_CMARK_NODE_LINEBREAK { break }
        }
        if cmark_node_first_child(paragraph) == nil {
            cmark_node_unlink(paragraph)
            cmark_node_free(paragraph)
        }
    }

    /// "Warning · Title", or "Note" with no title.
    var label: String {
        let name = kind.prefix(1).uppercased() + kind.dropFirst()
        return title.isEmpty ? name : name + " · " + title
    }
}

extension RenderLayout {
    // MARK: Callouts

    /// A callout in a box, its kind and title in the top edge; folded, only that row.
    mutating func callout(_ callout: Callout, _ quote: OpaquePointer, first: Prefix, rest: Prefix) {
        let mark = callout.foldable ? (callout.folded ? "▸ " : "▾ ") : ""
        let label = mark + callout.label
        let inner = max(1, width - rest.width - 4)
        let shown = cut(label, into: max(1, inner - 1)).first ?? ""
        if callout.folded {
            emit(first.runs + [RenderedRun("╶ ", style: [.callout, .border]), RenderedRun(shown, style: [.callout, .strong]),
                               RenderedRun(" ╴", style: [.callout, .border])], width: first.width + cells(shown) + 4)
            return
        }
        emit(first.runs + [RenderedRun("╭─ ", style: [.callout, .border]), RenderedRun(shown, style: [.callout, .strong]),
                           RenderedRun(" " + Self.repeated("─", inner - cells(shown) - 1) + "╮", style: [.callout, .border])],
             width: first.width + inner + 4)
        Callout.removeFirstLine(of: quote)
        let bar = rest.adding("│ ", [.callout, .border], width: 2)
        let before = note.lines.count
        let outer = width
        width -= 2
        blocks(childrenOf: quote, first: bar, rest: bar, tight: false)
        width = outer
        // The right edge: each row padded to the box's width (a wide table's rows scroll past it).
        for index in before..<note.lines.count where !note.lines[index].scrolls && note.lines[index].width <= width - 2 {
            let pad = width - 2 - note.lines[index].width
            note.lines[index].runs.append(RenderedRun(Self.repeated(" ", pad) + " │", style: [.callout, .border]))
            note.lines[index].width = width
        }
        emit(rest.runs + [RenderedRun("╰" + Self.repeated("─", inner + 2) + "╯", style: [.callout, .border])], width: rest.width + inner + 4)
    }

    /// Inline `#tags` (``InlineTags``' rule: after a space or at a line's start) drawn as tags;
    /// code and links are left alone.
    func markTags(in atoms: [InlineAtom]) -> [InlineAtom] {
        guard atoms.contains(where: { $0.kind == .text && $0.text.contains("#") }) else { return atoms }
        var result: [InlineAtom] = []
        var before: Character = " "
        for atom in atoms {
            guard atom.kind == .text, atom.link == nil, !atom.style.contains(.code), atom.text.contains("#") else {
                result.append(atom)
                before = atom.kind == .hardBreak ? " " : atom.text.last ?? before
                continue
            }
            let text = atom.text
            var piece = ""
            var index = text.startIndex
            while index < text.endIndex {
                let character = text[index]
                if character == "#", before == " " || before == "\t", let end = InlineTags.tagEnd(in: text, hash: index) {
                    if !piece.isEmpty { result.append(InlineAtom(text: piece, style: atom.style)) }
                    piece = ""
                    result.append(InlineAtom(text: String(text[index..<end]), style: atom.style.union(.marker)))
                    before = text[text.index(before: end)]
                    index = end
                    continue
                }
                piece.append(character)
                before = character
                index = text.index(after: index)
            }
            if !piece.isEmpty { result.append(InlineAtom(text: piece, style: atom.style)) }
        }
        return result
    }

    /// `<mark>` or `</mark>`, which a highlight `==x==` was rewritten to.
    static func isMark(_ html: String) -> Bool {
        let lower = html.lowercased()
        return lower == "<mark>" || lower == "</mark>"
    }

    // MARK: Embeds

    /// Whether an `![[…]]` leads to a note (drawn inline) rather than a picture.
    func isEmbed(_ target: NoteLinkTarget) -> Bool {
        switch target {
        case .note: return true
        case .path(let path): return ClubLayoutNames.isNote(path)
        case .photo, .here, .web, .elsewhere: return false
        }
    }

    /// Another note's text (or one section of it) drawn here inside a frame, laid out as this
    /// note is; nested embeds go `embedDepth` deep, and a note already being drawn around this
    /// one is a line saying so, never drawn again.
    mutating func embed(_ index: Int, prefix: Prefix) {
        let link = note.links[index].link
        let name = link.fragment.map { link.destination + "#" + $0 } ?? link.destination
        let frame: RenderedStyle = [.embed, .border]
        func say(_ text: String) {
            paragraph([InlineAtom(text: "⧉ " + text, style: [.embed, .muted], link: index)], first: prefix, rest: prefix)
        }
        guard let found = options.embeds?(link) else {
            return say(name)
        }
        let key = found.path.lowercased()
        let chain = options.embedChain.isEmpty ? [options.path?.lowercased() ?? ""] : options.embedChain
        if link.fragment == nil, chain.contains(key) {
            return say("\(name) is already drawn around here: an embed loop is not followed")
        }
        if chain.count > options.embedDepth {
            return say("\(name): embeds deeper than \(options.embedDepth) are not drawn")
        }
        guard embedsDrawn < options.embedBudget else {
            return say("\(name): more than \(options.embedBudget) embeds here; the rest are not drawn")
        }
        embedsDrawn += 1
        var text = found.text
        if let fragment = link.fragment {
            guard let section = NoteAnchors.section(fragment, in: found.text) else {
                return say("\(name): no such heading or block in it")
            }
            // A section embedding itself (or a loop through sections) is stopped the same way.
            let sectionKey = key + "#" + fragment.lowercased()
            if chain.contains(sectionKey) { return say("\(name) is already drawn around here: an embed loop is not followed") }
            text = section
            return embedded(text, link: index, name: name, frame: frame, prefix: prefix,
                            chain: chain + [sectionKey], folder: (found.path as NSString).deletingLastPathComponent)
        } else if NoteFrontMatter(text) != nil {
            // A whole note is its body: its properties are its own page's.
            text = String(NoteFrontMatter.body(of: text))
        }
        embedded(text, link: index, name: name, frame: frame, prefix: prefix, chain: chain + [key],
                 folder: (found.path as NSString).deletingLastPathComponent)
    }

    private mutating func embedded(_ text: String, link index: Int, name: String, frame: RenderedStyle, prefix: Prefix,
                                   chain: [String], folder: String) {
        var nested = options
        nested.embedChain = chain
        nested.embedBudget = max(1, options.embedBudget / 8)
        nested.folder = folder
        let inner = RenderedNote.layout(text, width: max(8, width - prefix.width - 2), options: nested)
        let head = "┌─ ⧉ " + name + " "
        let headWidth = cells(head)
        emit(prefix.runs + [RenderedRun("┌─ ", style: frame), RenderedRun("⧉ " + name, style: [.embed, .link], link: index),
                            RenderedRun(" " + Self.repeated("─", max(0, width - prefix.width - headWidth)), style: frame)],
             width: max(prefix.width + headWidth, width))
        let linkBase = note.links.count, pictureBase = note.pictures.count
        note.links += inner.links
        for picture in inner.pictures {
            var moved = picture
            moved.link += linkBase
            moved.line += note.lines.count
            note.pictures.append(moved)
        }
        for line in inner.lines {
            let runs = line.runs.map { run in RenderedRun(run.text, style: run.style, link: run.link.map { $0 + linkBase }) }
            emit(prefix.runs + [RenderedRun("│ ", style: frame)] + runs, width: prefix.width + 2 + line.width, scrolls: line.scrolls,
                 picture: line.picture.map { $0 + pictureBase })
        }
        emit(prefix.runs + [RenderedRun("└" + Self.repeated("─", max(1, min(width - prefix.width - 1, headWidth))), style: frame)],
             width: prefix.width + 1 + max(1, min(width - prefix.width - 1, headWidth)))
    }
}

/// Which names are notes, as the club's layout says (`.md`, `.txt`).
enum ClubLayoutNames {
    static func isNote(_ path: String) -> Bool {
        let ext = (path as NSString).pathExtension.lowercased()
        return ext == "md" || ext == "txt"
    }
}
